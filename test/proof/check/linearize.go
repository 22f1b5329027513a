package check

import (
	"fmt"
	"math"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/anishathalye/porcupine"

	"github.com/relock-go/relock/test/proof/history"
)

// regOp is one register operation of a name. An operation of unknown
// outcome gets as ret the end of the window in which it may still take
// effect (its closure), or math.MaxInt64.
type regOp struct {
	call, ret int64
	in        regInput
	out       regOutput
	proc      int32
	id        int64
}

func (o *regOp) known() bool { return o.out.outcome.Known() }

// chunk is a piece of a register's history checked on its own, from any
// of the states init: it starts where every operation of known outcome
// before it had returned, and the operations of unknown outcome still open
// there are carried into it (invoked at the cut) as well as left in the
// chunk before.
type chunk struct {
	ops   []regOp
	init  []regState
	lossy string // a fault that may have lost writes during the chunk
}

// fencedStore reports whether the workload's register is the fenced store,
// guarded by the holders' tokens (a term's token for an election).
func fencedStore(workload string) bool {
	return workload == history.Fenced || workload == history.Election
}

// registerOps returns the name's reads and writes, with the closure of
// each one of unknown outcome: on a fenced register, once an operation
// with a higher token has taken effect, the highest token seen is above
// its own and it can change nothing; without fencing, Config.Horizon after
// its invocation (or after the end of a fault it overlaps). A fault that
// may lose writes ends every window open across it: the store is restarted
// or replaced, and connections with it.
func (c *nameCheck) registerOps() []regOp {
	var ops []regOp
	for _, o := range c.ops {
		if o.Kind != history.OpRead && o.Kind != history.OpWrite {
			continue
		}
		ops = append(ops, regOp{call: o.Call, ret: o.Return, proc: o.Proc, id: o.ID,
			in:  regInput{write: o.Kind == history.OpWrite, token: o.Token, value: o.Value},
			out: regOutput{outcome: o.Outcome, value: o.Value}})
	}
	type okAt struct{ ret, token int64 }
	var oks []okAt
	for _, o := range ops {
		if o.out.outcome == history.OutcomeOK {
			oks = append(oks, okAt{o.ret, o.in.token})
		}
	}
	sort.Slice(oks, func(i, j int) bool { return oks[i].ret < oks[j].ret })
	for i := 1; i < len(oks); i++ {
		oks[i].token = max(oks[i].token, oks[i-1].token) // the highest token taken effect by then
	}
	horizon := int64(c.cfg.Horizon)
	for i := range ops {
		u := &ops[i]
		if u.known() {
			continue
		}
		u.ret = math.MaxInt64
		if fencedStore(c.spec.Workload) {
			if j := sort.Search(len(oks), func(j int) bool { return oks[j].token > u.in.token }); j < len(oks) {
				u.ret = max(oks[j].ret, u.call) + 1
			}
		} else {
			u.ret = u.call + horizon
			for grown := true; grown; {
				grown = false
				c.fi.each(u.call, u.ret, func(f *history.Fault) bool {
					if f.End+horizon > u.ret {
						u.ret, grown = f.End+horizon, true
					}
					return true
				})
			}
		}
		c.fi.each(u.call, u.ret, func(f *history.Fault) bool {
			if c.run.Manifest.LosesDataUnder(f.Kind) {
				u.ret = min(u.ret, max(f.End, u.call)+1)
				return false
			}
			return true
		})
	}
	return ops
}

