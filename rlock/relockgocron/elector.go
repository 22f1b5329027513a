package relockgocron

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-co-op/gocron/v2"

	"github.com/relock-go/relock/rlock"
)

// campaignRetry is how long the Elector waits before campaigning again
// after a Campaign failed (Redis unreachable).
const campaignRetry = time.Second

// confirmRetry bounds the wait before the next confirmation of the term's
// lease after one that failed or found the lock gone.
const confirmRetry = 250 * time.Millisecond

// Elector is a gocron.Elector on an rlock.Election: it campaigns in the
// background from NewElector until Close, and IsLeader answers nil only
// while it leads.
//
// It leads while it holds a term of the election and the term's lease is
// known good: a confirmation in Redis (two reads every third of the lease,
// in the background: the lock's TTL, then the leader) found the term's
// owner holding the lock, and the TTL it read, from when the read was
// sent, has not run out by this process's clock, less rlock's margin (1%
// of the lease plus 2 ms). A process paused
// past its lease (GC, SIGSTOP, a frozen VM) therefore stops answering nil
// as soon as it resumes, before Redis can expire the term and elect
// another leader, whatever its goroutines do first. After a term ends it
// campaigns again.
//
// Its methods are safe for concurrent use.
type Elector struct {
	client   *rlock.Client
	election *rlock.Election
	probe    *rlock.Mutex // never locked: reads the TTL of the election's lock
	value    string

	state  atomic.Pointer[leading] // nil while not leading
	closed atomic.Bool
	// changed, when set (tests), is called at every state recorded.
	changed func()

	stop     context.CancelFunc
	done     chan struct{}
	stopOnce sync.Once
}

// leading is a term and how long its lease is known good.
type leading struct {
	term  *rlock.Term
	until time.Time // with the monotonic reading of the confirmation's send
}

var _ gocron.Elector = (*Elector)(nil)

// ElectorOption configures an Elector.
type ElectorOption func(*Elector) error

// WithValue sets the value the Elector campaigns with, which
// rlock.Election.Leader and `relock leader` report as the leader's (by
// default "<hostname>:<pid>").
func WithValue(value string) ElectorOption {
	return func(e *Elector) error {
		e.value = value
		return nil
	}
}

// NewElector returns an Elector that campaigns, from now until Close, in
// the election called name on client (see rlock.Election: the name is its
// lock's Redis key). A name rlock refuses is an error wrapping
// rlock.ErrInvalidName, a closed client one wrapping rlock.ErrClosed.
// Close the Elector before the client; closing the client first ends the
// Elector's term and campaign too.
func NewElector(client *rlock.Client, name string, opts ...ElectorOption) (*Elector, error) {
	if client == nil {
		return nil, errors.New("relockgocron: NewElector: nil *rlock.Client")
	}
	if err := checkName(client, name); err != nil {
		return nil, fmt.Errorf("relockgocron: NewElector: %w", err)
	}
	host, _ := os.Hostname()
	e := &Elector{client: client, value: fmt.Sprintf("%s:%d", host, os.Getpid()), done: make(chan struct{})}
	for _, opt := range opts {
		if opt == nil {
			return nil, errors.New("relockgocron: NewElector: nil ElectorOption")
		}
		if err := opt(e); err != nil {
			return nil, fmt.Errorf("relockgocron: NewElector: %w", err)
		}
	}
	e.election, e.probe = client.NewElection(name), client.NewMutex(name)
	ctx, stop := context.WithCancel(context.Background())
	e.stop = stop
	go e.run(ctx)
	return e, nil
}

