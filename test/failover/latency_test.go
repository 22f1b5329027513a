package failover

import (
	"slices"
	"testing"
	"time"

	"github.com/relock-go/relock/rlock"
	"github.com/relock-go/relock/test/testkit"
	"github.com/relock-go/relock/test/testkit/lockkit"
)

// The price of WithReplicaAck on loopback: uncontended Lock+Unlock with
// and without it, through the failover client of a master with one
// replica, as multiples of the PING round trip (RTT, PING's median)
// measured in the same run.
// It logs the figures and asserts nothing about them. It does not run in
// parallel: the package's other tests wait until it is done.
func TestReplicaAckLatency(t *testing.T) {
	s := startGroup(t, 1)
	ctx := testkit.Ctx(t, within)
	rdb := s.FailoverClient(t)
	plain := lockkit.NewClient(t, rdb).NewMutex("latency:plain")
	acked := lockkit.NewClient(t, rdb, rlock.WithReplicaAck(1, time.Second)).NewMutex("latency:acked")

	lockUnlock := func(m *rlock.Mutex) func() error {
		return func() error {
			if err := m.Lock(ctx); err != nil {
				return err
			}
			return m.Unlock(ctx)
		}
	}
	ops := []struct {
		name string
		op   func() error
		took []time.Duration
	}{
		{name: "PING", op: func() error { return rdb.Ping(ctx).Err() }},
		{name: "Lock+Unlock", op: lockUnlock(plain)},
		{name: "Lock+Unlock WithReplicaAck(1)", op: lockUnlock(acked)},
	}
	// Rounds interleave the operations, so that all of them see the same
	// machine load.
	const rounds, perRound = 20, 100
	for range rounds {
		for i := range ops {
			for range perRound {
				begin := time.Now()
				if err := ops[i].op(); err != nil {
					t.Fatalf("%s: %v", ops[i].name, err)
				}
				ops[i].took = append(ops[i].took, time.Since(begin))
			}
		}
	}
	rtt, _ := percentiles(ops[0].took)
	for _, o := range ops {
		p50, p99 := percentiles(o.took)
		t.Logf("%-30s p50 %9v = %5.1f RTT   p99 %9v = %5.1f RTT", o.name, p50, ratio(p50, rtt), p99, ratio(p99, rtt))
	}
	plain50, plain99 := percentiles(ops[1].took)
	acked50, acked99 := percentiles(ops[2].took)
	t.Logf("WithReplicaAck(1) costs %.2f× at p50 and %.2f× at p99 of Lock+Unlock without it", ratio(acked50, plain50), ratio(acked99, plain99))
}

// percentiles returns the median and the 99th percentile of d.
func percentiles(d []time.Duration) (p50, p99 time.Duration) {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2], s[len(s)*99/100]
}

func ratio(a, b time.Duration) float64 { return float64(a) / float64(b) }
