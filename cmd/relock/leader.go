package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"github.com/relock-go/relock/rlock"
)

// leaderCommand is "relock leader": the leader of an election, and with
// --watch every change of it.
var leaderCommand = &command{
	name: "leader", synopsis: "[flags] NAME", minArgs: 1, maxArgs: 1,
	summary: "Leader prints the leader of the leader election NAME (rlock.Election): its\nvalue, fencing token, owner and since when it leads, and the candidates\nwaiting in line. With --watch it prints the leader, then a line at every\nchange (a new term, a value proclaimed, a term's end) until Ctrl-C, --count\nchanges or --for; watching records the end of a term whose lock expired.\nA name that holds anything else (a lock, a semaphore, a rate limiter...)\nis an error that says what it holds.",
	flags: func(fs *flag.FlagSet, o *options) {
		fs.BoolVar(&o.watchLeader, "watch", false, "follow the changes, one line each")
		fs.IntVar(&o.count, "count", 0, "with --watch: stop after `N` changes after the first line (0: no limit)")
		fs.DurationVar(&o.period, "for", 0, "with --watch: stop after `DURATION` (0: until Ctrl-C)")
	},
	check: func(o *options) error {
		if o.count < 0 || o.period < 0 {
			return usageError{"--count and --for cannot be negative"}
		}
		if !o.watchLeader && (o.count > 0 || o.period > 0) {
			return usageError{"--count and --for go with --watch"}
		}
		return nil
	},
	run: runLeader,
}

// leaderView is an election's leader as relock prints it.
type leaderView struct {
	Value string    `json:"value"`
	Token int64     `json:"token"`
	Since time.Time `json:"since"`
	Owner string    `json:"owner"`
	// Client is the client id part of Owner, and Label that Client's
	// label (rlock.WithClientName), absent when it has none; both are
	// absent from the lines of --watch.
	Client string             `json:"client,omitempty"`
	Label  *rlock.ClientLabel `json:"label,omitempty"`
}

// electionView is an election as "relock leader" prints it.
type electionView struct {
	Name string `json:"name"`
	// Leader is absent when the election has none.
	Leader *leaderView `json:"leader"`
	// Candidates are the candidates waiting in line, the next first.
	Candidates []queueView `json:"candidates"`
}

// leaderOf is the view of the leader l of a lock inspected as v (whose
// holders carry the leader's label); nil when l is.
func leaderOf(l *rlock.Leader, v lockView) *leaderView {
	if l == nil {
		return nil
	}
	lv := &leaderView{Value: l.Value, Token: l.Token, Since: l.Since.UTC(), Owner: l.Owner}
	for _, h := range v.Holders {
		if h.Owner == l.Owner {
			lv.Client, lv.Label = h.Client, h.Label
		}
	}
	return lv
}

// leaderFacts are the lines inspect adds for a leader election: its
// leader's value and token, or "none".
func leaderFacts(v lockView) [][]string {
	switch {
	case v.Leader != nil:
		return [][]string{{"leader", fmt.Sprintf("%s (token %d)", strconv.Quote(v.Leader.Value), v.Leader.Token)}}
	case v.Kind == string(rlock.KindElection):
		return [][]string{{"leader", "none"}}
	}
	return nil
}

// runLeader prints the election args[0], or with --watch follows it. A
// name that holds anything else than an election (any other kind, so
// that a kind added later is refused too) is an error that says what it
// holds; a name that holds nothing is an election nobody campaigned in.
func runLeader(ctx context.Context, s *session, args []string) error {
	name := args[0]
	info, now, err := s.inspect(ctx, name)
	if err != nil {
		return err
	}
	if info.Kind != rlock.KindElection && info.Kind != "" {
		return fmt.Errorf("%q is no leader election: it is a %s (relock inspect shows it)", name, kindText(info.Kind))
	}
	if s.o.watchLeader {
		return s.watchLeader(ctx, name)
	}
	v := newLockView(info, now)
	ev := electionView{Name: name, Leader: leaderOf(info.Leader, v), Candidates: v.Queue}
	if s.o.json {
		return writeJSON(s.e.stdout, ev)
	}
	writeElection(s.e.stdout, ev, info.Kind == "", now)
	return nil
}