// IsLeader returns nil while this Elector leads (see Elector), without a
// round trip; otherwise an error wrapping ErrNotLeader (and rlock.ErrLost
// when its term was lost), or rlock.ErrClosed after Close. ctx is unused.
func (e *Elector) IsLeader(context.Context) error {
	if e.closed.Load() {
		return fmt.Errorf("relockgocron: elector %s: %w", e.election.Name(), rlock.ErrClosed)
	}
	s := e.state.Load()
	switch {
	case s == nil:
		return fmt.Errorf("relockgocron: elector %s: %w", e.election.Name(), ErrNotLeader)
	case isClosed(s.term.Lost()):
		return fmt.Errorf("relockgocron: elector %s: %w: term %d: %w", e.election.Name(), ErrNotLeader, s.term.Token(), rlock.ErrLost)
	case !time.Now().Before(s.until):
		return fmt.Errorf("relockgocron: elector %s: %w: the lease of term %d is not known good", e.election.Name(), ErrNotLeader, s.term.Token())
	}
	return nil
}

// Term returns the term this Elector leads in, when IsLeader would
// answer nil, else nil. Pass its Token with the writes a job makes, so
// that storage refuses those of a leader that was deposed while it ran
// (docs/election.md), and run long jobs under Term.Context.
func (e *Elector) Term() *rlock.Term {
	if e.IsLeader(context.Background()) != nil {
		return nil
	}
	if s := e.state.Load(); s != nil {
		return s.term
	}
	return nil
}

// Close stops the Elector: IsLeader answers rlock.ErrClosed from now on,
// the campaign is left or the term resigned (so that another candidate
// leads at once), and Close returns when the Elector's goroutine has
// ended. It is idempotent and returns nil.
func (e *Elector) Close() error {
	e.stopOnce.Do(func() {
		e.closed.Store(true)
		e.stop()
	})
	<-e.done
	return nil
}

// run campaigns until ctx ends or the Client is closed, leading each term
// it wins until the term ends.
func (e *Elector) run(ctx context.Context) {
	defer close(e.done)
	for {
		term, err := e.election.Campaign(ctx, e.value)
		switch {
		case ctx.Err() != nil || errors.Is(err, rlock.ErrClosed):
			if term != nil {
				_ = term.Resign(context.Background())
			}
			return
		case err != nil:
			if !sleep(ctx, campaignRetry) {
				return
			}
			continue
		}
		e.lead(ctx, term)
	}
}

// lead keeps term's lease confirmed until the term ends or ctx does (then
// it resigns).
func (e *Elector) lead(ctx context.Context, term *rlock.Term) {
	defer e.set(nil)
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			e.set(nil)
			_ = term.Resign(context.Background())
			return
		case <-term.Lost():
			return
		case <-timer.C:
		}
		timer.Reset(e.confirm(ctx, term))
	}
}

// confirm reads the term's lock in Redis and, when the term's owner holds
// it, records the lease it read as known good from when the read was
// sent; it returns when to confirm again. The TTL is read first: an
// owner id never holds a lock again once it lost it, so the term's owner,
// found holding the lock after, held it when the TTL was read.
func (e *Elector) confirm(ctx context.Context, term *rlock.Term) time.Duration {
	sent := time.Now()
	ttl, err := e.probe.TTL(ctx)
	if err == nil {
		var l rlock.Leader
		if l, err = e.election.Leader(ctx); err == nil && (l.Owner != term.Owner() || ttl <= 0) {
			err = rlock.ErrNotHeld
		}
	}
	switch {
	case errors.Is(err, rlock.ErrNotHeld) || errors.Is(err, rlock.ErrNoLeader):
		// Gone: the watchdog's next renewal ends the term (Lost).
		e.set(nil)
		return confirmRetry
	case err != nil:
		return confirmRetry
	}
	e.set(&leading{term: term, until: sent.Add(ttl - ttl/100 - 2*time.Millisecond)})
	return ttl / 3
}

// set records the state s (nil: not leading).
func (e *Elector) set(s *leading) {
	e.state.Store(s)
	if e.changed != nil {
		e.changed()
	}
}

// isClosed reports whether ch is closed.
func isClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// sleep waits d, or less if ctx ends first; it reports whether d elapsed.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
