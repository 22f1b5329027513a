package fleet

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"
)

// Event is a line an instance printed (see Recorder).
type Event struct {
	Instance int
	Kind     string // start, end, leader
	N        int64  // the run's number in its instance; 1 for a nil IsLeader
	At       time.Time
}

// Fleet is instances of one program running in processes of their own.
type Fleet struct {
	procs  []*exec.Cmd
	stderr []*bytes.Buffer
	read   sync.WaitGroup

	mu      sync.Mutex
	events  []Event
	killed  map[int]time.Time
	changed chan struct{} // closed and replaced at every event
}

// Start runs n instances of bin, the i-th with args(i) and env added to
// this process's environment, reading their events from their standard
// output.
func Start(bin string, env []string, n int, args func(i int) []string) (*Fleet, error) {
	f := &Fleet{killed: make(map[int]time.Time), changed: make(chan struct{})}
	for i := range n {
		cmd := exec.Command(bin, args(i)...)
		cmd.Env = append(os.Environ(), env...)
		out, err := cmd.StdoutPipe()
		if err != nil {
			f.Stop()
			return nil, err
		}
		stderr := new(bytes.Buffer)
		cmd.Stderr = stderr
		if err := cmd.Start(); err != nil {
			f.Stop()
			return nil, fmt.Errorf("start %s: %w", bin, err)
		}
		f.procs, f.stderr = append(f.procs, cmd), append(f.stderr, stderr)
		f.read.Add(1)
		go func() {
			defer f.read.Done()
			sc := bufio.NewScanner(out)
			for sc.Scan() {
				var e Event
				var ns int64
				if _, err := fmt.Sscan(sc.Text(), &e.Kind, &e.N, &ns); err != nil {
					continue
				}
				e.Instance, e.At = i, time.Unix(0, ns)
				f.add(e)
			}
		}()
	}
	return f, nil
}

func (f *Fleet) add(e Event) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.events = append(f.events, e)
	close(f.changed)
	f.changed = make(chan struct{})
}

// Events returns the events printed so far.
func (f *Fleet) Events() []Event {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]Event(nil), f.events...)
}

// Await waits until an event for which ok holds has been printed (it may
// have been already), and returns it.
func (f *Fleet) Await(ctx context.Context, ok func(Event) bool) (Event, error) {
	seen := 0
	for {
		f.mu.Lock()
		events, changed := f.events[seen:], f.changed
		seen = len(f.events)
		f.mu.Unlock()
		for _, e := range events {
			if ok(e) {
				return e, nil
			}
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return Event{}, ctx.Err()
		}
	}
}

// Signal sends sig to instance i; SIGKILL is recorded as its end.
func (f *Fleet) Signal(i int, sig syscall.Signal) error {
	if sig == syscall.SIGKILL {
		f.mu.Lock()
		f.killed[i] = time.Now()
		f.mu.Unlock()
	}
	return f.procs[i].Process.Signal(sig)
}

// Killed returns when each killed instance was killed.
func (f *Fleet) Killed() map[int]time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	k := make(map[int]time.Time, len(f.killed))
	for i, at := range f.killed {
		k[i] = at
	}
	return k
}

// Wait waits for every instance to exit, and returns an error saying how
// the ones that were not killed failed (with what they printed on their
// standard error).
func (f *Fleet) Wait() error {
	f.read.Wait()
	var errs []error
	for i, cmd := range f.procs {
		err := cmd.Wait()
		if _, killed := f.Killed()[i]; err != nil && !killed {
			errs = append(errs, fmt.Errorf("instance %d: %w\n%s", i, err, f.stderr[i]))
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("%v", errs)
	}
	return nil
}

// Stop kills every instance still running and waits for them.
func (f *Fleet) Stop() {
	for _, cmd := range f.procs {
		_ = cmd.Process.Signal(syscall.SIGCONT)
		_ = cmd.Process.Kill()
	}
	f.read.Wait()
	for _, cmd := range f.procs {
		_ = cmd.Wait()
	}
}

// Stderr is what instance i printed on its standard error so far; read it
// after Wait or Stop.
func (f *Fleet) Stderr(i int) string { return f.stderr[i].String() }
