// Package history is what a proof run records: every operation of every
// process of the fleet, Go or Java, as JSON lines, one file per process.
//
// An operation is two lines: an invocation, written before the call, and
// its completion, written when the call returned. A process killed or
// paused forever leaves invocations without completions; a checker treats
// those as operations whose outcome is unknown (they may or may not have
// taken effect). Each line is written with one write(2), so a process
// killed with SIGKILL loses no line it finished writing.
//
// A line is a JSON object with these fields (omitted when zero):
//
//	type      "invoke", "ok" (done, with effect), "fail" (done, certainly
//	          without effect: not granted, rejected), "info" (returned
//	          with an error: the effect is unknown)
//	process   the process, "go-3" or "java-1"; with id, names the operation
//	side      "go" or "java"
//	workload  fenced, plain, fair, rw, semaphore, pesemaphore, election
//	name      the object's name in Redis
//	id        the operation's number within its process, from 1
//	op        what was done (below)
//	t         when: nanoseconds since the Unix epoch, the host's clock (all
//	          processes run on one host: one clock)
//	mode      rw: "read" or "write"
//	value     a register's value read, or to be written (on invoke)
//	token     the fencing token the operation holds or was granted
//	count     semaphore: how many were inside once this holder marked in
//	error     the error text of a fail or info
//
// The operations (op):
//
//	acquire   take the object: lock, read/write lock (mode), permit(s),
//	          leadership; ok carries the token where there is one
//	release   give it back; fail: not held any more (ErrNotHeld,
//	          IllegalMonitorStateException)
//	lost      the holder learned that its hold ended (Go's Lost): an
//	          instant, written as invoke and ok with one t
//	read      read the guarded register (fenced: through the store, with
//	          token)
//	write     write the guarded register (fenced: with token; fail: the
//	          store rejected a token lower than one it had seen)
//	enter     mark in, inside a semaphore's section; ok carries count
//	leave     mark out
package history

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sync"
	"time"
)

// The types of a line.
const (
	Invoke = "invoke"
	OK     = "ok"
	Fail   = "fail"
	Info   = "info"
)

// Event is one line of a history.
type Event struct {
	Type     string `json:"type"`
	Process  string `json:"process"`
	Side     string `json:"side,omitempty"`
	Workload string `json:"workload,omitempty"`
	Name     string `json:"name,omitempty"`
	ID       int64  `json:"id"`
	Op       string `json:"op,omitempty"`
	T        int64  `json:"t"`
	Mode     string `json:"mode,omitempty"`
	Value    int64  `json:"value,omitempty"`
	Token    int64  `json:"token,omitempty"`
	Count    int64  `json:"count,omitempty"`
	Error    string `json:"error,omitempty"`
}

// Writer appends one process's events to its file. It is safe for
// concurrent use; each event is one write to the file.
type Writer struct {
	mu   sync.Mutex
	f    *os.File
	proc string
	side string
	next int64
}

// Create opens a history file for process, on side ("go" or "java").
func Create(path, process, side string) (*Writer, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, err
	}
	return &Writer{f: f, proc: process, side: side}, nil
}

// Invoke records the start of an operation and returns the operation, to
// be completed by Done. e's Type, Process, Side, ID and T are set here.
func (w *Writer) Invoke(e Event) (*Op, error) {
	w.mu.Lock()
	w.next++
	e.ID = w.next
	w.mu.Unlock()
	e.Type, e.Process, e.Side, e.T = Invoke, w.proc, w.side, time.Now().UnixNano()
	return &Op{w: w, inv: e}, w.write(e)
}

// Instant records an operation that has no duration (a lost hold): an
// invocation and its ok, both at one moment.
func (w *Writer) Instant(e Event) error {
	op, err := w.Invoke(e)
	if err != nil {
		return err
	}
	done := op.inv
	done.Type = OK
	return w.write(done)
}

func (w *Writer) write(e Event) error {
	b, err := json.Marshal(e)
	if err != nil {
		return err
	}
	b = append(b, '\n')
	w.mu.Lock()
	defer w.mu.Unlock()
	_, err = w.f.Write(b)
	return err
}

// Close closes the file.
func (w *Writer) Close() error { return w.f.Close() }

// Op is an invoked operation, waiting for its completion.
type Op struct {
	w   *Writer
	inv Event
}

// Done records the completion of the operation: typ is OK, Fail or Info;
// c carries the outcome's Mode, Value, Token, Count and Error (zero: none);
// the rest is the invocation's.
func (o *Op) Done(typ string, c Event) error {
	c.Type, c.Process, c.Side, c.ID = typ, o.inv.Process, o.inv.Side, o.inv.ID
	c.Workload, c.Name, c.Op = o.inv.Workload, o.inv.Name, o.inv.Op
	if c.Mode == "" {
		c.Mode = o.inv.Mode
	}
	c.T = time.Now().UnixNano()
	return o.w.write(c)
}

// Read reads the events of one history file, in the order written. A
// last line cut short (the process died while writing it) is dropped.
func Read(r io.Reader) ([]Event, error) {
	var out []Event
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	var pending []byte
	for sc.Scan() {
		if pending != nil {
			return nil, fmt.Errorf("history: line %d is not JSON", len(out)+1)
		}
		var e Event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			pending = append([]byte(nil), sc.Bytes()...)
			continue
		}
		out = append(out, e)
	}
	return out, sc.Err()
}
