package check

import (
	"fmt"

	"github.com/anishathalye/porcupine"

	"github.com/relock-go/relock/test/proof/history"
)

// register checks the name's register with porcupine, chunk by chunk, and
// then counts the counter's lost updates.
func (c *nameCheck) register() {
	ops := c.registerOps()
	if len(ops) == 0 {
		return
	}
	chunks, final := c.chunks(ops)
	c.res.Chunks = len(chunks)
	c.res.Register = "ok"
	for n := range chunks {
		ch := &chunks[n]
		if len(ch.ops) == 0 {
			continue
		}
		switch porcupine.CheckOperationsTimeout(registerModel(ch.init), c.porcupineOps(ch), c.cfg.ChunkTimeout) {
		case porcupine.Ok:
			continue
		case porcupine.Unknown:
			if c.res.Register == "ok" {
				c.res.Register = "unknown"
			}
			c.add(Finding{Severity: Unchecked, Check: CheckRegister, At: ch.ops[0].call,
				Text: fmt.Sprintf("chunk %d (%d operations from %s) not decided within %s", n, len(ch.ops), c.clock(ch.ops[0].call), c.cfg.ChunkTimeout)})
			continue
		}
		c.res.Register = "illegal"
		at := ch.ops[0].call
		text := fmt.Sprintf("chunk %d (%d operations from %s to %s, from %s) is not linearizable", n, len(ch.ops),
			c.clock(ch.ops[0].call), c.clock(ch.ops[len(ch.ops)-1].call), describeStates(ch.init))
		culprit, path, err := c.explainIllegal(ch, n)
		if culprit != nil {
			at = culprit.call
			text += fmt.Sprintf(": no order fits %s #%d %s, invoked at %s", c.procName(culprit.proc), culprit.id,
				registerModel(nil).DescribeOperation(culprit.in, culprit.out), c.clock(culprit.call))
		}
		switch {
		case err != nil:
			text += fmt.Sprintf(" (visualization failed: %v)", err)
		case path != "":
			text += "; see " + path
			c.visuals.add(path)
		}
		c.finding(ch.lossy, CheckRegister, at, "%s", text)
	}
	c.lostUpdates(ops, final)
}

// lostUpdates compares the counter's final value with its accepted writes:
// each write stores the value read plus one, so a final value below the
// number of accepted writes means updates were lost, and one above the
// number of writes that may have taken effect means the register made one
// up. Lost updates are what the plain lock's overlapping holders do
// (measured); on a fenced or read-write counter they are violations unless
// a fault lost writes, or (read-write) writers overlapped explainably.
func (c *nameCheck) lostUpdates(ops []regOp, settled []regState) {
	c.res.LostUpdates = -1
	if len(settled) != 1 || !settled[0].known {
		return
	}
	final := settled[0]
	var ok, maybe int64
	for _, o := range ops {
		switch {
		case o.in.write && o.out.outcome == history.OutcomeOK:
			ok++
		case o.in.write && !o.known():
			maybe++
		}
	}
	if final.value > ok+maybe {
		c.finding("", CheckLostUpdates, c.lastCall(), "the counter ended at %d, above its %d writes that may have taken effect", final.value, ok+maybe)
	}
	c.res.LostUpdates = max(0, ok-final.value)
	if c.res.LostUpdates == 0 {
		return
	}
	cause := c.fi.any(c.run.Start, c.run.LastT, func(f *history.Fault) bool { return c.run.Manifest.LosesDataUnder(f.Kind) })
	switch {
	case c.spec.Workload == history.Plain:
		cause = "no fencing"
	case cause == "" && c.spec.Workload == history.RW && c.res.ByCheck[CheckExclusion] != nil && c.res.ByCheck[CheckExclusion].Measured > 0:
		cause = "writers overlapped"
	}
	c.finding(cause, CheckLostUpdates, c.lastCall(), "the counter ended at %d after %d accepted writes: %d updates lost", final.value, ok, c.res.LostUpdates)
}

func (c *nameCheck) lastCall() int64 { return c.ops[len(c.ops)-1].Call }
