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
