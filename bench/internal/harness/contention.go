package harness

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/bench/internal/redisstats"
	"github.com/relock-go/relock/bench/internal/strategy"
)

// Contention describes one run on a hot lock: Goroutines goroutines spread
// round-robin over Clients clients (each its own go-redis client and
// strategy backend, as separate processes would be), each holding the lock
// for Hold and locking again right after it unlocks.
type Contention struct {
	Addr       string
	Strategy   strategy.Strategy
	Goroutines int
	Clients    int
	Hold       time.Duration
	// Warmup runs before the measured Duration; it is not counted.
	Warmup   time.Duration
	Duration time.Duration
	// RTT is the PING round trip that the floor is computed with.
	RTT time.Duration
}

// ContentionResult is what one Contention run measured inside its window.
type ContentionResult struct {
	Strategy   string  `json:"strategy"`
	Family     string  `json:"family"`
	Goroutines int     `json:"goroutines"`
	Clients    int     `json:"clients"`
	HoldMs     float64 `json:"hold_ms"`
	Seconds    float64 `json:"seconds"`

	Acquisitions int64   `json:"acquisitions"`
	PerSecond    float64 `json:"acquisitions_per_second"`
	// FloorShare is PerSecond / (1 / (Hold + RTT)).
	FloorShare float64 `json:"share_of_floor"`
	// HoldMean is the measured critical section (see holdFor): a sleep
	// wakes a little late, more on a busy machine.
	HoldMeanMs float64 `json:"hold_mean_ms"`
	// EffectiveShare is PerSecond / (1 / (HoldMean + RTT)): the floor with
	// the critical section actually held.
	EffectiveShare float64 `json:"share_of_effective_floor"`

	// Handoff is from the releaser's Unlock call to the next Lock return;
	// HandoffRTT expresses its quantiles in PING round trips.
	Handoff    Quantiles `json:"handoff"`
	HandoffRTT Quantiles `json:"handoff_in_rtt"`
	// HandoffFromReturnRTT is the hand-off from the releaser's Unlock
	// returning to the next Lock return (negative when the next holder
	// got the lock before the releaser heard its Unlock's reply), in PING
	// round trips.
	HandoffFromReturnRTT Quantiles `json:"handoff_from_unlock_return_in_rtt"`
	// Wait includes the waits cut off by the end of the run (WaitsCut of them).
	Wait     Quantiles `json:"wait"`
	WaitsCut int       `json:"waits_cut"`
	// Starved goroutines made no acquisition in the window.
	Starved int `json:"starved"`
	// ClientShares is each client's share of the acquisitions.
	ClientShares []float64 `json:"client_shares"`
	// Rewins is the share of acquisitions won by the goroutine that
	// released last.
	Rewins float64 `json:"rewin_share"`
	// Overtakes is the share of acquisitions granted while another
	// goroutine had been waiting 2 ms longer (out-of-order grants).
	Overtakes      float64          `json:"overtake_share"`
	OvertakeGrants int64            `json:"overtake_grants"`
	ClientCmdsPer  float64          `json:"client_commands_per_acquisition"`
	SubscribesPer  float64          `json:"subscribe_commands_per_acquisition"`
	RoundTripsPer  float64          `json:"client_round_trips_per_acquisition"`
	ServerCmdsPer  float64          `json:"server_commands_per_acquisition"`
	ServerCalls    map[string]int64 `json:"server_calls"`
	Violations     int64            `json:"violations"`
	Errors         int64            `json:"errors"`
	FirstError     string           `json:"first_error,omitempty"`
}

// Run runs the scenario; admin is a client for INFO, outside the counts.
func (c Contention) Run(ctx context.Context, admin *redis.Client) (ContentionResult, error) {
	k := max(1, min(c.Clients, c.Goroutines))
	counters := make([]*redisstats.Counter, k)
	backends := make([]strategy.Backend, k)
	for i := range k {
		rdb, counter := redisstats.NewClient(c.Addr)
		defer rdb.Close()
		b, err := c.Strategy.Open(rdb)
		if err != nil {
			return ContentionResult{}, err
		}
		defer b.Close()
		counters[i], backends[i] = counter, b
	}
	name := fmt.Sprintf("bench:hot:%s:%d:%d", c.Strategy.Name, c.Goroutines, time.Now().UnixNano())

	start := time.Now()
	from := start.Add(c.Warmup)
	to := from.Add(c.Duration)
	rec := newRecorder(c.Goroutines, k, from, to)
	runCtx, cancel := context.WithDeadline(ctx, to)
	defer cancel()

	lockers := make([]strategy.Locker, c.Goroutines)
	owners := make(map[string]int)
	for g := range lockers {
		lockers[g] = backends[g%k].NewLocker(name)
		if o, ok := lockers[g].(strategy.Owned); ok {
			owners[o.Owner()] = g
		}
	}
	for _, b := range backends {
		if q, ok := b.(strategy.Queued); ok {
			rec.lines = true
			q.OnQueued(func(owner string, at time.Time) {
				if g, ok := owners[owner]; ok {
					rec.queued(g, at)
				}
			})
		}
	}
	var wg sync.WaitGroup
	for g, l := range lockers {
		client := g % k
		wg.Add(1)
		go func() {
			defer wg.Done()
			lockLoop(runCtx, rec, l, g, client, c.Hold, holdFor)
		}()
	}

	// Snapshot the counters at both ends of the window.
	var cli0, cli1 redisstats.Counts
	var srv0, srv1 redisstats.Calls
	snap := func() (redisstats.Counts, redisstats.Calls, error) {
		var sum redisstats.Counts
		for _, ct := range counters {
			sum = sum.Add(ct.Snapshot())
		}
		calls, err := redisstats.CommandCalls(ctx, admin)
		return sum, calls, err
	}
	var err0, err1 error
	if sleepUntil(ctx, from) {
		cli0, srv0, err0 = snap()
	}
	if sleepUntil(ctx, to) {
		cli1, srv1, err1 = snap()
	}
	wg.Wait()
	if err := errors.Join(err0, err1, ctx.Err()); err != nil {
		return ContentionResult{}, err
	}
	return c.result(rec, cli1.Sub(cli0), srv1.Sub(srv0)), nil
}

