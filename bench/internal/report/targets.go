package report

import (
	"fmt"
	"math"
	"strings"

	"github.com/relock-go/relock/bench/internal/harness"
)

// Target is one of the performance targets, checked against a run.
type Target struct {
	Name string `json:"name"`
	// Met is nil when the run lacks the measurements the target needs.
	Met    *bool  `json:"met"`
	Detail string `json:"detail"`
}

func (t Target) status() string {
	switch {
	case t.Met == nil:
		return "n/a "
	case *t.Met:
		return "MET "
	}
	return "MISS"
}

// The contention target workload: 64 goroutines (over Config.Clients).
const targetG = 64

// CheckTargets evaluates the performance targets on r and stores them in
// r.Targets.
func (r *Report) CheckTargets() {
	var ts []Target
	add := func(name string, met *bool, format string, args ...any) {
		ts = append(ts, Target{Name: name, Met: met, Detail: fmt.Sprintf(format, args...)})
	}
	na := func(name, why string) { add(name, nil, "%s", why) }
	yes := func(b bool) *bool { return &b }

	// Uncontended: pairs of every strategy interleaved cycle by cycle, so
	// the ratios to redislock's compare the same cycles.
	var relockU *harness.UncontendedResult
	refRun := false
	for i := range r.Uncontended {
		u := &r.Uncontended[i]
		refRun = refRun || strings.HasPrefix(u.Strategy, harness.UncontendedReference)
		if u.Strategy == "relock" {
			relockU = u
		}
	}
	switch {
	case relockU != nil && refRun:
		add("uncontended p50 ≤ 1.05 × redislock", yes(relockU.P50Ratio <= 1.05), "p50 %.3f×, p99 %.3f×, median pair ratio %.3f×", relockU.P50Ratio, relockU.P99Ratio, relockU.PairRatioP50)
		add("uncontended p99 ≤ 1.05 × redislock", yes(relockU.P99Ratio <= 1.05), "p99 %.3f×", relockU.P99Ratio)
	case len(r.Uncontended) > 0:
		na("uncontended p50 ≤ 1.05 × redislock", "relock or redislock not run")
	}

	for _, x := range r.Scale {
		add(fmt.Sprintf("scale %d locks × %d: 0 failed, 0 replaced", x.Locks, x.Waiters), yes(x.Errors == 0 && x.Replacements == 0),
			"%d failed calls, %d replacements, drained in %.1f s", x.Errors, x.Replacements, x.DrainSeconds)
		if x.Locks >= 100000 {
			add(fmt.Sprintf("scale %d locks × %d: settle ≤ 10 s, drain ≤ 10 s", x.Locks, x.Waiters), yes(x.SettleSeconds <= 10 && x.DrainSeconds <= 10),
				"settle %.1f s, drain %.1f s", x.SettleSeconds, x.DrainSeconds)
		}
	}
	for _, x := range r.ClusterScale {
		add(fmt.Sprintf("cluster scale %d masters, %d locks × %d: 0 failed", len(x.Masters), x.Locks, x.Waiters), yes(x.Errors == 0),
			"%d failed calls (Redisson %d of %d acquisitions), %d replacements; settle %.1f s, drain %.1f s",
			x.Errors, x.JavaAcquired, x.JavaNames*x.JavaThreads, x.Replacements, x.SettleSeconds, x.DrainSeconds)
	}

	// Hot lock, relock pub/sub.
	k := r.Config.Clients
	if x := r.find("relock", targetG); x != nil {
		add(fmt.Sprintf("G=%d client cmds/acq ≤ K+2 = %d", targetG, k+2), yes(x.ClientCmdsPer <= float64(k+2)), "%.2f (%.2f incl. %.2f SUBSCRIBE/UNSUBSCRIBE)", x.ClientCmdsPer, x.ClientCmdsPer, x.SubscribesPer)
		lo, hi := math.Inf(1), 0.0
		var seen []string
		for _, g := range []int{8, 64, 256} {
			if y := r.find("relock", g); y != nil {
				lo, hi = min(lo, y.ClientCmdsPer), max(hi, y.ClientCmdsPer)
				seen = append(seen, fmt.Sprintf("G=%d %.2f", g, y.ClientCmdsPer))
			}
		}
		if len(seen) >= 2 {
			add("client cmds/acq flat G=8..256 (max/min ≤ 1.25)", yes(hi/lo <= 1.25), "%s: max/min %.2f", strings.Join(seen, ", "), hi/lo)
		}
		add(fmt.Sprintf("G=%d acq/s ≥ 85%% of floor", targetG), yes(x.EffectiveShare >= 0.85),
			"%.1f%% of 1/(measured hold %.2f ms + RTT); %.1f%% of 1/(nominal hold + RTT)", 100*x.EffectiveShare, x.HoldMeanMs, 100*x.FloorShare)
		add(fmt.Sprintf("G=%d no goroutine starved", targetG), yes(x.Starved == 0), "%d of %d starved", x.Starved, x.Goroutines)
		worse, better := []string{}, []string{}
		for _, y := range r.Contention {
			if y.Goroutines != targetG || y.Strategy == "relock" || y.Family == "fair" {
				continue
			}
			d := fmt.Sprintf("%s %.0f", y.Strategy, y.Wait.P99)
			if x.Wait.P99 < y.Wait.P99 {
				better = append(better, d)
			} else {
				worse = append(worse, d)
			}
		}
		if len(worse)+len(better) > 0 {
			add(fmt.Sprintf("G=%d wait p99 below every spin/peer", targetG), yes(len(worse) == 0),
				"relock %.0f ms; not beaten: [%s]; beaten: [%s]", x.Wait.P99, strings.Join(worse, ", "), strings.Join(better, ", "))
		}
		add(fmt.Sprintf("G=%d Client shares within ±5 points of even", targetG), yes(evenShares(x.ClientShares, 0.05)), "%s %%", shares(x.ClientShares))
		add(fmt.Sprintf("G=%d hand-off p50 ≤ 3 RTT", targetG), yes(x.HandoffRTT.P50 <= 3), "%s", r.handoffText(x))
		add(fmt.Sprintf("G=%d hand-off p50 from Unlock's return ≤ 3 RTT", targetG), yes(x.HandoffFromReturnRTT.P50 <= 3), "%.1f RTT", x.HandoffFromReturnRTT.P50)
	} else if len(r.Contention) > 0 {
		na("hot lock targets", fmt.Sprintf("relock at G=%d not run", targetG))
	}
	for _, g := range []int{64, 256} {
		for _, name := range []string{"relock", "relock-fair"} {
			if x := r.find(name, g); x != nil {
				if best := r.bestPeer(g); best != nil {
					add(fmt.Sprintf("%s G=%d acq/s ≥ every peer and spin", name, g), yes(x.PerSecond >= best.PerSecond), "%.0f vs best %s %.0f", x.PerSecond, best.Strategy, best.PerSecond)
				}
			}
		}
	}

	// Fair mode.
	if f := r.find("relock-fair", targetG); f != nil {
		add(fmt.Sprintf("fair G=%d 0 out-of-order grants", targetG), yes(f.OvertakeGrants == 0), "%d grants overtook a waiter ≥ 2 ms older (%.1f%%)", f.OvertakeGrants, 100*f.Overtakes)
		add("fair client cmds/acq ≤ 3", yes(f.ClientCmdsPer <= 3), "%.2f", f.ClientCmdsPer)
		if x := r.find("relock", targetG); x != nil {
			add(fmt.Sprintf("fair G=%d acq/s ≥ non-fair", targetG), yes(f.PerSecond >= x.PerSecond), "%.0f%% of non-fair", 100*f.PerSecond/x.PerSecond)
		}
		add(fmt.Sprintf("fair G=%d hand-off p50 ≤ 3 RTT", targetG), yes(f.HandoffRTT.P50 <= 3), "%s", r.handoffText(f))
		add(fmt.Sprintf("fair G=%d hand-off p50 from Unlock's return ≤ 3 RTT", targetG), yes(f.HandoffFromReturnRTT.P50 <= 3), "%.1f RTT", f.HandoffFromReturnRTT.P50)
		bound := float64(targetG) * (r.Config.HoldMs + 3*r.Ping.P50)
		add("fair wait max ≤ G × (hold + 3 RTT)", yes(f.Wait.Max <= bound), "%.0f ms vs bound %.0f ms", f.Wait.Max, bound)
	} else if len(r.Contention) > 0 {
		na("fair targets", fmt.Sprintf("relock-fair at G=%d not run (fair mode not in the library yet?)", targetG))
	}

	// Exclusion, everywhere.
	if runs := len(r.Contention) + len(r.Cluster); runs > 0 {
		var v int64
		for _, x := range r.Contention {
			v += x.Violations
		}
		for _, x := range r.Cluster {
			v += x.Violations
		}
		add("mutual exclusion: 0 violations", yes(v == 0), "%d violations over %d runs (cluster runs included)", v, runs)
	}

	// Cluster: sharded pub/sub keeps each release on its lock's master.
	var classic, sharded *harness.ClusterResult
	for i := range r.Cluster {
		switch x := &r.Cluster[i]; x.PubSub {
		case "classic":
			classic = x
		case "sharded":
			sharded = x
		}
	}
	if classic != nil && sharded != nil && len(classic.Nodes) == len(sharded.Nodes) {
		fewer := sharded.BusPublishes == 0
		var per []string
		for i, n := range sharded.Nodes {
			fewer = fewer && n.ReceivedPer < classic.Nodes[i].ReceivedPer
			per = append(per, fmt.Sprintf("%.2f→%.2f", classic.Nodes[i].ReceivedPer, n.ReceivedPer))
		}
		add("cluster sharded: no broadcast, fewer messages per master", yes(fewer),
			"bus publishes %d→%d; per master recv/acq classic→sharded %s; acq/s %.0f→%.0f (%+.0f%%)",
			classic.BusPublishes, sharded.BusPublishes, strings.Join(per, ", "), classic.PerSecond, sharded.PerSecond, 100*(sharded.PerSecond/classic.PerSecond-1))
	}

	if wd := r.Watchdog; wd != nil {
		add(fmt.Sprintf("watchdog %d locks ≤ 150 round trips/period", wd.Locks), yes(wd.RoundTripsPerPeriod <= 150 && wd.Lost == 0 && wd.Expired == 0),
			"%.1f round trips, %.0f client cmds per period; lost %d, expired %d", wd.RoundTripsPerPeriod, wd.ClientCmdsPerPeriod, wd.Lost, wd.Expired)
	}
	r.Targets = ts
}

