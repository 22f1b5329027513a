package scripts

import (
	"context"
	_ "embed"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/internal/keys"
)

var (
	//go:embed election_common.lua
	electionCommonSrc string
	//go:embed election_elect.lua
	electionElectSrc string
	//go:embed election_proclaim.lua
	electionProclaimSrc string
	//go:embed election_end.lua
	electionEndSrc string
	//go:embed election_state.lua
	electionStateSrc string

	electionElect    = redis.NewScript(electionCommonSrc + electionElectSrc)
	electionProclaim = redis.NewScript(electionCommonSrc + electionProclaimSrc)
	electionEnd      = redis.NewScript(electionCommonSrc + electionEndSrc)
	// The state is read by observers of any name: it checks that the
	// name holds a lock (hold.lua's not_a_lock) before it reads.
	electionState = redis.NewScript(takeSrc + electionCommonSrc + electionStateSrc)
)

// The kinds of change an election's log records (Change.Kind).
const (
	Elected    = "elected"    // a term began
	Proclaimed = "proclaimed" // its leader changed its value
	Resigned   = "resigned"   // its leader resigned: no leader
	Ended      = "ended"      // it ended otherwise (lost, closed): no leader
)

// Election is one leader election: the fair lock name (the term: its
// holder leads), the fenced lock's token counter of name (each term's
// token), the election's record (keys.Election: a hash of its current
// state), its log (keys.ElectionLog: a stream of its changes, each the
// state it left) and its channel (keys.ElectionChannel), where every
// change is announced. It holds no state and is safe for concurrent use.
type Election struct {
	elect []string // lock hash, token counter, record, log, channel
	keys  []string // lock hash, record, log, channel
}

// NewElection returns the election called name.
func NewElection(name string) *Election {
	return &Election{
		elect: []string{name, keys.Token(name), keys.Election(name), keys.ElectionLog(name), keys.ElectionChannel(name)},
		keys:  []string{name, keys.Election(name), keys.ElectionLog(name), keys.ElectionChannel(name)},
	}
}

// Change is one change of an election, and the state it left: the record
// and each entry of the log is one.
type Change struct {
	Seq   int64  // the change's number: changes are numbered from 1
	Kind  string // Elected, Proclaimed, Resigned or Ended
	Token int64  // the term's fencing token
	Owner string // the term's owner id
	Value string // the leader's value
	Since time.Time
	At    time.Time // when the change was made
}

// Leads reports whether the change left a leader: the term leads.
func (c Change) Leads() bool { return c.Kind == Elected || c.Kind == Proclaimed }

// Writes is how a script that may change an election's log writes it: the
// command that announces a change, and how many entries the log keeps.
type Writes struct {
	Publish string
	Keep    int
}

// Term is a term as the election's log records it.
type Term struct {
	Token int64
	Since time.Time
	Seq   int64 // its entry in the log
}

// Elect begins the term of owner, which holds the lock, with value: it
// takes the next token and records the term, ending the one the log shows
// (its holder lost the lock). A resent request returns the same term. ok
// is false when owner does not hold the lock.
func (e *Election) Elect(ctx context.Context, rdb redis.Scripter, owner, value string, w Writes) (t Term, ok bool, err error) {
	v, err := electionElect.Run(ctx, rdb, e.elect, owner, value, w.Publish, w.Keep).Int64Slice()
	switch {
	case err != nil:
		return Term{}, false, err
	case len(v) == 1 && v[0] == 0:
		return Term{}, false, nil
	case len(v) != 3:
		return Term{}, false, fmt.Errorf("unexpected elect reply %v", v)
	}
	return Term{Token: v[0], Since: time.UnixMilli(v[1]), Seq: v[2]}, true, nil
}

// The outcomes of Proclaim.
const (
	ProclaimedValue = 1  // the log shows the term with the value
	TermOver        = 0  // the log no longer shows the term
	LockGone        = -1 // the owner no longer holds the lock
)

// Proclaim records value as the value of owner's term token, if the log
// shows it leading and owner holds the lock; see the outcomes.
func (e *Election) Proclaim(ctx context.Context, rdb redis.Scripter, owner string, token int64, value string, w Writes) (int64, error) {
	return electionProclaim.Run(ctx, rdb, e.keys, owner, token, value, w.Publish, w.Keep).Int64()
}

