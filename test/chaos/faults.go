package chaos

import (
	"context"
	"math/rand/v2"
	"time"

	"github.com/redis/go-redis/v9"
)

// faulter switches faults on and off during a Run: a calm spell, then one
// fault for a while, then calm again. Every fault keeps Redis's data: see
// the package doc for why restarts are left out.
type faulter struct {
	cfg   Config
	nodes []*node
	admin *redis.Client
	rng   *rand.Rand
}

// fault injects itself and returns how long to leave it on and how to
// switch it off (nil for instant faults).
type fault struct {
	name   string
	inject func(f *faulter) (time.Duration, func())
}

// faults is the menu, scaled to the lease L. A partition or an outage
// longer than L makes holders lose their locks; shorter faults make
// commands time out, get retried, or lose their replies.
var faults = []fault{
	{"latency", func(f *faulter) (time.Duration, func()) {
		d := f.between(time.Millisecond, 20*time.Millisecond)
		for _, n := range f.nodes {
			n.proxy.SetLatency(d)
		}
		return f.between(f.cfg.Lease/3, f.cfg.Lease), f.clear
	}},
	{"latency spike", func(f *faulter) (time.Duration, func()) {
		f.node().proxy.SetLatency(f.between(f.cfg.Lease/8, f.cfg.Lease/4))
		return f.between(f.cfg.Lease/6, f.cfg.Lease), f.clear
	}},
	{"dropped replies", func(f *faulter) (time.Duration, func()) {
		f.node().proxy.DropReplies(1 + f.rng.IntN(3))
		return f.between(f.cfg.Lease/6, f.cfg.Lease/2), f.clear
	}},
	{"partition", func(f *faulter) (time.Duration, func()) {
		f.node().proxy.BlackHole(true)
		return f.between(f.cfg.Lease/2, 2*f.cfg.Lease), f.clear
	}},
	{"outage", func(f *faulter) (time.Duration, func()) {
		for _, n := range f.nodes {
			n.proxy.BlackHole(true)
		}
		return f.between(f.cfg.Lease/6, 3*f.cfg.Lease/2), f.clear
	}},
	{"connection reset", func(f *faulter) (time.Duration, func()) {
		if f.rng.IntN(2) == 0 {
			f.node().proxy.ResetAll()
		} else {
			for _, n := range f.nodes {
				n.proxy.ResetAll()
			}
		}
		return 0, nil
	}},
	{"refused connections", func(f *faulter) (time.Duration, func()) {
		n := f.node()
		n.proxy.RefuseNew(true)
		n.proxy.ResetAll()
		return f.between(f.cfg.Lease/6, f.cfg.Lease/2), f.clear
	}},
	{"script flush", func(f *faulter) (time.Duration, func()) {
		_ = f.admin.ScriptFlush(context.Background()).Err()
		return 0, nil
	}},
}

// run injects faults until ctx ends, then clears them and returns how many
// of each kind it injected.
func (f *faulter) run(ctx context.Context) map[string]int {
	counts := make(map[string]int)
	defer f.clear()
	for {
		if !f.wait(ctx, f.between(f.cfg.Lease/6, f.cfg.Lease/2)) {
			return counts
		}
		flt := faults[f.rng.IntN(len(faults))]
		on, off := flt.inject(f)
		counts[flt.name]++
		if off == nil {
			continue
		}
		ok := f.wait(ctx, on)
		off()
		if !ok {
			return counts
		}
	}
}

// clear switches every fault off on every proxy.
func (f *faulter) clear() {
	for _, n := range f.nodes {
		n.proxy.SetLatency(0)
		n.proxy.BlackHole(false)
		n.proxy.DropReplies(0)
		n.proxy.RefuseNew(false)
	}
}

// node picks a Client at random.
func (f *faulter) node() *node { return f.nodes[f.rng.IntN(len(f.nodes))] }

// between returns a random duration in [lo, hi).
func (f *faulter) between(lo, hi time.Duration) time.Duration {
	if hi <= lo {
		return lo
	}
	return lo + time.Duration(f.rng.Int64N(int64(hi-lo)))
}

// wait sleeps d and reports false if ctx ended first.
func (f *faulter) wait(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
