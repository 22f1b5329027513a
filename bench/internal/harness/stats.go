// Package harness runs the benchmark scenarios: uncontended latency, one
// hot lock under contention, a read-mostly workload on one hot lock with
// RWMutex and with Mutex, many locks with waiters, the watchdog renewing
// many locks, and many locks on a Redis Cluster. Each scenario returns a result struct that the
// report package prints, plots and writes as JSON.
package harness

import (
	"slices"
	"time"
)

// Quantiles summarises a sample of durations, in milliseconds.
type Quantiles struct {
	N   int     `json:"n"`
	P50 float64 `json:"p50_ms"`
	P99 float64 `json:"p99_ms"`
	Max float64 `json:"max_ms"`
}

// summarise returns the quantiles of ds (which it sorts).
func summarise(ds []time.Duration) Quantiles {
	if len(ds) == 0 {
		return Quantiles{}
	}
	slices.Sort(ds)
	return Quantiles{N: len(ds), P50: ms(Quantile(ds, 0.50)), P99: ms(Quantile(ds, 0.99)), Max: ms(ds[len(ds)-1])}
}

// Quantile returns the q-quantile of sorted ds (nearest rank).
func Quantile(sorted []time.Duration, q float64) time.Duration {
	i := int(q*float64(len(sorted))+0.5) - 1
	return sorted[max(0, min(i, len(sorted)-1))]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// ratio returns a/b, or 0 when b is 0.
func ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}

// inRTT is q in units of rtt (milliseconds, as q's).
func inRTT(q Quantiles, rtt float64) Quantiles {
	return Quantiles{N: q.N, P50: ratio(q.P50, rtt), P99: ratio(q.P99, rtt), Max: ratio(q.Max, rtt)}
}
