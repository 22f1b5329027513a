package report

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/relock-go/relock/bench/internal/harness"
)

// WriteTable prints the run's results as plain-text tables.
func (r *Report) WriteTable(w io.Writer) error {
	m := r.Machine
	fmt.Fprintf(w, "relock-bench, %s: %s %s/%s, %d CPUs", r.Started.Format("2006-01-02 15:04"), m.GoVersion, m.OS, m.Arch, m.CPUs)
	if m.MemoryGiB > 0 {
		fmt.Fprintf(w, ", %.0f GiB", m.MemoryGiB)
	}
	if m.CPUModel != "" {
		fmt.Fprintf(w, " (%s)", m.CPUModel)
	}
	fmt.Fprintf(w, "; redis %s at %s\n", m.RedisVersion, m.RedisAddr)
	fmt.Fprintf(w, "PING round trip: p50 %.0f µs, p99 %.0f µs (RTT below = the p50); after %.0f ms idle, as an Unlock after its hold: p50 %.0f µs (%.1f RTT)\n",
		r.Ping.P50*1000, r.Ping.P99*1000, r.Config.HoldMs, r.IdlePing.P50*1000, r.IdlePing.P50/r.Ping.P50)

	if len(r.Uncontended) > 0 {
		fmt.Fprintf(w, "\nUncontended Lock+Unlock on a free lock (one goroutine), every strategy's pair in each cycle, in random order; ratios to %s's pairs of the same cycles\n", harness.UncontendedReference)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "strategy\tpairs\tp50 µs\tp99 µs\tp50 ratio\tp99 ratio\tpair ratio p50\tcli cmds/pair\tsrv cmds/pair\t")
		for _, u := range r.Uncontended {
			fmt.Fprintf(tw, "%s\t%d\t%.1f\t%.1f\t%.3f\t%.3f\t%.3f\t%.1f\t%.1f\t\n", u.Strategy, u.Pairs, u.Cycle.P50*1000, u.Cycle.P99*1000, u.P50Ratio, u.P99Ratio, u.PairRatioP50, u.CommandsPerCycle, u.ServerCommandsPerCycle)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}

	if len(r.Contention) > 0 {
		c := r.Config
		rtt := r.RTT()
		fmt.Fprintf(w, "\nOne hot lock: hold %.0f ms, goroutines G over K=%d Clients, re-lock right after unlock, %.1f s per run\n", c.HoldMs, c.Clients, c.RunSeconds)
		fmt.Fprintf(w, "floor = 1/(hold + RTT) = %.0f acq/s; eff = share of 1/(measured hold + RTT); hand-off in RTTs from the releaser's Unlock call (ret: from its return); waits in ms (cut = waits cut off by the end, included);\n", 1/(c.HoldMs/1000+rtt.Seconds()))
		fmt.Fprintf(w, "shares = each Client's share of acquisitions; rewin = releaser wins again; ooo = granted over a waiter 2 ms older (fair: 2 ms longer in the line)\n")
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "G\tstrategy\tacq/s\tfloor%\teff%\thandoff p50\tp99\tret p50\twait p50\tp99\tmax\tcut\tstarved\tClient shares %\trewin%\tooo%\tcli cmd/acq\tsrv cmd/acq\tviol\terr\t")
		last := -1
		for _, x := range r.Contention {
			if last != -1 && x.Goroutines != last {
				fmt.Fprintln(tw, strings.Repeat("\t", 20))
			}
			last = x.Goroutines
			fmt.Fprintf(tw, "%d\t%s\t%.0f\t%.0f\t%.0f\t%.1f\t%.1f\t%.1f\t%.1f\t%.1f\t%.0f\t%d\t%d\t%s\t%.0f\t%.0f\t%.1f\t%.1f\t%d\t%d\t\n",
				x.Goroutines, x.Strategy, x.PerSecond, 100*x.FloorShare, 100*x.EffectiveShare,
				x.HandoffRTT.P50, x.HandoffRTT.P99, x.HandoffFromReturnRTT.P50,
				x.Wait.P50, x.Wait.P99, x.Wait.Max, x.WaitsCut, x.Starved,
				shares(x.ClientShares), 100*x.Rewins, 100*x.Overtakes,
				x.ClientCmdsPer, x.ServerCmdsPer, x.Violations, x.Errors)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}

	if err := r.writeHolds(w); err != nil {
		return err
	}
	if err := r.writeReadWrite(w); err != nil {
		return err
	}

	if len(r.ManyLocks) > 0 {
		fmt.Fprintf(w, "\nMany locks: %d locks held, %d waiters each on other Clients (K=%d)\n", r.Config.ManyLocks, r.Config.ManyWaiters, r.Config.Clients)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "strategy\tsettle s\tchannels\tsubscriptions\tconnections\tidle cli cmd/s\tidle srv cmd/s\tredis MiB\tGo heap MiB\tdrain s\tdrain cli cmd/acq\terr\t")
		for _, x := range r.ManyLocks {
			fmt.Fprintf(tw, "%s\t%.1f\t%d\t%d\t%d\t%.0f\t%.0f\t%.1f\t%.1f\t%.2f\t%.1f\t%d\t\n", x.Strategy, x.SettleSeconds, x.Channels, x.Subscriptions, x.Connections,
				x.IdleClientCmdsPerSec, x.IdleServerCmdsPerSec, x.ServerMemMiB, x.GoHeapMiB, x.DrainSeconds, x.DrainClientCmdsPer, x.Errors)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}

	if len(r.Scale) > 0 {
		fmt.Fprintf(w, "\nScale: relock with default options, each lock held while %d waiters on other Clients wait (K=%d), watched %.1f s, then drained; memory per held lock and per waiter\n", r.Config.ScaleWaiters, r.Config.Clients, r.Config.IdleSeconds)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "locks	waiters	failed	replaced	settle s	idle cli cmd/s	idle srv cmd/s	redis B/lock	Go B/lock	redis B/waiter	Go B/waiter	Go stack B/waiter	drain s	")
		for _, x := range r.Scale {
			fmt.Fprintf(tw, "%d	%d	%d	%d	%.1f	%.0f	%.0f	%.0f	%.0f	%.0f	%.0f	%.0f	%.1f	\n", x.Locks, x.Locks*x.Waiters, x.Errors, x.Replacements, x.SettleSeconds,
				x.IdleClientCmdsPerSec, x.IdleServerCmdsPerSec, x.ServerBytesPerLock, x.GoBytesPerLock, x.ServerBytesPerWaiter, x.GoBytesPerWaiter, x.GoStackBytesPerWaiter, x.DrainSeconds)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		if err := writeScaleCosts(w, r.Scale); err != nil {
			return err
		}
		for _, x := range r.Scale {
			if x.FirstError != "" {
				fmt.Fprintf(w, "  %d locks: first error: %s\n", x.Locks, x.FirstError)
			}
			if x.FirstReplacement != "" {
				fmt.Fprintf(w, "  %d locks: first connection replaced: %s\n", x.Locks, x.FirstReplacement)
			}
		}
	}

	if wd := r.Watchdog; wd != nil {
		fmt.Fprintf(w, "\nWatchdog: %d held locks, watchdog timeout %.0f s (renewal every %.0f s), %.1f periods watched\n", wd.Locks, wd.TimeoutSeconds, wd.TimeoutSeconds/3, wd.Periods)
		fmt.Fprintf(w, "  per period: %.1f round trips, %.0f client commands, %.0f server commands; lost %d, expired %d\n",
			wd.RoundTripsPerPeriod, wd.ClientCmdsPerPeriod, wd.ServerCmdsPerPeriod, wd.Lost, wd.Expired)
		fmt.Fprintf(w, "  largest burst: %d locks renewed by one pipeline; longest pipeline %.1f ms (%.0f PING round trips)\n",
			wd.MaxBurstLocks, wd.MaxBurstMillis, wd.MaxBurstRTTs)
	}

	if err := r.writeCluster(w); err != nil {
		return err
	}
	if err := writeClusterScale(w, r.ClusterScale, r.Machine.CPUs); err != nil {
		return err
	}

	if len(r.Targets) > 0 {
		fmt.Fprintf(w, "\nTargets\n")
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		for _, t := range r.Targets {
			fmt.Fprintf(tw, "  %s\t%s\t%s\n", t.status(), t.Name, t.Detail)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	return nil
}

// shares formats client shares as percentages, "25/25/25/25".
func shares(s []float64) string {
	parts := make([]string, len(s))
	for i, v := range s {
		parts[i] = fmt.Sprintf("%.0f", 100*v)
	}
	return strings.Join(parts, "/")
}

// writeCluster prints the cluster scenario: one line per pub/sub kind, then
// one per master and kind.
func (r *Report) writeCluster(w io.Writer) error {
	if len(r.Cluster) == 0 {
		return nil
	}
	c := r.Config
	fmt.Fprintf(w, "\nRedis Cluster: %d masters, %d locks spread by slot, %d goroutines each over K=%d Clients, hold %.0f ms, re-lock right after unlock, %.1f s per run\n",
		len(r.Cluster[0].Nodes), c.ClusterLocks, c.ClusterWaiters, c.Clients, c.ClusterHoldMs, c.RunSeconds)
	fmt.Fprintf(w, "recv = release messages a master handled: the PUBLISH/SPUBLISH it ran plus the publishes the cluster bus brought it;\n")
	fmt.Fprintf(w, "bus = publish messages sent over the cluster bus; sub conns = connections holding subscriptions (mid-run)\n")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "pub/sub\tacq/s\twait p50\tp99\tmax\tcut\tstarved\trewin%\tcli cmd/acq\tsub cmd/acq\tsrv cmd/acq\tpublishes\tbus\trecv\trecv/acq\tsub conns\tviol\terr\t")
	for _, x := range r.Cluster {
		fmt.Fprintf(tw, "%s\t%.0f\t%.1f\t%.1f\t%.0f\t%d\t%d\t%.0f\t%.2f\t%.2f\t%.1f\t%d\t%d\t%d\t%.2f\t%d\t%d\t%d\t\n",
			x.PubSub, x.PerSecond, x.Wait.P50, x.Wait.P99, x.Wait.Max, x.WaitsCut, x.Starved, 100*x.Rewins,
			x.ClientCmdsPer, x.SubscribesPer, x.ServerCmdsPer, x.Publishes, x.BusPublishes, x.Received, x.ReceivedPer,
			x.SubscriptionConns, x.Violations, x.Errors)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "per master (recv/acq: messages the master handled per acquisition in the whole cluster)\n")
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "pub/sub\tmaster\tslots\tlocks\tacq\trewin%\tstarved\tpublish\tspublish\tbus sent\tbus recv\trecv\trecv/acq\tout KiB/s\tsub conns\t")
	for _, x := range r.Cluster {
		for _, n := range x.Nodes {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%.0f\t%d\t%d\t%d\t%d\t%d\t%d\t%.2f\t%.0f\t%d\t\n",
				x.PubSub, n.Addr, n.Slots, n.Locks, n.Acquisitions, 100*n.Rewins, n.Starved, n.Publish, n.SPublish, n.BusSent, n.BusReceived,
				n.Received, n.ReceivedPer, n.OutputKiBPerSec, n.SubscriptionConns)
		}
	}
	return tw.Flush()
}

