package interop

import (
	"context"
	"testing"
	"time"

	"github.com/relock-go/relock/rlock"
	"github.com/relock-go/relock/test/testkit"
)

// Each side reads the rate the other set, and draws from the same
// permits: Java's setRate is Go's Rate, Go's SetRate Java's getConfig, and
// what Go takes Java's availablePermits leaves out, and the reverse.
func TestRateLimiterSetBySideReadByTheOther(t *testing.T) {
	t.Parallel()
	rdb, c := setup(t)
	ctx := testkit.Ctx(t, 2*time.Minute)
	const name = "rate:wire"
	l := c.NewRateLimiter(name)
	java := StartRateWorker(t, rdb.Options().Addr)

	java.Send(t, "set", "--name", name, "--rate", "7", "--interval", "60000", "--type", "per_client")
	java.Await(t, "set", time.Minute)
	if r, err := l.Rate(ctx); r != (rlock.Rate{Limit: 7, Interval: time.Minute, PerClient: true}) || err != nil {
		t.Fatalf("Go's Rate after Java's setRate(PER_CLIENT, 7, 1 min) = %+v, %v", r, err)
	}
	if ok, err := l.TrySetRate(ctx, rlock.Rate{Limit: 1, Interval: time.Second}); ok || err != nil {
		t.Fatalf("Go's TrySetRate over Java's rate = %v, %v; want false", ok, err)
	}

	want := rlock.Rate{Limit: 5, Interval: time.Minute, KeepAlive: time.Hour}
	if err := l.SetRate(ctx, want); err != nil {
		t.Fatal(err)
	}
	if ok, err := l.AllowN(ctx, 2); !ok || err != nil {
		t.Fatalf("AllowN(2) = %v, %v", ok, err)
	}
	java.Send(t, "config", "--name", name)
	cfg := java.Await(t, "config", time.Minute)
	if cfg.Float("rate") != 5 || cfg.Float("interval") != 60000 || cfg["type"] != "OVERALL" || cfg.Float("available") != 3 {
		t.Fatalf("Java's getConfig and availablePermits after Go's SetRate(5 a minute) and AllowN(2): %v", cfg)
	}
	if ttl := rdb.PTTL(ctx, name).Val(); ttl < 59*time.Minute {
		t.Fatalf("the config's TTL after Go's KeepAlive of an hour = %v", ttl)
	}

	// Java takes what is left, three at most, in ten tries.
	java.Send(t, "run", "--name", name, "--threads", "1", "--duration", "60000", "--how", "try", "--tries", "10")
	if done := java.Await(t, "done", time.Minute); done.Float("grants") != 3 || done.Float("attempts") != 10 {
		t.Fatalf("Java's tryAcquire, ten tries after Go took 2 of 5: %v; want 3 grants", done)
	}
	if ok, err := l.Allow(ctx); ok || err != nil {
		t.Fatalf("Go's Allow after Java took the rest = %v, %v; want false", ok, err)
	}
	if n, err := l.Available(ctx); n != 0 || err != nil {
		t.Fatalf("Available = %d, %v; want 0", n, err)
	}
}

// permitCall is when a call that was granted began and returned, epoch ms of
// the host clock: its permits were stamped between.
type permitCall struct{ from, to float64 }

// side is what one side asked and was granted.
type side struct {
	tries  int
	grants []permitCall
	tick   int // Java's: its Redisson client's timer tick, ms (-1: unknown)
}

// goSide runs workers goroutines, each calling take then sleeping pace,
// for d.
func goSide(ctx context.Context, t *testing.T, workers int, pace, d time.Duration, take func(context.Context) (bool, error)) side {
	t.Helper()
	out := make(chan side, workers)
	end := time.Now().Add(d)
	for range workers {
		go func() {
			var s side
			defer func() { out <- s }()
			for time.Now().Before(end) {
				s.tries++
				from := time.Now()
				ok, err := take(ctx)
				if err != nil {
					t.Error(err)
					return
				}
				if to := time.Now(); ok && to.Before(end) {
					s.grants = append(s.grants, permitCall{Millis(from), Millis(to)})
				}
				time.Sleep(pace)
			}
		}()
	}
	var all side
	for range workers {
		s := <-out
		all.tries += s.tries
		all.grants = append(all.grants, s.grants...)
	}
	return all
}

// javaSide reads a RateWorker run's grants, once it is done.
func javaSide(t *testing.T, p *Peer) side {
	t.Helper()
	var s side
	for {
		ev := p.Next(t, 2*time.Minute)
		switch ev["event"] {
		case "grant":
			s.grants = append(s.grants, permitCall{ev.Float("t0"), ev.Float("t")})
		case "done":
			if errs, _ := ev["errors"].([]any); len(errs) > 0 {
				t.Fatalf("Java's threads: %v", errs)
			}
			s.tries = int(ev.Float("attempts"))
			s.tick = int(ev.Float("tick"))
			return s
		}
	}
}
