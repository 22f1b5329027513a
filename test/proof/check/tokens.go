package check

import (
	"sort"

	"github.com/relock-go/relock/test/proof/history"
)

// tokenOrder checks the tokens of ops (ok, by invocation), each against
// those of the ops that returned before it was invoked: none below an
// earlier one, and if distinct, no token twice. For tokens handed out by a counter that
// only grows, this is what linearizability means (order the operations by
// token: a linearization exactly when no operation returned before
// another was invoked with a higher token), so no model search is needed.
// A token repeats or goes back only when the counter lost what an
// acquisition wrote: the earlier of the two (the one granted first, or
// the higher one that had returned), or for a token repeated, the later
// one too if it was in flight when the earlier returned (it may have been
// counted first). cause says why a fault of kind may have lost lost's
// write ("" if it may not); a fault counts whose span (lostBy) overlaps
// lost's invocation up to the other's return. A regression so explained
// is measured once, and the order is checked afresh from the token after
// it.
func (c *nameCheck) tokenOrder(check, what string, ops []*history.Operation, distinct bool, cause func(kind string, lost *history.Operation) string) {
	if len(ops) == 0 {
		return
	}
	lossy := func(lost, other *history.Operation) string {
		var why string
		c.lostBy(lost.Call, other.Return, func(f *history.Fault) bool {
			why = cause(f.Kind, lost)
			return why != ""
		})
		return why
	}
	first := make(map[int64]*history.Operation, len(ops))
	for _, o := range ops {
		if !distinct {
			break
		}
		if p, dup := first[o.Token]; dup {
			side, why := c.side(p.Proc), lossy(p, o)
			if why == "" && o.Call < p.Return {
				if why = lossy(o, p); why != "" {
					side = c.side(o.Proc)
				}
			}
			c.findingOf(side, why, check, max(p.Return, o.Return),
				"%s token %d to %s and to %s", what, o.Token, c.procName(p.Proc), c.procName(o.Proc))
			continue
		}
		first[o.Token] = o
	}
	byReturn := append([]*history.Operation(nil), ops...)
	sort.Slice(byReturn, func(i, j int) bool { return byReturn[i].Return < byReturn[j].Return })
	var top *history.Operation // the highest token returned so far
	j := 0
	for _, o := range ops {
		for ; j < len(byReturn) && byReturn[j].Return < o.Call; j++ {
			if top == nil || byReturn[j].Token > top.Token {
				top = byReturn[j]
			}
		}
		if top == nil || o.Token >= top.Token {
			continue
		}
		cause := lossy(top, o)
		c.findingOf(c.side(top.Proc), cause, check, o.Return, "%s token %d to %s after token %d to %s had returned",
			what, o.Token, c.procName(o.Proc), top.Token, c.procName(top.Proc))
		if cause != "" {
			// Afresh: o counts once it has returned, as every op does;
			// those concurrent with it are not ordered against it.
			top = nil
		}
	}
}

// grantTokens checks the tokens acquisitions were granted.
func (c *nameCheck) grantTokens() {
	var ops []*history.Operation
	for _, o := range c.ops {
		if o.Kind == history.OpAcquire && o.Outcome == history.OutcomeOK && o.Token != 0 {
			ops = append(ops, o)
		}
	}
	m := c.run.Manifest
	c.tokenOrder(CheckGrantTokens, "granted", ops, true, func(kind string, lost *history.Operation) string {
		// relock's acquisitions were acknowledged by a replica (on a
		// service with WithReplicaAck), Redisson's tokens were not.
		if m.LosesLocksUnder(kind) || c.run.Procs[lost.Proc].Side == "java" && m.LosesUnackedUnder(kind) {
			return kind
		}
		return ""
	})
}

// storeTokens checks the tokens of the writes the fenced store accepted
// (one holder may write twice with its token).
func (c *nameCheck) storeTokens() {
	var ops []*history.Operation
	for _, o := range c.ops {
		if o.Kind == history.OpWrite && o.Outcome == history.OutcomeOK {
			ops = append(ops, o)
		}
	}
	c.tokenOrder(CheckStoreTokens, "the store accepted", ops, false, func(kind string, _ *history.Operation) string {
		if c.run.Manifest.LosesDataUnder(kind) {
			return kind
		}
		return ""
	})
}
