package check

import (
	"fmt"
	"strings"

	"github.com/anishathalye/porcupine"

	"github.com/relock-go/relock/test/proof/history"
)

// The register model: a value guarded by fencing tokens, as the fenced
// store keeps it. A read with token t raises the highest token seen to
// max(highest, t) and returns the value; a write with token t is accepted
// (the value replaced, highest = t) if t >= highest, else rejected. A
// register without fencing is the same with every token 0: every write
// accepted.
//
// The model's state is what is known of the store, so that a chunk of the
// history can start where the store's state is only partly known (after a
// fault that lost writes, or where the cut between chunks leaves it open):
// the value may be unknown (a read then teaches it), and the highest token
// may be only a lower bound (inexact). From the start of a run both are
// known: value 0, no token seen.

// regInput is a register operation's input.
type regInput struct {
	write        bool
	token, value int64 // value: the value written
}

// regOutput is its outcome: OutcomeOK with the value read, OutcomeFail
// (rejected), or unknown (OutcomeInfo, OutcomeNone).
type regOutput struct {
	outcome history.Outcome
	value   int64
}

// regState is what is known of the store.
type regState struct {
	value int64
	known bool // the value is known
	hi    int64
	exact bool // hi is the highest token, not only a lower bound
}

var (
	// freshRegister is a register at the start of a run.
	freshRegister = regState{known: true, exact: true}
	// unknownRegister knows nothing.
	unknownRegister = regState{}
)

// step returns the states the store may be in after the operation, from s;
// none if the operation cannot have had that outcome. An operation of
// unknown outcome may not have happened at all: s is among the results.
func step(s regState, in regInput, out regOutput) []regState {
	if !in.write {
		switch out.outcome {
		case history.OutcomeOK:
			if s.known && s.value != out.value {
				return nil
			}
			return []regState{{value: out.value, known: true, hi: max(s.hi, in.token), exact: s.exact}}
		case history.OutcomeFail: // refused: a higher token was seen
			if in.token < s.hi {
				return []regState{s}
			}
			if s.exact {
				return nil
			}
			r := s
			r.hi = in.token + 1
			return []regState{r}
		default:
			r := s
			r.hi = max(s.hi, in.token)
			if r == s {
				return []regState{s}
			}
			return []regState{s, r}
		}
	}
	accepted := regState{value: in.value, known: true, hi: in.token, exact: true}
	rejected := s
	rejected.hi = max(s.hi, in.token+1) // only when inexact: then hi was a lower bound
	switch out.outcome {
	case history.OutcomeOK:
		if in.token < s.hi {
			return nil
		}
		return []regState{accepted}
	case history.OutcomeFail:
		if in.token < s.hi {
			return []regState{s}
		}
		if s.exact {
			return nil
		}
		return []regState{rejected}
	default:
		if in.token < s.hi {
			return []regState{s}
		}
		if s.exact {
			return []regState{s, accepted}
		}
		return []regState{s, accepted, rejected}
	}
}

// registerModel is the model for porcupine, starting from any of init.
func registerModel(init []regState) porcupine.Model {
	return (&porcupine.NondeterministicModel{
		Init: func() []any {
			states := make([]any, len(init))
			for i, s := range init {
				states[i] = s
			}
			return states
		},
		Step: func(state, input, output any) []any {
			next := step(state.(regState), input.(regInput), output.(regOutput))
			out := make([]any, len(next))
			for i, s := range next {
				out[i] = s
			}
			return out
		},
		Hash: func(state any) uint64 {
			s := state.(regState)
			h := uint64(s.value)*0x9e3779b97f4a7c15 ^ uint64(s.hi)*0xc2b2ae3d27d4eb4f
			if s.known {
				h ^= 1
			}
			if s.exact {
				h ^= 2
			}
			return h
		},
		DescribeOperation: func(input, output any) string {
			in, out := input.(regInput), output.(regOutput)
			res := "?"
			switch {
			case out.outcome == history.OutcomeOK && !in.write:
				res = fmt.Sprint(out.value)
			case out.outcome == history.OutcomeOK:
				res = "ok"
			case out.outcome == history.OutcomeFail:
				res = "rejected"
			}
			if in.write {
				return fmt.Sprintf("write(%d, token %d) -> %s", in.value, in.token, res)
			}
			return fmt.Sprintf("read(token %d) -> %s", in.token, res)
		},
		DescribeState: func(state any) string { return state.(regState).String() },
	}).ToModel()
}

func (s regState) String() string {
	v, hi := "?", fmt.Sprint(s.hi)
	if s.known {
		v = fmt.Sprint(s.value)
	}
	if !s.exact {
		hi = ">=" + hi
	}
	return fmt.Sprintf("value %s, highest token %s", v, hi)
}

// describeStates describes the states a chunk may start from.
func describeStates(states []regState) string {
	if len(states) == 1 {
		return states[0].String()
	}
	vals := make([]string, len(states))
	for i, s := range states {
		vals[i] = fmt.Sprint(s.value)
	}
	return fmt.Sprintf("value one of %s, %s", strings.Join(vals, " "), strings.SplitN(states[0].String(), ", ", 2)[1])
}