// chunks cuts the register's history into chunks, and returns them with
// the states settled after the last one. A cut falls where every operation
// of known outcome invoked before it has returned, once a chunk holds
// Config.ChunkOps operations and the state there is settled to one (or it
// grew four times that long). A fault that may lose writes gets a chunk of
// its own (cut before it where the history allows), and the chunk after it
// starts from an unknown state.
func (c *nameCheck) chunks(ops []regOp) ([]chunk, []regState) {
	target := c.cfg.ChunkOps
	var lossy []history.Fault
	for _, f := range c.run.Faults {
		if c.run.Manifest.LosesDataUnder(f.Kind) {
			lossy = append(lossy, f)
		}
	}
	var out []chunk
	cur := chunk{init: []regState{freshRegister}}
	own, nextTry, li := 0, 0, 0
	lastKnown, resetAfter := int64(math.MinInt64), int64(-1)
	cut := func(at int64, next []regState) {
		var carried []regOp
		for _, o := range cur.ops {
			if !o.known() && o.ret > at {
				o.call = at
				carried = append(carried, o)
			}
		}
		out = append(out, cur)
		cur = chunk{ops: carried, init: next}
		own, lastKnown = 0, math.MinInt64
	}
	for i, o := range ops {
		quiet := own > 0 && o.call > lastKnown
		switch {
		case quiet && resetAfter >= 0 && o.call > resetAfter:
			cut(o.call, []regState{unknownRegister})
			resetAfter = -1
		case quiet && li < len(lossy) && lossy[li].Start <= o.call && cur.lossy == "":
			cut(o.call, settle(&cur, o.call))
		case quiet && cur.lossy == "" && own >= target && i >= nextTry:
			if s := settle(&cur, o.call); len(s) == 1 || own >= 4*target {
				cut(o.call, s)
			} else {
				nextTry = i + target/8
			}
		}
		for ; li < len(lossy) && lossy[li].Start <= o.call; li++ {
			if !strings.Contains(cur.lossy, lossy[li].Kind) {
				cur.lossy = strings.TrimPrefix(cur.lossy+", "+lossy[li].Kind, ", ")
			}
			resetAfter = max(resetAfter, lossy[li].End)
		}
		cur.ops = append(cur.ops, o)
		own++
		if o.known() {
			lastKnown = max(lastKnown, o.ret)
		}
	}
	out = append(out, cur)
	return out, settle(&out[len(out)-1], math.MaxInt64)
}

// porcupineOps turns a chunk into porcupine's operations, one client per
// process.
func (c *nameCheck) porcupineOps(ch *chunk) []porcupine.Operation {
	clients := map[int32]int{}
	ops := make([]porcupine.Operation, len(ch.ops))
	for i, o := range ch.ops {
		id, ok := clients[o.proc]
		if !ok {
			id = len(clients)
			clients[o.proc] = id
		}
		ops[i] = porcupine.Operation{ClientId: id, Input: o.in, Output: o.out, Call: o.call, Return: o.ret,
			Metadata: fmt.Sprintf("%s #%d", c.run.Procs[o.proc].Name, o.id)}
	}
	return ops
}

var unsafeFileChars = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// explainIllegal runs porcupine again on an illegal chunk, to find where
// it fails: the operation of earliest return that no linearization of the
// longest linearizable part takes in (nil if porcupine cannot say in
// time). It writes porcupine's visualization if the run's budget allows,
// and returns its path.
func (c *nameCheck) explainIllegal(ch *chunk, n int) (culprit *regOp, path string, err error) {
	model := registerModel(ch.init)
	res, info := porcupine.CheckOperationsVerbose(model, c.porcupineOps(ch), c.cfg.ChunkTimeout)
	if res == porcupine.Illegal {
		var longest []int
		for _, part := range info.PartialLinearizations() {
			for _, l := range part {
				if len(l) > len(longest) {
					longest = l
				}
			}
		}
		in := make([]bool, len(ch.ops))
		for _, i := range longest {
			in[i] = true
		}
		for i := range ch.ops {
			if !in[i] && (culprit == nil || ch.ops[i].ret < culprit.ret) {
				culprit = &ch.ops[i]
			}
		}
	}
	if c.visuals.Add(1) > int64(c.cfg.MaxVisualizations) {
		return culprit, "", nil
	}
	path = filepath.Join(c.cfg.VisualDir, fmt.Sprintf("%s-register-%d.html", unsafeFileChars.ReplaceAllString(c.name, "_"), n))
	return culprit, path, porcupine.VisualizePath(model, info, path)
}