// lockLoop is one goroutine g of client client, recorded by rec: lock,
// hold (spend(hold)), unlock, again, until ctx ends.
func lockLoop(ctx context.Context, rec *recorder, l strategy.Locker, g, client int, hold time.Duration, spend func(time.Duration)) {
	for ctx.Err() == nil {
		rec.waiting(g)
		if err := l.Lock(ctx); err != nil {
			if ctx.Err() != nil {
				rec.cutOff(g)
				return
			}
			rec.failed(err)
			rec.cutOff(g)
			time.Sleep(hold)
			continue
		}
		since := rec.acquired(g, client)
		spend(hold)
		rec.releasing(g, since)
		if err := l.Unlock(context.Background()); err != nil {
			rec.failed(err)
		}
		rec.released(g)
	}
}

func (c Contention) result(rec *recorder, cli redisstats.Counts, srv redisstats.Calls) ContentionResult {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	n := float64(rec.acquisitions)
	secs := c.Duration.Seconds()
	r := ContentionResult{
		Strategy: c.Strategy.Name, Family: c.Strategy.Family,
		Goroutines: c.Goroutines, Clients: len(rec.perClient),
		HoldMs: ms(c.Hold), Seconds: secs,
		Acquisitions:   rec.acquisitions,
		PerSecond:      n / secs,
		Handoff:        summarise(rec.gaps),
		Wait:           summarise(rec.waits),
		WaitsCut:       rec.cut,
		Rewins:         ratio(float64(rec.rewins), n),
		Overtakes:      ratio(float64(rec.overtakes), n),
		OvertakeGrants: rec.overtakes,
		ClientCmdsPer:  ratio(float64(cli.Commands+srv.PubSub()), n),
		SubscribesPer:  ratio(float64(srv.PubSub()), n),
		RoundTripsPer:  ratio(float64(cli.RoundTrips), n),
		ServerCmdsPer:  ratio(float64(srv.Total()), n),
		ServerCalls:    srv,
		Violations:     rec.violations,
		Errors:         rec.errors,
	}
	if rec.firstError != nil {
		r.FirstError = rec.firstError.Error()
	}
	r.FloorShare = r.PerSecond * (c.Hold + c.RTT).Seconds()
	rtt := ms(c.RTT)
	r.HandoffRTT = inRTT(r.Handoff, rtt)
	r.HandoffFromReturnRTT = inRTT(summarise(rec.returnGaps), rtt)
	var held time.Duration
	for _, h := range rec.holds {
		held += h
	}
	if len(rec.holds) > 0 {
		r.HoldMeanMs = ms(held) / float64(len(rec.holds))
		r.EffectiveShare = r.PerSecond * (r.HoldMeanMs/1000 + c.RTT.Seconds())
	}
	for _, a := range rec.perGoroutine {
		if a == 0 {
			r.Starved++
		}
	}
	for _, a := range rec.perClient {
		r.ClientShares = append(r.ClientShares, ratio(float64(a), n))
	}
	return r
}

// sleepUntil sleeps until t and reports whether ctx is still alive.
func sleepUntil(ctx context.Context, t time.Time) bool {
	select {
	case <-time.After(time.Until(t)):
		return true
	case <-ctx.Done():
		return false
	}
}

// holdFor spends a critical section of d: it sleeps in the kernel when d
// is at least a millisecond (a critical section that waits on I/O; see
// sleepIO), and works, yielding to other goroutines, when shorter. A
// shorter sleep is no measure: the kernel's timer slack and the thread's
// wake-up are a large share of it.
func holdFor(d time.Duration) {
	if d >= time.Millisecond {
		sleepIO(d)
		return
	}
	busyFor(d)
}

// parkFor is holdFor for many holders at once: Go's sleep, which parks
// the goroutine instead of blocking a thread, when d is at least a
// millisecond; below, whose Go's sleep would round up to about a
// millisecond, it works for d.
func parkFor(d time.Duration) {
	if d >= time.Millisecond {
		time.Sleep(d)
		return
	}
	busyFor(d)
}

// busyFor works for d, yielding to other goroutines.
func busyFor(d time.Duration) {
	for start := time.Now(); time.Since(start) < d; {
		runtime.Gosched()
	}
}
