package rlock

import (
	"context"
	"errors"
	"time"

	"github.com/relock-go/relock/internal/backoff"
	"github.com/relock-go/relock/internal/keys"
	"github.com/relock-go/relock/scripts"
)

// observeIdle is how long an observer sleeps without news while the
// election has no leader whose lease it could watch: a lost announcement
// costs at most this.
const observeIdle = time.Minute

// expirySlack is how long after a leader's lease should have run out an
// observer looks whether it did (a lease renewed meanwhile is still on).
const expirySlack = 5 * time.Millisecond

// Observe returns a channel that delivers the election's leader as it
// changes: first the current leader, then every change in the order it
// was made, each once: a new term (a greater Token), a new value
// proclaimed, and the end of a term, which delivers the zero Leader ("no
// leader", Token 0). When there is no leader at first, the zero Leader
// comes first. A term whose lease ran out without a word (its process
// died) ends when the next one begins, or when its lock expires, which
// the observer watches: within its lease either way.
//
// The observer subscribes to the election's channel before it first reads
// the log, and reads the log at every announcement: a lost or coalesced
// announcement costs nothing. A receiver that falls behind by more than
// the log keeps (WithElectionHistory) gets the current leader instead of
// the changes it missed. The channel is unbuffered, and closed when ctx
// ends or the Client closes; the observer's goroutine ends with it. It is
// closed too, at once, when the Election cannot be used (an invalid name,
// a closed Client), and when the name holds a value that is not a lock:
// then ctx has not ended, and Leader returns why (ErrInvalidName,
// ErrClosed, ErrWrongType). While Redis
// cannot be reached the observer retries, and misses no change that the
// log still keeps.
func (e *Election) Observe(ctx context.Context) <-chan Leader {
	ch := make(chan Leader)
	if e.usable() != nil {
		close(ch)
		return ch
	}
	o := &observation{e: e, ch: ch, seen: scripts.NoChanges}
	electionsOf.in(e.c).use(e.name, 0, 1)
	started := e.c.goBackground(func() {
		defer electionsOf.in(e.c).use(e.name, 0, -1)
		defer close(ch)
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		stop := context.AfterFunc(e.c.ctx, cancel)
		defer stop()
		o.run(ctx)
	})
	if !started {
		electionsOf.in(e.c).use(e.name, 0, -1)
		close(ch)
	}
	return ch
}

// observation is one Observe call's state.
type observation struct {
	e    *Election
	ch   chan<- Leader
	seen int64  // the log's last entry read; NoChanges before the first read
	last Leader // the last delivered
	sent bool   // whether any was
}

// run delivers the changes until ctx ends.
func (o *observation) run(ctx context.Context) {
	e := o.e
	var sl sleeper
	defer func() {
		if sl != nil {
			sl.close()
		}
	}()
	for failures := 0; ctx.Err() == nil; {
		var err error
		if sl == nil {
			if err = e.c.begin(ctx); err == nil {
				sl, err = e.c.sleepers().listen(ctx, noDeadline, keys.ElectionChannel(e.name))
			}
		}
		var s scripts.ElectionState
		if err == nil {
			s, err = e.el.State(ctx, e.c.rdb, o.seen, true, e.writes())
		}
		if isWrongType(err) {
			return // the name holds something else: Leader tells what
		}
		if err != nil {
			if sleepOnTimer(ctx, backoff.Exponential(10*time.Millisecond, time.Second, failures), nil) != nil {
				return
			}
			failures++
			continue
		}
		failures = 0
		if !o.deliver(ctx, s) {
			return
		}
		d := observeIdle
		if s.Held && s.LockTTL > 0 {
			d = min(d, s.LockTTL+expirySlack)
		}
		if _, err := sl.sleep(ctx, d); err != nil {
			sl.close()
			sl = nil
			if !errors.Is(err, errMoved) {
				return
			}
		}
	}
}

// deliver sends the changes that s, read after entry o.seen, tells: each
// entry after it, in order; or the current state alone on the first read,
// when the log was begun anew, or when entries were trimmed before they
// could be read. A change that delivers what was delivered last is left
// out. It returns false when ctx ended first.
func (o *observation) deliver(ctx context.Context, s scripts.ElectionState) bool {
	var next []Leader
	if o.seen < 0 || s.Last.Seq < o.seen || (len(s.After) > 0 && s.After[0].Seq != o.seen+1) {
		current := Leader{}
		if s.Held {
			current = leaderOf(s.Last)
		}
		next = []Leader{current}
	} else {
		for _, c := range s.After {
			next = append(next, leaderOf(c))
		}
	}
	o.seen = s.Last.Seq
	for _, l := range next {
		if o.sent && l.same(o.last) {
			continue
		}
		select {
		case o.ch <- l:
		case <-ctx.Done():
			return false
		}
		o.last, o.sent = l, true
	}
	return true
}
