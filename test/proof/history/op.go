package history

import "fmt"

// Kind is an operation (the op field), as a small number: a run of an
// hour holds millions of operations.
type Kind uint8

// The operations of the package doc.
const (
	OpAcquire Kind = iota + 1
	OpRelease
	OpLost
	OpRead
	OpWrite
	OpEnter
	OpLeave
	OpFault
	OpQueued
)

var kindNames = [...]string{"", "acquire", "release", "lost", "read", "write", "enter", "leave", "fault", "queued"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", k)
}

func parseKind(s string) (Kind, bool) {
	for i, n := range kindNames[1:] {
		if n == s {
			return Kind(i + 1), true
		}
	}
	return 0, false
}

// Mode is an rw operation's mode.
type Mode uint8

// The modes; ModeNone for every workload but rw.
const (
	ModeNone Mode = iota
	ModeRead
	ModeWrite
)

func (m Mode) String() string { return [...]string{"", "read", "write"}[m] }

func parseMode(s string) (Mode, bool) {
	switch s {
	case "":
		return ModeNone, true
	case "read":
		return ModeRead, true
	case "write":
		return ModeWrite, true
	}
	return 0, false
}

// Outcome is how an operation completed.
type Outcome uint8

// The outcomes: OutcomeNone when no completion was written (the process
// was killed, or stopped, or the run ended first).
const (
	OutcomeNone Outcome = iota
	OutcomeOK
	OutcomeFail
	OutcomeInfo
)

func (o Outcome) String() string { return [...]string{"none", OK, Fail, Info}[o] }

// Known reports whether the operation's effect is known: ok (it took
// effect) or fail (it did not). Info and none may or may not have.
func (o Outcome) Known() bool { return o == OutcomeOK || o == OutcomeFail }

// Operation is one operation: its invocation and completion paired.
type Operation struct {
	Call   int64 // invocation's t
	Return int64 // completion's t; 0 without one
	Value  int64 // write: the value written; read: the value read
	Token  int64
	Count  int64
	ID     int64
	Proc   int32 // index in Run.Procs
	Name   int32 // index in Run.Names
	Kind   Kind
	Mode   Mode
	Outcome
}

// Done reports whether the operation has a completion.
func (o *Operation) Done() bool { return o.Outcome != OutcomeNone }

// Proc is a process of the run.
type Proc struct {
	Name string // "go-3"
	Side string // "go", "java"
}

// Fault is one fault the nemesis injected.
type Fault struct {
	Kind   string
	Target string // a process, or anything else: every process
	Start  int64  // ns, when it began
	End    int64  // ns, when it was healed; the run's end if never
	Healed bool   // the nemesis wrote that it was healed
}

// Overlaps reports whether the fault overlaps [from, to].
func (f Fault) Overlaps(from, to int64) bool { return f.Start <= to && f.End >= from }
