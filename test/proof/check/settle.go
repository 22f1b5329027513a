package check

import (
	"slices"

	"github.com/relock-go/relock/test/proof/history"
)

// maxSettled bounds the states settle returns; beyond it the value is
// taken as unknown.
const maxSettled = 32

// settle returns the states the store may be in at a cut at time at after
// ch, as far as the history shows whatever order porcupine may find:
//   - the highest token is the highest taken effect, exact unless an
//     operation of unknown outcome not carried on may have raised it;
//   - the value is that of an ok operation x, or of a write that may have
//     taken effect after x: every other write either returned before x
//     was invoked, or carries a lower token than x (so x made it a no-op),
//     or was rejected from the start. Without an ok operation it is one of
//     the values ch began with, or of a write that may have taken effect.
//
// Operations still open at the cut are carried into the next chunk, which
// covers their raising the highest token before the cut too (there they
// take effect first). All the states share hi and exact (as ch.init's
// do); only the value differs.
func settle(ch *chunk, at int64) []regState {
	s := ch.init[0]
	hi, okWrite := s.hi, false
	var last *regOp
	for i := range ch.ops {
		o := &ch.ops[i]
		if o.out.outcome != history.OutcomeOK {
			continue
		}
		hi = max(hi, o.in.token)
		okWrite = okWrite || o.in.write
		if last == nil || o.call > last.call {
			last = o
		}
	}
	exact := s.exact || okWrite
	var lastHi *regOp
	for i := range ch.ops {
		o := &ch.ops[i]
		if o.out.outcome == history.OutcomeOK && o.in.token == hi && (lastHi == nil || o.call > lastHi.call) {
			lastHi = o
		}
		if !o.known() && o.ret <= at && o.in.token > hi {
			exact = false
		}
	}
	// A write may have taken effect unless it was rejected (fail), or
	// rejected from the start. One still open at the cut counts too:
	// carried into the next chunk, it starts there behind every operation
	// of this one, where a higher token may reject it.
	mayWrite := func(w *regOp) bool {
		return w.in.write && w.out.outcome != history.OutcomeFail && !(s.exact && w.in.token < s.hi)
	}
	// valuesAfter returns x's value and those of the writes that may have
	// taken effect after it.
	valuesAfter := func(x *regOp) []int64 {
		v := x.out.value
		if x.in.write {
			v = x.in.value
		}
		vals := []int64{v}
		for i := range ch.ops {
			if w := &ch.ops[i]; w != x && mayWrite(w) && w.ret >= x.call && w.in.token >= x.in.token {
				vals = append(vals, w.in.value)
			}
		}
		return vals
	}
	var vals []int64
	known := true
	switch {
	case last != nil:
		vals = valuesAfter(last)
		if lastHi != nil && lastHi != last {
			if v := valuesAfter(lastHi); len(v) < len(vals) {
				vals = v
			}
		}
	default:
		for _, st := range ch.init {
			known = known && st.known
			vals = append(vals, st.value)
		}
		for i := range ch.ops {
			if w := &ch.ops[i]; mayWrite(w) {
				vals = append(vals, w.in.value)
			}
		}
	}
	slices.Sort(vals)
	vals = slices.Compact(vals)
	if !known || len(vals) > maxSettled {
		return []regState{{hi: hi, exact: exact}}
	}
	out := make([]regState, len(vals))
	for i, v := range vals {
		out[i] = regState{value: v, known: true, hi: hi, exact: exact}
	}
	return out
}
