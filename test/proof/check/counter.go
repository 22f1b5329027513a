package check

import (
	"fmt"
	"math"

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
// up. Two accepted writes that continued one write (siblings, see
// lineage) are a lost update whatever the final value, dated at the later
// write, so that it counts under the fault whose span holds it; writes
// lost on a branch a pair of siblings cut off are explained as that pair
// is, and dated at its later write; those nothing shows are dated at the
// last operation. Lost updates are what the plain lock's overlapping
// holders do (measured); on a fenced or read-write counter they are
// violations unless a fault lost writes, or (read-write) the two writers
// overlapped explainably, or (fenced) one token was granted twice. A
// final value the history does not settle is unchecked.
func (c *nameCheck) lostUpdates(ops []regOp, settled []regState) {
	var ok, maybe int64
	for i := range ops {
		o := &ops[i]
		switch {
		case o.in.write && o.out.outcome == history.OutcomeOK:
			ok++
		case o.in.write && !o.known():
			maybe++
		}
	}
	lin := lineageOf(ops)
	pairs := lin.siblings()
	lost := int64(len(pairs))
	known := true
	lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
	for _, st := range settled {
		known = known && st.known
		lo, hi = min(lo, st.value), max(hi, st.value)
	}
	if known {
		lost = max(lost, ok-hi)
		if lo > ok+maybe {
			c.finding("", CheckLostUpdates, c.lastCall(), "the counter ended at %d, above its %d writes that may have taken effect", lo, ok+maybe)
		}
	}
	c.res.LostUpdates = lost
	type explained struct {
		side, cause, by string
		at              int64
	}
	why := make([]explained, len(pairs))
	for n, pr := range pairs {
		p, w := lin.writes[pr.first], lin.writes[pr.later]
		side, cause := c.lostCause(p, w)
		why[n] = explained{side, cause, fmt.Sprintf("%s's write of %d at %s", c.procName(w.proc), w.in.value, c.clock(w.ret)), w.ret}
		c.findingOf(side, cause, CheckLostUpdates, w.ret, "%s wrote %d at %s over %s's %d of %s: an update lost",
			c.procName(w.proc), w.in.value, c.clock(w.ret), c.procName(p.proc), p.in.value, c.clock(p.ret))
	}
	if rest := lost - int64(len(pairs)); rest > 0 {
		// The rest were written on branches that siblings cut off, if
		// enough were: explained as their pairs are (the latest cut's).
		// (A rest implies a known final value, hi.)
		var onCut int64
		var last explained
		for _, n := range lin.cutOff(pairs, hi) {
			if n < 0 || why[n].cause == "" {
				continue
			}
			onCut++
			if why[n].at > last.at {
				last = why[n]
			}
		}
		text := fmt.Sprintf("the counter ended at %d after %d accepted writes: %d updates lost that no write shows", hi, ok, rest)
		if onCut >= rest {
			text = fmt.Sprintf("the counter ended at %d after %d accepted writes: %d more updates lost, on the branch that %s cut off", hi, ok, rest, last.by)
			c.findingOf(last.side, last.cause, CheckLostUpdates, last.at, "%s", text)
		} else {
			cause := c.fi.any(c.run.Start, c.run.LastT, func(f *history.Fault) bool { return c.run.Manifest.LosesDataUnder(f.Kind) })
			if c.spec.Workload == history.Plain {
				cause = "no fencing"
			}
			c.finding(cause, CheckLostUpdates, c.lastCall(), "%s", text)
		}
	}
	if !known {
		c.res.LostUpdates = -1
		c.add(Finding{Severity: Unchecked, Check: CheckLostUpdates, At: c.lastCall(),
			Text: fmt.Sprintf("the counter's final value is not known (%d accepted writes): updates lost beyond %d not counted", ok, lost)})
	}
}

// lostCause returns what explains w's overwriting p's update, or "", with
// the side it counts on: that of the holder whose hold broke where the two
// writers' sections overlapped, else p's.
func (c *nameCheck) lostCause(p, w *regOp) (side, cause string) {
	side = c.side(p.proc)
	if cause := c.lostBy(p.call, w.ret, func(f *history.Fault) bool { return c.run.Manifest.LosesDataUnder(f.Kind) }); cause != "" {
		return side, cause
	}
	for _, o := range c.overlaps {
		if (o.a == p.proc && o.b == w.proc || o.a == w.proc && o.b == p.proc) && o.from <= w.ret && o.to >= p.call {
			return o.side, o.cause
		}
	}
	switch {
	case c.spec.Workload == history.Plain:
		return side, "no fencing"
	case p.in.token != 0 && p.in.token == w.in.token && p.proc != w.proc:
		// The store accepts a write with the highest token seen, so two
		// holders granted one token both write (grant-tokens judged the
		// grant).
		return side, "a token granted twice"
	}
	return side, ""
}

func (c *nameCheck) lastCall() int64 { return c.ops[len(c.ops)-1].Call }