// End records the end of owner's term token, if the log shows it leading:
// Resigned (or Ended when owner no longer holds the lock), or Ended. It
// reports whether it did.
func (e *Election) End(ctx context.Context, rdb redis.Scripter, owner string, token int64, kind string, w Writes) (bool, error) {
	n, err := electionEnd.Run(ctx, rdb, e.keys, owner, token, kind, w.Publish, w.Keep).Int64()
	return n == 1, err
}

// ElectionState is an election as Election.State reads it.
type ElectionState struct {
	// LockTTL is the lock's PTTL: negative when it has none (-2: no lock).
	LockTTL time.Duration
	// Last is the election's record, its current state; zero (Seq 0)
	// when it has none.
	Last Change
	// Held reports that Last shows a term whose owner holds the lock: the
	// election has a leader.
	Held bool
	// After are the log's entries after the one asked for, in order.
	After []Change
}

// NoChanges asks State for the current state alone.
const NoChanges = -1

// State reads the election: its current state and the log's entries
// after number seen (none when seen is the last, or NoChanges). With repair, a term the
// log shows leading whose owner no longer holds the lock is recorded as
// ended first (w is then how); without, nothing is changed.
func (e *Election) State(ctx context.Context, rdb redis.Scripter, seen int64, repair bool, w Writes) (ElectionState, error) {
	flag := 0
	if repair {
		flag = 1
	}
	if w.Publish == "" {
		w.Publish, w.Keep = Publish, 1 // not used: nothing is written
	}
	v, err := electionState.Run(ctx, rdb, e.keys, seen, flag, w.Publish, w.Keep).Slice()
	if err != nil {
		return ElectionState{}, err
	}
	if len(v) < 3 {
		return ElectionState{}, fmt.Errorf("unexpected election state reply %v", v)
	}
	ttl, _ := v[0].(int64)
	held, _ := v[1].(int64)
	s := ElectionState{LockTTL: time.Duration(ttl) * time.Millisecond, Held: held == 1}
	if kv, _ := v[2].([]any); len(kv) > 0 {
		if s.Last, err = RecordOf(fieldsOf(kv)); err != nil {
			return ElectionState{}, err
		}
	}
	for _, x := range v[3:] {
		c, err := entryOf(x)
		if err != nil {
			return ElectionState{}, err
		}
		s.After = append(s.After, c)
	}
	return s, nil
}

// fieldsOf is a flat list of fields and values, as HGETALL in a script
// gives them, as a map.
func fieldsOf(kv []any) map[string]string {
	fields := make(map[string]string, len(kv)/2)
	for i := 0; i+1 < len(kv); i += 2 {
		f, _ := kv[i].(string)
		v, _ := kv[i+1].(string)
		fields[f] = v
	}
	return fields
}

// entryOf reads an entry of the log as XRANGE in a script gives it: {id,
// {field, value, ...}}.
func entryOf(x any) (Change, error) {
	raw, _ := x.([]any)
	if len(raw) != 2 {
		return Change{}, fmt.Errorf("unexpected election log entry %v", x)
	}
	id, _ := raw[0].(string)
	kv, _ := raw[1].([]any)
	fields := fieldsOf(kv)
	fields["seq"], _, _ = strings.Cut(id, "-")
	return RecordOf(fields)
}

// RecordOf reads an election's record, the fields of its hash (HGETALL).
func RecordOf(fields map[string]string) (Change, error) {
	var err error
	num := func(f string) int64 {
		v, perr := strconv.ParseInt(fields[f], 10, 64)
		if perr != nil && err == nil {
			err = fmt.Errorf("election record: field %s: %w", f, perr)
		}
		return v
	}
	c := Change{Seq: num("seq"), Kind: fields["kind"], Token: num("token"), Owner: fields["owner"], Value: fields["value"]}
	c.Since, c.At = time.UnixMilli(num("since")), time.UnixMilli(num("at"))
	switch c.Kind {
	case Elected, Proclaimed, Resigned, Ended:
	default:
		if err == nil {
			err = fmt.Errorf("election record: unknown kind %q", c.Kind)
		}
	}
	return c, err
}
