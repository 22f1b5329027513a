package chaos

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/relock-go/relock/rlock"
	"github.com/relock-go/relock/test/testkit"
	"github.com/relock-go/relock/test/testkit/lockkit"
)

// startCandidate runs the holder command as a candidate in the election
// name with lease, until it prints its term: it returns the process and
// the term's owner and token. The process is killed when the test ends, if
// the test did not kill it.
func startCandidate(t *testing.T, name string, lease time.Duration) (p *process, owner string, token int64) {
	t.Helper()
	p = startProcess(t, holderPath(t), "-addr", srv.Addr, "-mode", "campaign", "-name", name, "-lease", lease.String(), "-value", "process")
	f := strings.Fields(p.next(t))
	if len(f) != 3 || f[0] != "owner" {
		t.Fatalf("candidate printed %q, want its owner and token", f)
	}
	token, err := strconv.ParseInt(f[2], 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return p, f[1], token
}

// TestKilledLeaderIsReplacedWithinItsLease kills a leader's process with
// SIGKILL while two candidates wait: the first of them is elected within
// the lease plus one renewal period, with a greater token, and the
// election's log records the dead term's end before the new one.
func TestKilledLeaderIsReplacedWithinItsLease(t *testing.T) {
	fresh(t)
	const lease = time.Second
	const name = "killed-leader"
	proc, owner, token := startCandidate(t, name, lease)
	ctx := testkit.Ctx(t, within)
	type elected struct {
		term *rlock.Term
		at   time.Time
		err  error
	}
	results := make(chan elected, 2)
	for i := range 2 {
		e := lockkit.NewClient(t, direct(t), rlock.WithWatchdogTimeout(lease)).NewElection(name)
		go func() {
			term, err := e.Campaign(ctx, fmt.Sprintf("go-%d", i))
			results <- elected{term, time.Now(), err}
		}()
	}
	watcher := lockkit.NewClient(t, direct(t)).NewElection(name)
	testkit.Eventually(t, within, "both candidates queued", func() bool {
		info, err := lockkit.NewClient(t, direct(t)).Inspect(ctx, name)
		return err == nil && len(info.Queue) == 2
	})
	if l, err := watcher.Leader(ctx); err != nil || l.Owner != owner || l.Token != token {
		t.Fatalf("Leader = %+v, %v; want the process's term %s/%d", l, err, owner, token)
	}
	observed := watcher.Observe(ctx)
	if l := <-observed; l.Token != token {
		t.Fatalf("observer's first delivery %+v, want the process's term %d", l, token)
	}

	proc.kill(t)
	killed := time.Now()
	var next elected
	select {
	case next = <-results:
	case <-time.After(lease + within):
		t.Fatalf("no candidate elected %v after the leader was killed", time.Since(killed))
	}
	if next.err != nil {
		t.Fatal(next.err)
	}
	// The lock expires at most a lease after the dead leader's last
	// renewal; the head candidate sleeps until then.
	if d := next.at.Sub(killed); d > lease+lease/3+timerSlack {
		t.Fatalf("next leader elected %v after the kill, want within the lease and a renewal period (%v)", d, lease+lease/3)
	}
	if next.term.Token() <= token {
		t.Fatalf("next term's token %d, not above the dead leader's %d", next.term.Token(), token)
	}
	if l, err := watcher.Leader(ctx); err != nil || l.Token != next.term.Token() {
		t.Fatalf("Leader = %+v, %v; want the new term", l, err)
	}
	// The observer saw the dead term end, then the new one, in order.
	for _, want := range []int64{0, next.term.Token()} {
		select {
		case l := <-observed:
			if l.Token != want {
				t.Fatalf("observer delivered %+v, want token %d", l, want)
			}
		case <-time.After(within):
			t.Fatalf("observer delivered nothing within %v, want token %d", within, want)
		}
	}
	select {
	case r := <-results:
		t.Fatalf("second candidate elected too (%v, %v) while the first leads", r.term, r.err)
	default:
	}
	if err := next.term.Resign(ctx); err != nil {
		t.Fatal(err)
	}
	last := <-results
	if last.err != nil || last.term.Token() <= next.term.Token() {
		t.Fatalf("last candidate: %v, %v", last.term, last.err)
	}
	if err := last.term.Resign(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestPartitionedLeaderLosesItsTermBeforeTheNextBegins runs three
// candidates that lead in turn, each writing its token to a fenced store
// while its term lasts; one reaches Redis through a proxy that the test
// black-holes several times while it leads. The history proves at most
// one valid term at a time, growing tokens and no write of a stale term
// accepted while it thought it led; each cut leader is followed within
// the lease plus a renewal period.
func TestPartitionedLeaderLosesItsTermBeforeTheNextBegins(t *testing.T) {
	fresh(t)
	const lease = 600 * time.Millisecond
	const name = "partitioned-leader"
	ctx, stop := context.WithCancel(testkit.Ctx(t, within))
	defer stop()
	p := testkit.StartProxy(t, srv.Addr)
	var h History
	var store Store
	opts := []rlock.Option{rlock.WithWatchdogTimeout(lease)}
	cut := lockkit.NewClient(t, proxied(t, p, 0), opts...).NewElection(name)
	elections := []*rlock.Election{cut, lockkit.NewClient(t, direct(t), opts...).NewElection(name), lockkit.NewClient(t, direct(t), opts...).NewElection(name)}
	var mu sync.Mutex
	var electedAt []time.Time // when each term of the direct candidates began
	cutLeading := make(chan *rlock.Term, 1)
	var wg sync.WaitGroup
	for i, e := range elections {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				term, err := e.Campaign(ctx, strconv.Itoa(i))
				if err != nil {
					testkit.Pause(ctx, 20*time.Millisecond)
					continue
				}
				if i == 0 {
					select {
					case cutLeading <- term:
					default:
					}
				} else {
					mu.Lock()
					electedAt = append(electedAt, time.Now())
					mu.Unlock()
				}
				x := h.Begin(name, term.Owner(), term.Token(), term.Lost(), &store)
				// The proxied candidate leads until the test cuts it off.
				steps := 20
				if i == 0 {
					steps = 2000
				}
				for ; steps > 0 && x.Step(); steps-- {
					time.Sleep(5 * time.Millisecond)
				}
				x.Stop()
				rctx, cancel := context.WithTimeout(context.Background(), within)
				x.Finish(term.Resign(rctx))
				cancel()
			}
		}()
	}

	const cuts = 3
	for c := range cuts {
		var term *rlock.Term
		select {
		case term = <-cutLeading:
		case <-time.After(within):
			t.Fatalf("cut %d: the proxied candidate was not elected within %v", c, within)
		}
		p.BlackHole(true)
		at := time.Now()
		lostWithin(t, term.Lost(), lease+within, "partitioned leader")
		var next time.Time
		testkit.Eventually(t, lease+within, "another leader after the cut", func() bool {
			mu.Lock()
			defer mu.Unlock()
			if n := len(electedAt); n > 0 && electedAt[n-1].After(at) {
				next = electedAt[n-1]
				return true
			}
			return false
		})
		if d := next.Sub(at); d > lease+lease/3+timerSlack {
			t.Errorf("cut %d: next leader elected %v after the cut, want within the lease and a renewal period (%v)", c, d, lease+lease/3)
		}
		p.BlackHole(false)
	}
	stop()
	wg.Wait()

	r := h.Check()
	t.Logf("%s", r)
	if r.Violations() != 0 {
		t.Fatalf("violations: %v", r.Examples)
	}
	if r.Lost < cuts {
		t.Fatalf("%d terms lost, want at least the %d cut ones", r.Lost, cuts)
	}
}
