package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/relock-go/relock/rlock"
)

// lockView is a lock as relock prints it: rlock.LockInfo with JSON names,
// durations in milliseconds, and the fair queue's deadlines also as the
// time left until them. This Client's own activity (LockInfo.Local) is
// left out: relock holds and waits for nothing.
type lockView struct {
	Name string `json:"name"`
	// Kind is "" when nothing of a lock of that name is in Redis.
	Kind string `json:"kind"`
	Held bool   `json:"held"`
	Mode string `json:"mode,omitempty"` // "read" or "write": a held read-write lock
	// TTLMillis is the lock's time to live: 0 when it is not held, -1 when
	// it has no expiry.
	TTLMillis   int64        `json:"ttl_ms"`
	Holders     []holderView `json:"holders"`
	Queue       []queueView  `json:"queue"` // head first
	Subscribers int          `json:"subscribers"`
	Token       int64        `json:"token"` // the last fencing token handed out
	// Leader is a leader election's leader, absent when none (leader.go).
	Leader *leaderView `json:"leader,omitempty"`
	// Count is a semaphore's or a rate limiter's available permits or a
	// latch's count: absent for a lock, and for a rate limiter per client,
	// whose Clients have each their own; Permits a permit-expirable
	// semaphore's leases; Rate a rate limiter's rate, absent when it has
	// none.
	Count   *int64           `json:"count,omitempty"`
	Permits []permitView     `json:"permits,omitempty"`
	Rate    *rateView        `json:"rate,omitempty"`
	Clients []rateClientView `json:"clients,omitempty"`
	// CountSet says whether a semaphore's or a latch's count is in Redis
	// at all: false for a semaphore nobody gave permits to (its count
	// reads 0, and Acquire waits until TrySetPermits or AddPermits gives
	// some); absent for a lock.
	CountSet *bool `json:"count_set,omitempty"`
	// RateLimiter names the rate limiter whose count of available permits
	// (or a client's) a count is, beside the limiter's config; absent for
	// any other.
	RateLimiter string `json:"rate_limiter,omitempty"`
}

// holderView is rlock.Holder as relock prints it.
type holderView struct {
	Owner  string `json:"owner"`
	Client string `json:"client"` // the client id part of Owner
	// Label is that Client's label (rlock.WithClientName); absent when it
	// has none.
	Label *rlock.ClientLabel `json:"label,omitempty"`
	Count int                `json:"count"`
	Mode  string             `json:"mode,omitempty"`
	// TTLMillis is a reader's own remaining lease in a read-write lock,
	// 0 otherwise (as /debug/locks gives it).
	TTLMillis int64 `json:"ttl_ms"`
}

// queueView is rlock.QueueEntry as relock prints it.
type queueView struct {
	Position int                `json:"position"` // 1 for the head
	Owner    string             `json:"owner"`
	Client   string             `json:"client"`          // the client id part of Owner
	Label    *rlock.ClientLabel `json:"label,omitempty"` // as a holder's
	Mode     string             `json:"mode,omitempty"`
	// Deadline is when the waiter is evicted unless it refreshes its
	// place; DeadlineInMillis is the time left until then by the Redis
	// server's clock (negative once passed), under the name /debug/locks
	// gives it too.
	Deadline         time.Time `json:"deadline"`
	DeadlineInMillis int64     `json:"deadline_in_ms"`
	Relock           bool      `json:"relock"` // false for a Redisson waiter
}

// newLockView returns the view of info at now, by the Redis server's
// clock.
func newLockView(info rlock.LockInfo, now time.Time) lockView {
	v := lockView{
		Name: info.Name, Kind: string(info.Kind), Held: info.Held, Mode: info.Mode,
		TTLMillis: ttlMillis(info.TTL), Subscribers: info.Subscribers, Token: info.Token,
		Holders: make([]holderView, len(info.Holders)),
		Queue:   make([]queueView, len(info.Queue)),
	}
	for i, h := range info.Holders {
		v.Holders[i] = holderView{Owner: h.Owner, Client: h.Client, Label: h.Label, Count: h.Count, Mode: h.Mode, TTLMillis: ttlMillis(h.TTL)}
	}
	for i, q := range info.Queue {
		v.Queue[i] = queueView{
			Position: i + 1, Owner: q.Owner, Client: q.Client, Label: q.Label, Mode: q.Mode, Relock: q.Relock,
			Deadline: q.Deadline.UTC(), DeadlineInMillis: q.Deadline.Sub(now).Milliseconds(),
		}
	}
	v.countOf(info, now)
	v.Leader = leaderOf(info.Leader, v)
	return v
}

// labelText is a label as the tables show it: "NAME@HOST pid PID", or "-".
func labelText(l *rlock.ClientLabel) string {
	if l == nil {
		return "-"
	}
	return fmt.Sprintf("%s pid %d", l, l.PID)
}

