package check

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/relock-go/relock/test/proof/history"
)

// simulate returns the history of a store that keeps its promise: procs
// processes read and write it concurrently, each operation taking effect
// at a random moment of its span; a process holds a token it took from a
// counter that only grows and sometimes keeps it long after newer ones
// were taken (a stale holder, whose writes the store rejects). Now and
// then an operation's outcome is lost (info, or the process is killed:
// no completion, and a new process takes its place), whether or not it
// took effect: two operations in every unknownEvery. fenced false: every
// token 0.
func simulate(seed uint64, fenced bool, ops, unknownEvery int) *history.Run {
	rng := rand.New(rand.NewPCG(seed, 1))
	run := &history.Run{Names: []string{"n"}, Start: start} // no Dir: no visualization
	const procs = 4
	type event struct {
		at  int64 // the moment it takes effect
		op  int   // index in run.Ops
		hit bool  // it takes effect at all
	}
	var events []event
	var tokens int64
	type proc struct {
		idx   int32
		t     int64 // when it may invoke next
		token int64
		id    int64
	}
	ps := make([]*proc, procs)
	newProc := func(i int, t int64) {
		ps[i] = &proc{idx: int32(len(run.Procs)), t: t}
		run.Procs = append(run.Procs, history.Proc{Name: "go-" + itoa(len(run.Procs)), Side: "go"})
	}
	for i := range ps {
		newProc(i, start)
	}
	for len(run.Ops) < ops {
		i := rng.IntN(procs)
		p := ps[i]
		if fenced && (p.token == 0 || rng.IntN(4) == 0) {
			tokens++
			p.token = tokens
		}
		call := p.t + int64(rng.IntN(3000))*int64(time.Microsecond)
		dur := int64(1+rng.IntN(5000)) * int64(time.Microsecond)
		p.id++
		o := history.Operation{Proc: p.idx, ID: p.id, Call: call, Return: call + dur, Kind: history.OpRead, Token: p.token, Outcome: history.OutcomeOK}
		if rng.IntN(2) == 0 {
			o.Kind, o.Value = history.OpWrite, int64(len(run.Ops))
		}
		e := event{at: call + rng.Int64N(dur), op: len(run.Ops), hit: true}
		switch r := rng.IntN(unknownEvery); {
		case r == 0: // killed: a new process takes its place
			o.Return, o.Outcome = 0, history.OutcomeNone
			e.hit = rng.IntN(2) == 0
			newProc(i, call+dur)
		case r == 1:
			o.Outcome = history.OutcomeInfo
			e.hit = rng.IntN(2) == 0
		}
		p.t = call + dur
		run.Ops = append(run.Ops, o)
		events = append(events, e)
	}
	slices.SortFunc(events, func(a, b event) int { return cmp.Compare(a.at, b.at) })
	var value, hi int64
	for _, e := range events {
		o := &run.Ops[e.op]
		if !e.hit {
			continue
		}
		switch {
		case o.Kind == history.OpRead:
			hi = max(hi, o.Token)
			if o.Outcome == history.OutcomeOK {
				o.Value = value
			}
		case o.Token >= hi:
			value, hi = o.Value, o.Token
		case o.Outcome == history.OutcomeOK:
			o.Outcome = history.OutcomeFail
		}
	}
	slices.SortStableFunc(run.Ops, func(a, b history.Operation) int { return cmp.Compare(a.Call, b.Call) })
	spec := plain
	if fenced {
		spec = history.NameSpec{Workload: history.Fenced, LeaseMS: 1000, WaitMS: -1}
	}
	run.Manifest = history.Manifest{Names: map[string]history.NameSpec{"n": spec}}
	run.LastT = run.Ops[len(run.Ops)-1].Call
	run.End = run.LastT
	return run
}

// Simulated histories of a store that keeps its promise are linearizable
// however they are cut into chunks: the settled state at each cut, and the
// operations of unknown outcome carried across it, never make a right
// history wrong. And one read changed to a value nobody wrote makes it
// wrong (in its chunk, and maybe the next: the state settled after it
// believes the read).
func TestRegisterChunksAreSound(t *testing.T) {
	for seed := uint64(1); seed <= 8; seed++ {
		for _, fenced := range []bool{true, false} {
			run := simulate(seed, fenced, 300, []int{4, 20}[seed%2])
			for _, chunkOps := range []int{1, 3, 1000} {
				r, err := Check(run, Config{ChunkOps: chunkOps, Horizon: 10 * time.Millisecond})
				if err != nil {
					t.Fatal(err)
				}
				if c := r.Names[0].ByCheck[CheckRegister]; c != nil || r.Names[0].Register != "ok" {
					t.Fatalf("seed %d, fenced %v, chunks of %d: register %q, %+v; findings %v", seed, fenced, chunkOps, r.Names[0].Register, c, r.Findings)
				}
			}
			// Where half the outcomes are unknown, porcupine may take long to
			// show a history wrong: the change is made where one in ten is.
			run = simulate(seed, fenced, 300, 20)
			for i := len(run.Ops) / 2; i < len(run.Ops); i++ {
				if o := &run.Ops[i]; o.Kind == history.OpRead && o.Outcome == history.OutcomeOK {
					o.Value = -1
					break
				}
			}
			r, err := Check(run, Config{ChunkOps: 5, Horizon: 10 * time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			if c := r.Names[0].ByCheck[CheckRegister]; c == nil || c.Violations == 0 || c.Violations > 2 {
				t.Fatalf("seed %d, fenced %v: a read of -1 gave register findings %+v, want one violation or two", seed, fenced, c)
			}
		}
	}
}
