package relockgocron

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/rlock"
	"github.com/relock-go/relock/test/testkit"
	"github.com/relock-go/relock/test/testkit/lockkit"
)

func TestNewLockerRefusesBadArguments(t *testing.T) {
	client, _ := newClient(t)
	for _, tc := range []struct {
		name string
		opts []LockerOption
		want error
	}{
		{"prefix without hash tag", []LockerOption{WithPrefix("{jobs:")}, rlock.ErrInvalidName},
		{"zero splay", []LockerOption{WithSplay(0)}, rlock.ErrInvalidDuration},
		{"negative lock timeout", []LockerOption{WithLockTimeout(-time.Second)}, rlock.ErrInvalidDuration},
	} {
		if _, err := NewLocker(client, tc.opts...); !errors.Is(err, tc.want) {
			t.Errorf("%s: NewLocker: %v, want %v", tc.name, err, tc.want)
		}
	}
	if _, err := NewLocker(client, WithOnLost(nil)); err == nil {
		t.Error("NewLocker(WithOnLost(nil)): no error")
	}
	if _, err := NewLocker(client, nil); err == nil {
		t.Error("NewLocker(nil option): no error")
	}
	if _, err := NewLocker(nil); err == nil {
		t.Error("NewLocker(nil client): no error")
	}
	if _, err := NewLocker(client, WithPrefix("{jobs}:")); err != nil {
		t.Errorf("NewLocker with a hash-tagged prefix: %v", err)
	}
}

func TestLockRefusesAJobNameRlockRefuses(t *testing.T) {
	client, _ := newClient(t)
	l, err := NewLocker(client, WithPrefix(""))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.Lock(context.Background(), ""); !errors.Is(err, rlock.ErrInvalidName) {
		t.Errorf("Lock of an empty job name with no prefix: %v, want ErrInvalidName", err)
	}
	if _, err := l.Lock(context.Background(), "a{b"); !errors.Is(err, rlock.ErrInvalidName) {
		t.Errorf("Lock(\"a{b\"): %v, want ErrInvalidName", err)
	}
}

func TestLockIsExclusiveAndClaimsItsTickPastUnlock(t *testing.T) {
	client, mr := newClient(t)
	l, err := NewLocker(client, WithSplay(time.Second))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	run, err := l.Lock(ctx, "report")
	if err != nil {
		t.Fatalf("Lock: %v", err)
	}
	if _, err := l.Lock(ctx, "report"); !errors.Is(err, ErrRunning) {
		t.Errorf("Lock while a run holds the lock: %v, want ErrRunning", err)
	}
	if _, err := l.Lock(ctx, "other"); err != nil {
		t.Errorf("Lock of another job: %v", err)
	}
	if err := run.Unlock(ctx); err != nil {
		t.Fatalf("Unlock: %v", err)
	}
	if err := run.Unlock(ctx); !errors.Is(err, rlock.ErrNotHeld) {
		t.Errorf("second Unlock: %v, want ErrNotHeld", err)
	}
	if _, err := l.Lock(ctx, "report"); !errors.Is(err, ErrTickClaimed) {
		t.Errorf("Lock right after the run ended: %v, want ErrTickClaimed", err)
	}
	if mr.Exists("gocron:report") {
		t.Error("the refused Lock left the job's lock held")
	}
	mr.FastForward(time.Second)
	run, err = l.Lock(ctx, "report")
	if err != nil {
		t.Fatalf("Lock once the claim expired: %v", err)
	}
	if err := run.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	mr.FastForward(time.Second)
	if keys := mr.Keys(); len(keys) != 1 || keys[0] != "gocron:other" {
		t.Errorf("keys left in Redis: %v, want only gocron:other (still held)", keys)
	}
}

func TestClaimLastsTheSplayButAtMostHalfTheGapBetweenTicks(t *testing.T) {
	client, _ := newClient(t)
	l, err := NewLocker(client, WithSplay(400*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	for _, step := range []struct {
		at   time.Duration
		want time.Duration
	}{
		{0, 400 * time.Millisecond},                                  // no gap known: the splay
		{time.Second, 400 * time.Millisecond},                        // half the gap is more
		{time.Second + 500*time.Millisecond, 250 * time.Millisecond}, // half the gap
		{time.Second + 500*time.Millisecond, time.Millisecond},       // the least
	} {
		if got := l.claim("j", t0.Add(step.at)); got != step.want {
			t.Errorf("claim at %v: %v, want %v", step.at, got, step.want)
		}
	}
}

func TestLostRunIsReportedAndItsContextEnds(t *testing.T) {
	client, mr := newClient(t, rlock.WithWatchdogTimeout(rlock.MinWatchdogTimeout))
	signal, lost := signals()
	var cause error
	l, err := NewLocker(client, WithOnLost(func(job string, err error) {
		if job == "report" {
			cause = err
			signal()
		}
	}))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if c, _ := l.Context(ctx, "report"); !errors.Is(context.Cause(c), rlock.ErrNotHeld) {
		t.Errorf("Context with no run: cause %v, want ErrNotHeld", context.Cause(c))
	}
	run, err := l.Lock(ctx, "report")
	if err != nil {
		t.Fatal(err)
	}
	work, cancel := l.Context(ctx, "report")
	defer cancel()
	if work.Err() != nil {
		t.Fatalf("the run's context ended while it holds its lock: %v", context.Cause(work))
	}
	mr.Del("gocron:report") // the next renewal finds it gone
	within(t, lost, "the loss reported")
	if !errors.Is(cause, rlock.ErrLost) {
		t.Errorf("reported cause %v, want ErrLost", cause)
	}
	within(t, work.Done(), "the run's context to end")
	if !errors.Is(context.Cause(work), rlock.ErrLost) {
		t.Errorf("the run's context's cause: %v, want ErrLost", context.Cause(work))
	}
	if err := run.Unlock(ctx); !errors.Is(err, rlock.ErrLost) {
		t.Errorf("Unlock of the lost run: %v, want ErrLost", err)
	}
}

func TestLockFailsWithTheContextOrAClosedClient(t *testing.T) {
	client, _ := newClient(t)
	l, err := NewLocker(client)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := l.Lock(ctx, "report"); !errors.Is(err, context.Canceled) {
		t.Errorf("Lock with an ended ctx: %v, want context.Canceled", err)
	}
	if err := client.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Lock(context.Background(), "report"); !errors.Is(err, rlock.ErrClosed) {
		t.Errorf("Lock on a closed Client: %v, want ErrClosed", err)
	}
}

// Lock gives up when WithLockTimeout elapses though Redis has not
// answered (rlock waits for the answer, until go-redis's read timeout).
func TestLockGivesUpAfterTheLockTimeout(t *testing.T) {
	mr := miniredis.RunT(t)
	p := testkit.StartProxy(t, mr.Addr())
	// The abandoned acquisition ends soon after the test (no retries).
	rdb := redis.NewClient(&redis.Options{Addr: p.Addr(), ReadTimeout: 500 * time.Millisecond, MaxRetries: -1})
	t.Cleanup(func() { _ = rdb.Close() })
	client := lockkit.NewClient(t, rdb)
	l, err := NewLocker(client, WithLockTimeout(100*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	p.BlackHole(true)
	defer p.BlackHole(false)
	if _, err := l.Lock(context.Background(), "report"); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Lock with Redis silent: %v, want context.DeadlineExceeded", err)
	}
}
