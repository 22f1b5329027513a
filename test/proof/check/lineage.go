package check

import (
	"sort"

	"github.com/relock-go/relock/test/proof/history"
)

// The counter's lineage. Each accepted write stores the value its writer
// read plus one: it continues the write whose value it read, its source.
// Without lost updates the writes form one line. A write whose source
// another write had already continued (a holder writing what it read
// before its lock was gone) starts a second branch beside the first:
// the two are siblings, and the branch that does not lead to the
// counter's final value is lost, its first write and every write made on
// it. The writes of the surviving branch that repeat the lost branch's
// values (the same increments written again after the counter was set
// back) are not lost updates of their own: their sources differ.

// Sources that are not a write of the history.
const (
	fromStart   = -1 // the write read the counter's initial value, 0
	fromUnknown = -2 // no read before it, or no accepted write of the value read
)

// lineage is the name's accepted writes, by return, with each one's
// source (an index into writes, or fromStart or fromUnknown).
type lineage struct {
	writes []*regOp
	source []int
}

// sibling is two accepted writes that continued one source (or, of
// unknown sources, wrote one value): the later one lost the earlier's
// update, or the earlier's branch lost the later's.
type sibling struct{ first, later int }

// lineageOf traces the accepted writes among ops: a write's read is its
// process's last read before it, if that read the value below the one
// written; its source, the last accepted write of that value to have
// returned by the read's return (else the last invoked by then).
func lineageOf(ops []regOp) lineage {
	byCall := make([]*regOp, len(ops))
	for i := range ops {
		byCall[i] = &ops[i]
	}
	sort.SliceStable(byCall, func(i, j int) bool { return byCall[i].call < byCall[j].call })
	var l lineage
	readOf := map[*regOp]*regOp{}
	lastRead := map[int32]*regOp{}
	for _, o := range byCall {
		switch {
		case !o.in.write && o.out.outcome == history.OutcomeOK:
			lastRead[o.proc] = o
		case o.in.write && o.out.outcome == history.OutcomeOK:
			l.writes = append(l.writes, o)
			if r := lastRead[o.proc]; r != nil && r.out.value == o.in.value-1 {
				readOf[o] = r
			}
		}
	}
	sort.SliceStable(l.writes, func(i, j int) bool { return l.writes[i].ret < l.writes[j].ret })
	byValue := map[int64][]int{}
	for i, w := range l.writes {
		byValue[w.in.value] = append(byValue[w.in.value], i)
	}
	l.source = make([]int, len(l.writes))
	for i, w := range l.writes {
		l.source[i] = fromUnknown
		r := readOf[w]
		if r == nil {
			continue
		}
		if r.out.value == 0 {
			l.source[i] = fromStart
		}
		returned, invoked := -1, -1
		for _, j := range byValue[r.out.value] {
			if s := l.writes[j]; s.ret <= r.ret {
				returned = j
			} else if s.call < r.ret {
				invoked = j
			}
		}
		switch {
		case returned >= 0:
			l.source[i] = returned
		case invoked >= 0:
			l.source[i] = invoked
		}
	}
	return l
}

// siblings returns the pairs of writes of one source, each later one
// paired with the first: writes of unknown source are siblings when they
// wrote one value.
func (l lineage) siblings() []sibling {
	type key struct {
		source int
		value  int64
	}
	first := map[key]int{}
	var out []sibling
	for i, w := range l.writes {
		k := key{l.source[i], w.in.value}
		if l.source[i] >= 0 {
			k.value = 0
		}
		if f, ok := first[k]; ok {
			out = append(out, sibling{f, i})
		} else {
			first[k] = i
		}
	}
	return out
}

// cutOff returns the writes lost on a branch cut off at a pair of
// siblings (the lost branch's own first write, a member of the pair, not
// counted), each with the index in pairs of the pair where its branch
// left the line that ends at final: the last accepted write of the
// counter's final value. A lost write whose branch leaves from no pair
// (its line begins at the start or at an unknown source) has -1.
func (l lineage) cutOff(pairs []sibling, final int64) map[int]int {
	onLine := map[int]bool{}
	end := -1
	for i, w := range l.writes {
		if w.in.value == final {
			end = i
		}
	}
	for i := end; i >= 0; i = l.source[i] {
		onLine[i] = true
	}
	member := map[int]int{}
	for n, p := range pairs {
		member[p.later] = n
		if _, seen := member[p.first]; !seen || onLine[p.later] {
			member[p.first] = n // the pair whose other write survived, if one did
		}
	}
	// A source wrote a lower value: by value, each write's source is
	// settled before it.
	order := make([]int, len(l.writes))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return l.writes[order[a]].in.value < l.writes[order[b]].in.value })
	cut := map[int]int{}
	for _, i := range order {
		if _, isMember := member[i]; isMember || onLine[i] {
			continue
		}
		cut[i] = -1
		if s := l.source[i]; s >= 0 {
			if n, ok := member[s]; ok {
				cut[i] = n
			} else if n, ok := cut[s]; ok {
				cut[i] = n
			}
		}
	}
	return cut
}
