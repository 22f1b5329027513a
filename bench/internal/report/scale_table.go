package report

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/relock-go/relock/bench/internal/harness"
)

// writeScaleCosts prints where the scale runs' settle and drain times went:
// per waiter at settle (its attempts, its share of the SUBSCRIBE commands
// and of their channels), per acquisition at drain (attempts, wake-ups per
// release message heard), the waits for pooled connections, and the CPU
// time of Redis and of the Clients' process.
func writeScaleCosts(w io.Writer, xs []harness.ManyLocksResult) error {
	fmt.Fprintf(w, "\nScale: where the time went (settle per waiter; drain per acquisition, releases of the holders included; CPU seconds)\n")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "locks\tsettle s\tsrv cmd/w\tevalsha/w\ttrips/w\tSUBSCRIBE\tchan/SUB\tpool waits\tredis cpu\tGo cpu\tdrain s\tsrv cmd/acq\tevalsha/acq\tattempts/acq\twoken/msg\tpool waits\tredis cpu\tGo cpu\t")
	for _, x := range xs {
		waiters := float64(x.Locks * x.Waiters)
		st, dr := x.Settle, x.Drain
		subs := st.ServerCalls["subscribe"] + st.ServerCalls["ssubscribe"]
		acq := float64(x.Acquired + int64(x.Locks))
		fmt.Fprintf(tw, "%d\t%.1f\t%.2f\t%.2f\t%.2f\t%d\t%.0f\t%d\t%.1f\t%.1f\t%.1f\t%.2f\t%.2f\t%.2f\t%.2f\t%d\t%.1f\t%.1f\t\n",
			x.Locks, x.SettleSeconds, st.Per(waiters), st.Per(waiters, "evalsha"), float64(st.RoundTrips)/waiters, subs, x.ChannelsPerSubscribe,
			st.PoolWaits, st.RedisCPUSeconds, st.GoCPUSeconds,
			x.DrainSeconds, dr.Per(acq), dr.Per(acq, "evalsha"), x.AttemptsPerAcquisition, x.WokenPerMessage,
			dr.PoolWaits, dr.RedisCPUSeconds, dr.GoCPUSeconds)
	}
	return tw.Flush()
}

// writeClusterScale prints the scale scenario's runs on Redis Clusters:
// per run, the figures of the single-server table and each master's CPU
// time per thousand locks; then what ten masters would take (TenMasters).
func writeClusterScale(w io.Writer, xs []harness.ManyLocksResult, cpus int) error {
	if len(xs) == 0 {
		return nil
	}
	fmt.Fprintf(w, "\nCluster scale: the scale scenario on Redis Clusters, sharded pub/sub, Redisson threads among some locks' waiters (CPU seconds)\n")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "masters\tlocks\twaiters\tjava\tfailed\treplaced\tsettle s\tdrain s\tGo cpu settle\tGo cpu drain\tmaster cpu/1k locks settle\tdrain\t")
	for _, x := range xs {
		s, d := perMaster(x)
		fmt.Fprintf(tw, "%d\t%d\t%d\t%d×%d=%d\t%d\t%d\t%.1f\t%.1f\t%.1f\t%.1f\t%.3f\t%.3f\t\n", len(x.Masters), x.Locks, x.Locks*x.Waiters,
			x.JavaNames, x.JavaThreads, x.JavaAcquired, x.Errors, x.Replacements, x.SettleSeconds, x.DrainSeconds,
			x.Settle.GoCPUSeconds, x.Drain.GoCPUSeconds, s, d)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, x := range xs {
		if x.FirstError != "" {
			fmt.Fprintf(w, "  %d masters, %d locks: first error: %s\n", len(x.Masters), x.Locks, x.FirstError)
		}
	}
	if m := TenMasters(xs[len(xs)-1], cpus); m.Locks > 0 {
		fmt.Fprintf(w, "  model, %d locks × %d waiters on 10 masters from the last run: settle ≥ %.1f s (clients %.1f s on %d cores, each master %.1f s), drain ≥ %.1f s (clients %.1f s, each master %.1f s)\n",
			m.Locks, m.Waiters, m.Settle, m.SettleClients, cpus, m.SettleMaster, m.Drain, m.DrainClients, m.DrainMaster)
	}
	return nil
}

// perMaster is the mean over a Cluster run's masters of their CPU seconds
// per thousand locks, at settle and at drain.
func perMaster(x harness.ManyLocksResult) (settle, drain float64) {
	for _, m := range x.Masters {
		settle += m.SettleCPUPerK / float64(len(x.Masters))
		drain += m.DrainCPUPerK / float64(len(x.Masters))
	}
	return settle, drain
}

// Model is the time a Cluster of Masters masters would take to settle and
// drain Locks locks with Waiters waiters each, from the CPU time measured
// per waiter on the clients and per lock on a master: each phase takes at
// least the clients' CPU time spread over their cores, and at least one
// master's (the masters work in parallel, each on its slots' locks). It
// assumes the masters and the clients do not share cores, and leaves out
// latency.
type Model struct {
	Masters, Locks, Waiters     int
	SettleClients, SettleMaster float64
	DrainClients, DrainMaster   float64
	Settle, Drain               float64
}

// TenMasters models the run x's lock and waiter counts on ten masters,
// with clients of cpus cores.
func TenMasters(x harness.ManyLocksResult, cpus int) Model {
	m := Model{Masters: 10, Locks: x.Locks, Waiters: x.Waiters}
	if len(x.Masters) == 0 || x.Locks == 0 || cpus < 1 {
		return Model{}
	}
	s, d := perMaster(x)
	m.SettleMaster, m.DrainMaster = s*float64(x.Locks)/1000/10, d*float64(x.Locks)/1000/10
	m.SettleClients, m.DrainClients = x.Settle.GoCPUSeconds/float64(cpus), x.Drain.GoCPUSeconds/float64(cpus)
	m.Settle, m.Drain = max(m.SettleClients, m.SettleMaster), max(m.DrainClients, m.DrainMaster)
	return m
}