// kindWords are the kinds of rlock in words.
var kindWords = map[rlock.Kind]string{
	rlock.KindMutex:           "lock",
	rlock.KindFencedMutex:     "fenced lock",
	rlock.KindFairMutex:       "fair lock",
	rlock.KindRWMutex:         "read-write lock",
	rlock.KindFairRWMutex:     "fair read-write lock",
	rlock.KindElection:        "leader election",
	rlock.KindSemaphore:       "semaphore",
	rlock.KindPermitSemaphore: "permit-expirable semaphore",
	rlock.KindCountDownLatch:  "count-down latch",
	rlock.KindRateLimiter:     "rate limiter",
	rlock.KindCount:           "count (a semaphore's, a latch's or any counter)",
}

// kindText is the kind k in words; a kind that has none (a newer one) is
// its name.
func kindText(k rlock.Kind) string {
	if w, ok := kindWords[k]; ok {
		return w
	}
	return string(k)
}

// writeElection writes ev as "relock leader" shows it at now; absent says
// that Redis holds nothing of the name.
func writeElection(w io.Writer, ev electionView, absent bool, now time.Time) {
	facts := [][]string{{"election", ev.Name}}
	if l := ev.Leader; l == nil {
		none := "none"
		if absent {
			none += " (Redis holds nothing of this name: nobody campaigned yet, or the name is wrong)"
		}
		facts = append(facts, []string{"leader", none})
	} else {
		facts = append(facts,
			[]string{"leader", strconv.Quote(l.Value)},
			[]string{"token", strconv.FormatInt(l.Token, 10)},
			[]string{"since", fmt.Sprintf("%s (%s ago)", l.Since.Format("2006-01-02 15:04:05.000 MST"), duration(now.Sub(l.Since).Milliseconds()))},
			[]string{"owner", l.Owner},
			[]string{"label", labelText(l.Label)},
		)
	}
	writeTable(w, "", facts)
	if len(ev.Candidates) == 0 {
		fmt.Fprintln(w, "candidates: none")
		return
	}
	fmt.Fprintln(w, "candidates (next first):")
	rows := [][]string{{"POS", "OWNER", "LABEL", "WAITER"}}
	for _, q := range ev.Candidates {
		rows = append(rows, []string{strconv.Itoa(q.Position), q.Owner, labelText(q.Label), waiterText(q.Relock)})
	}
	writeTable(w, "  ", rows)
}

// leaderChange is one line of "relock leader --watch": the leader after a
// change, absent when there is none.
type leaderChange struct {
	Time   time.Time   `json:"time"`
	Leader *leaderView `json:"leader"`
}

// watchLeader prints the election's leader, then a line at every change,
// until Ctrl-C (or SIGTERM), --count changes or --for.
func (s *session) watchLeader(ctx context.Context, name string) error {
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	if s.o.period > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, s.o.period)
		defer cancel()
	}
	e := s.locks.NewElection(name)
	if _, err := e.Leader(ctx); err != nil && !errors.Is(err, rlock.ErrNoLeader) {
		return err // the name cannot be used, or Redis cannot be reached
	}
	n := 0
	for l := range e.Observe(ctx) {
		if err := s.printChange(l); err != nil {
			return err
		}
		if n == s.o.count && n > 0 {
			return nil
		}
		n++
	}
	return nil // interrupted, or --for is over
}

// printChange prints one line of watchLeader.
func (s *session) printChange(l rlock.Leader) error {
	c := leaderChange{Time: time.Now()}
	if l.Token != 0 {
		c.Leader = &leaderView{Value: l.Value, Token: l.Token, Since: l.Since.UTC(), Owner: l.Owner}
	}
	if s.o.json {
		b, err := json.Marshal(c)
		if err != nil {
			return err
		}
		_, err = s.e.stdout.Write(append(b, '\n'))
		return err
	}
	line := "no leader"
	if l := c.Leader; l != nil {
		line = fmt.Sprintf("leader %s  token %d  owner %s  since %s", strconv.Quote(l.Value), l.Token, l.Owner, l.Since.Format("15:04:05.000"))
	}
	_, err := fmt.Fprintf(s.e.stdout, "%s  %s\n", c.Time.Format("2006-01-02 15:04:05.000"), line)
	return err
}