// writeReadWrite prints the readwrite scenario: per goroutine count, one
// line for RWMutex and one for Mutex, then their throughput ratio.
func (r *Report) writeReadWrite(w io.Writer) error {
	if len(r.ReadWrite) == 0 {
		return nil
	}
	x0 := r.ReadWrite[0]
	fmt.Fprintf(w, "\nOne hot read-write lock: %.0f%% reads, %.0f%% writes, hold %.0f ms, goroutines G over K=%d Clients, next operation right after release, %.1f s per run\n",
		100*x0.ReadShare, 100*(1-x0.ReadShare), x0.HoldMs, x0.Clients, x0.Seconds)
	fmt.Fprintf(w, "RWMutex: reads RLock, writes Lock; Mutex: every operation Lock; same goroutines and seeds. Waits in ms (cut = waits cut off by the end, included);\n")
	fmt.Fprintf(w, "max rd = most reads inside at once\n")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "G\tlock\tops/s\treads/s\twrites/s\tread wait p50\tp99\twrite wait p50\tp99\tcut\tmax rd\tcli cmd/op\tviol\terr\t")
	for _, x := range r.ReadWrite {
		for _, k := range []harness.ReadWriteKind{x.RWMutex, x.Mutex} {
			fmt.Fprintf(tw, "%d\t%s\t%.0f\t%.0f\t%.0f\t%.1f\t%.1f\t%.1f\t%.1f\t%d\t%d\t%.1f\t%d\t%d\t\n",
				x.Goroutines, k.Lock, k.PerSecond, k.ReadsPerSecond, k.WritesPerSecond,
				k.ReadWait.P50, k.ReadWait.P99, k.WriteWait.P50, k.WriteWait.P99,
				k.WaitsCut, k.MaxReaders, k.ClientCmdsPer, k.Violations, k.Errors)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, x := range r.ReadWrite {
		fmt.Fprintf(w, "G=%d: RWMutex / Mutex throughput: %.2f×\n", x.Goroutines, x.Speedup)
	}
	return nil
}

// writeHolds prints the holds scenario: one hot lock at other critical
// sections, where pub/sub waiting gains more or less over polling.
func (r *Report) writeHolds(w io.Writer) error {
	if len(r.Holds) == 0 {
		return nil
	}
	x0 := r.Holds[0]
	fmt.Fprintf(w, "\nOther critical sections: one hot lock, G=%d over K=%d Clients, %.1f s per run; floor = 1/(hold + RTT)\n", x0.Goroutines, x0.Clients, x0.Seconds)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "hold ms\tstrategy\tacq/s\tfloor%\teff%\thandoff p50\twait p50\tp99\tstarved\tcli cmd/acq\tviol\terr\t")
	last := -1.0
	for _, x := range r.Holds {
		if last >= 0 && x.HoldMs != last {
			fmt.Fprintln(tw, strings.Repeat("\t", 12))
		}
		last = x.HoldMs
		fmt.Fprintf(tw, "%g\t%s\t%.0f\t%.0f\t%.0f\t%.1f\t%.1f\t%.1f\t%d\t%.1f\t%d\t%d\t\n",
			x.HoldMs, x.Strategy, x.PerSecond, 100*x.FloorShare, 100*x.EffectiveShare, x.HandoffRTT.P50,
			x.Wait.P50, x.Wait.P99, x.Starved, x.ClientCmdsPer, x.Violations, x.Errors)
	}
	return tw.Flush()
}