// ttlMillis is d in milliseconds, and -1 (as PTTL says it) for "no
// expiry".
func ttlMillis(d time.Duration) int64 {
	if d < 0 {
		return -1
	}
	return d.Milliseconds()
}

// counting reports whether v is a semaphore's, a latch's, a rate
// limiter's or a count's: it has a count rather than holders.
func (v lockView) counting() bool { return rlock.Kind(v.Kind).Counting() }

// exists reports whether anything of the lock is in Redis.
func (v lockView) exists() bool { return v.Kind != "" }

// readWrite reports whether the lock is a read-write lock, whose holders
// and waiters have modes.
func (v lockView) readWrite() bool {
	return v.Kind == string(rlock.KindRWMutex) || v.Kind == string(rlock.KindFairRWMutex)
}

// fair reports whether the lock has a queue.
func (v lockView) fair() bool {
	return v.Kind == string(rlock.KindFairMutex) || v.Kind == string(rlock.KindFairRWMutex) || len(v.Queue) > 0
}

// state says whether the lock is held, in which mode and until when.
func (v lockView) state() string {
	if !v.Held {
		return "free"
	}
	s := "held"
	if v.Mode != "" {
		s += " (" + v.Mode + ")"
	}
	return s + ", " + ttlText(v.TTLMillis, "expires in ")
}

// ttlText describes a TTL in milliseconds as the time left, after prefix.
func ttlText(ms int64, prefix string) string {
	switch {
	case ms < 0:
		return "no expiry"
	case ms == 0:
		return "-"
	}
	return prefix + duration(ms)
}

// duration writes ms milliseconds to the millisecond, or, from a minute
// on, to the tenth of a second.
func duration(ms int64) string {
	d := time.Duration(ms) * time.Millisecond
	if d >= time.Minute || d <= -time.Minute {
		d = d.Round(100 * time.Millisecond)
	}
	return d.String()
}

// writeLock writes v as inspect shows it: a few lines of facts, then its
// holders and its queue as tables.
func writeLock(w io.Writer, v lockView) {
	if !v.exists() {
		fmt.Fprintf(w, "no lock named %q\n", v.Name)
		return
	}
	if v.counting() {
		writeCount(w, v)
		return
	}
	facts := [][]string{
		{"lock", v.Name},
		{"kind", v.Kind},
		{"state", v.state()},
		{"subscribers", strconv.Itoa(v.Subscribers)},
	}
	if v.Token != 0 || v.Kind == string(rlock.KindFencedMutex) {
		facts = append(facts, []string{"fencing token", strconv.FormatInt(v.Token, 10)})
	}
	writeTable(w, "", append(facts, leaderFacts(v)...))

	if len(v.Holders) == 0 {
		fmt.Fprintln(w, "holders: none")
	} else {
		fmt.Fprintln(w, "holders:")
		rows := [][]string{{"OWNER", "LABEL", "COUNT"}}
		if v.readWrite() {
			rows[0] = append(rows[0], "MODE", "READ LEASE")
		}
		for _, h := range v.Holders {
			row := []string{h.Owner, labelText(h.Label), strconv.Itoa(h.Count)}
			if v.readWrite() {
				row = append(row, h.Mode, ttlText(h.TTLMillis, ""))
			}
			rows = append(rows, row)
		}
		writeTable(w, "  ", rows)
	}

	switch {
	case !v.fair():
	case len(v.Queue) == 0:
		fmt.Fprintln(w, "queue: empty")
	default:
		fmt.Fprintln(w, "queue (head first):")
		rows := [][]string{{"POS", "OWNER", "LABEL"}}
		if v.readWrite() {
			rows[0] = append(rows[0], "MODE")
		}
		rows[0] = append(rows[0], "DEADLINE", "WAITER")
		for _, q := range v.Queue {
			row := []string{strconv.Itoa(q.Position), q.Owner, labelText(q.Label)}
			if v.readWrite() {
				row = append(row, q.Mode)
			}
			row = append(row, deadlineText(q.DeadlineInMillis), waiterText(q.Relock))
			rows = append(rows, row)
		}
		writeTable(w, "  ", rows)
	}
}

// deadlineText says when a waiter's deadline comes, or came.
func deadlineText(ms int64) string {
	if ms < 0 {
		return "passed " + duration(-ms) + " ago"
	}
	return "in " + duration(ms)
}

// waiterText names the client library of a waiter.
func waiterText(relock bool) string {
	if relock {
		return "relock"
	}
	return "redisson"
}

// writeTable writes rows as columns aligned with spaces, each line
// starting with indent.
func writeTable(w io.Writer, indent string, rows [][]string) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, r := range rows {
		fmt.Fprintln(tw, indent+strings.Join(r, "\t"))
	}
	_ = tw.Flush()
}

// writeJSON writes v as indented JSON.
func writeJSON(w io.Writer, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}
