package harness

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"time"
)

// trace prints, every interval until ctx ends, how the run goes: the
// goroutines, the Clients' events so far (waits started, wake-ups, holds
// renewed and lost), the server's commands since the last line (scripts,
// SUBSCRIBE and UNSUBSCRIBE) and the CPU seconds of both sides.
func (m ManyLocks) trace(ctx context.Context, w io.Writer, meter phaseMeter, interval time.Duration) {
	start := time.Now()
	last, err := meter.mark(ctx)
	if err != nil {
		return
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		now, err := meter.mark(ctx)
		if err != nil {
			return
		}
		d := now.calls.Sub(last.calls)
		var redisCPU float64
		for i := range now.redisCPU {
			redisCPU += now.redisCPU[i] - last.redisCPU[i]
		}
		line := fmt.Sprintf("  %6.1fs goroutines %d", time.Since(start).Seconds(), runtime.NumGoroutine())
		if tl := m.Tally; tl != nil {
			line += fmt.Sprintf(" waited %d woken %d renewed %d lost %d replaced %d", tl.Waited.Load(), tl.Woken.Load(), tl.Renewed.Load(), tl.Lost.Load(), tl.Replaced.Load())
		}
		line += fmt.Sprintf(" | evalsha %d sub %d unsub %d | cpu redis %.1f go %.1f", d["evalsha"], d["subscribe"]+d["ssubscribe"], d["unsubscribe"]+d["sunsubscribe"],
			redisCPU, now.goCPU-last.goCPU)
		fmt.Fprintln(w, line)
		last = now
	}
}