// bestPeer is the fastest strategy at g goroutines that is neither relock's
// pub/sub nor its fair mode: a spin setting or a peer library.
func (r *Report) bestPeer(g int) *harness.ContentionResult {
	var best *harness.ContentionResult
	for i := range r.Contention {
		y := &r.Contention[i]
		if y.Goroutines != g || y.Family == "relock" || y.Family == "fair" {
			continue
		}
		if best == nil || y.PerSecond > best.PerSecond {
			best = y
		}
	}
	return best
}

// handoffText is x's hand-off p50 (from the releaser's Unlock call) in PING
// round trips, back to back and after an idle of the hold (the round trip
// an Unlock after its critical section actually gets).
func (r *Report) handoffText(x *harness.ContentionResult) string {
	text := fmt.Sprintf("%.1f RTT", x.HandoffRTT.P50)
	if r.IdlePing.P50 > 0 {
		text += fmt.Sprintf(" = %.1f round trips after idle", x.Handoff.P50/r.IdlePing.P50)
	}
	return text
}

// evenShares reports whether every share is within tol of 1/len(shares).
func evenShares(shares []float64, tol float64) bool {
	for _, s := range shares {
		if math.Abs(s-1/float64(len(shares))) > tol {
			return false
		}
	}
	return len(shares) > 0
}
