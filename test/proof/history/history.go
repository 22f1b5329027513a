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

// Event is one line of a history (the package doc gives each field's
// meaning).
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
	Fault    string `json:"fault,omitempty"`
	Target   string `json:"target,omitempty"`
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

// Mark records an instant (Writer.Instant) of op that belongs to this
// operation: on its object, with this operation's id as its value.
func (o *Op) Mark(op string) error {
	return o.w.Instant(Event{Workload: o.inv.Workload, Name: o.inv.Name, Op: op, Value: o.inv.ID})
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
	err := Scan(r, func(e Event) error {
		out = append(out, e)
		return nil
	})
	return out, err
}

// Scan calls fn with each event of one history file, in the order written,
// and stops at fn's first error. A last line cut short (the process died
// while writing it) is dropped; any other line that is not an event is an
// error naming its line.
func Scan(r io.Reader, fn func(Event) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	line, bad := 0, 0
	for sc.Scan() {
		line++
		if bad != 0 {
			return fmt.Errorf("history: line %d is not an event", bad)
		}
		var e Event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			bad = line
			continue
		}
		if err := fn(e); err != nil {
			return err
		}
	}
	return sc.Err()
}
