package relockgocron

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/relock-go/relock/rlock"
)

func TestNewElectorRefusesBadArguments(t *testing.T) {
	client, _ := newClient(t)
	if _, err := NewElector(client, ""); !errors.Is(err, rlock.ErrInvalidName) {
		t.Errorf("NewElector(\"\"): %v, want ErrInvalidName", err)
	}
	if _, err := NewElector(client, "jobs{"); !errors.Is(err, rlock.ErrInvalidName) {
		t.Errorf("NewElector(\"jobs{\"): %v, want ErrInvalidName", err)
	}
	if _, err := NewElector(client, "jobs", nil); err == nil {
		t.Error("NewElector(nil option): no error")
	}
	if _, err := NewElector(nil, "jobs"); err == nil {
		t.Error("NewElector(nil client): no error")
	}
	if err := client.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := NewElector(client, "jobs"); !errors.Is(err, rlock.ErrClosed) {
		t.Errorf("NewElector on a closed Client: %v, want ErrClosed", err)
	}
}

// leads waits until e leads in a term whose token is above after, and
// returns the term.
func leads(t *testing.T, e *Elector, changed <-chan struct{}, after int64) *rlock.Term {
	t.Helper()
	for {
		if term := e.Term(); term != nil && term.Token() > after {
			return term
		}
		within(t, changed, "the Elector to lead")
	}
}

// newElector returns an Elector of "jobs" on client, closed when the test
// ends, and a channel that hears of each state it records.
func newElector(t *testing.T, client *rlock.Client, value string) (*Elector, chan struct{}) {
	t.Helper()
	signal, changed := signals()
	e, err := NewElector(client, "jobs", WithValue(value), withChanged(signal))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = e.Close() })
	return e, changed
}

func TestElectorLeadsAloneAndHandsOverOnClose(t *testing.T) {
	client, _ := newClient(t)
	ctx := context.Background()
	a, aChanged := newElector(t, client, "a")
	term := leads(t, a, aChanged, 0)
	if err := a.IsLeader(ctx); err != nil {
		t.Fatalf("a.IsLeader: %v", err)
	}
	if term.Value() != "a" {
		t.Errorf("a's term has value %q, want a", term.Value())
	}
	b, bChanged := newElector(t, client, "b")
	if err := b.IsLeader(ctx); !errors.Is(err, ErrNotLeader) {
		t.Errorf("b.IsLeader while a leads: %v, want ErrNotLeader", err)
	}
	if b.Term() != nil {
		t.Error("b.Term() is not nil while a leads")
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if err := a.IsLeader(ctx); !errors.Is(err, rlock.ErrClosed) {
		t.Errorf("a.IsLeader after Close: %v, want ErrClosed", err)
	}
	bt := leads(t, b, bChanged, term.Token())
	if err := b.IsLeader(ctx); err != nil {
		t.Errorf("b.IsLeader once a closed: %v", err)
	}
	if bt.Value() != "b" {
		t.Errorf("b's term has value %q, want b", bt.Value())
	}
}

// shortLease is renewed every half second: a term is lost soon after its
// lock is, and a loaded machine keeps it.
const shortLease = 1500 * time.Millisecond

func TestElectorCampaignsAgainAfterALoss(t *testing.T) {
	client, mr := newClient(t, rlock.WithWatchdogTimeout(shortLease))
	e, changed := newElector(t, client, "a")
	first := leads(t, e, changed, 0)
	mr.Del("jobs") // the term's lock: the next renewal finds it gone
	within(t, first.Lost(), "the term to be lost")
	leads(t, e, changed, first.Token())
}

func TestElectorDoesNotLeadOnceItsTermIsLost(t *testing.T) {
	client, mr := newClient(t, rlock.WithWatchdogTimeout(shortLease))
	e, changed := newElector(t, client, "a")
	first := leads(t, e, changed, 0)
	// Another owner takes the lock (it never expires in miniredis): the
	// next renewal finds the term's owner gone, and the campaign waits.
	mr.HSet("jobs", "another:1", "1")
	mr.HDel("jobs", first.Owner())
	within(t, first.Lost(), "the term to be lost")
	if err := e.IsLeader(context.Background()); !errors.Is(err, ErrNotLeader) {
		t.Errorf("IsLeader once the term was lost: %v, want ErrNotLeader", err)
	}
	if term := e.Term(); term != nil {
		t.Errorf("Term() once the term was lost: token %d, want nil", term.Token())
	}
}

// A term whose lease was not confirmed good until now is not led: what a
// process paused past its lease finds on resuming, before its goroutines
// have run.
func TestElectorDoesNotLeadOnALeaseNotKnownGood(t *testing.T) {
	client, _ := newClient(t) // the lease, 30 s, is confirmed every 10 s
	e, changed := newElector(t, client, "a")
	term := leads(t, e, changed, 0)
	e.state.Store(&leading{term: term, until: time.Now()})
	if err := e.IsLeader(context.Background()); !errors.Is(err, ErrNotLeader) {
		t.Errorf("IsLeader on a lease known good until now: %v, want ErrNotLeader", err)
	}
	if e.Term() != nil {
		t.Error("Term() on a lease known good until now is not nil")
	}
	if isClosed(term.Lost()) {
		t.Error("the term was lost: the test shows nothing")
	}
}

func TestElectorEndsWithItsClient(t *testing.T) {
	client, _ := newClient(t)
	e, changed := newElector(t, client, "a")
	leads(t, e, changed, 0)
	if err := client.Close(); err != nil {
		t.Fatal(err)
	}
	within(t, e.done, "the Elector's goroutine to end")
	if err := e.IsLeader(context.Background()); !errors.Is(err, ErrNotLeader) {
		t.Errorf("IsLeader once the Client closed: %v, want ErrNotLeader", err)
	}
}
