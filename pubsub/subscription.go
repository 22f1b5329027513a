package pubsub

import (
	"container/list"
	"context"
	"time"
)

// Subscription is one waiter's membership of a channel's entry.
type Subscription struct {
	shard  *shard
	entry  *entry
	closed bool
	// woken: the last Wait ended with a wake-up, so the next Wait follows
	// a failed retry and keeps this waiter's turn at the front.
	woken bool
	// behind: joined behind other waiters and not yet asleep; pending
	// wake-ups are theirs while they are awake to use them.
	behind bool
	// asleep is this waiter's place among the sleepers while a Wait sleeps
	// (nil otherwise), for Poke.
	asleep *list.Element
	// poked: a Poke came while no Wait slept; the next Wait returns at once.
	poked bool
}

// poke is the wake-up a Poke sends: not a release's (see Subscription.Won).
const poke time.Duration = -1

// Wait sleeps until a message on the channel wakes this waiter, or d has
// passed; either way the caller retries, and woken reports which: true
// when a release (a message, or one that came while nobody slept) ended
// the wait. It returns ctx.Err() when ctx ends first, ErrClosed when the
// Hub closes, ErrMoved when the channel must be subscribed again
// elsewhere, and an error wrapping ErrRefused when the server refused to
// subscribe it again (after a connection's replacement).
//
// Waiters sleep in turn: a message wakes the one that has waited longest,
// and a waiter whose retry after a wake-up failed keeps its turn.
func (sub *Subscription) Wait(ctx context.Context, d time.Duration) (woken bool, err error) {
	s, e := sub.shard, sub.entry
	s.mu.Lock()
	switch e.state {
	case orphaned:
		s.mu.Unlock()
		return false, ErrMoved
	case refused:
		s.mu.Unlock()
		return false, e.err
	}
	front, behind := sub.woken, sub.behind
	sub.woken, sub.behind = false, false
	if front {
		// The retry after the last wake-up failed: another client took
		// the lock.
		e.share.lost()
	}
	if sub.poked {
		sub.poked = false
		s.mu.Unlock()
		return true, nil
	}
	if e.q.take(behind) {
		s.mu.Unlock()
		return true, nil
	}
	if d <= 0 {
		s.mu.Unlock()
		return false, nil
	}
	w, el := e.q.sleep(d, front)
	sub.asleep = el
	s.mu.Unlock()

	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case delay := <-w:
		if delay == poke {
			s.mu.Lock()
			sub.asleep = nil
			s.mu.Unlock()
			return true, nil
		}
		if delay > 0 {
			// Other clients go first (see share.yieldDelay).
			t.Reset(delay)
			err = s.hub.pause(ctx, t.C)
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		sub.asleep = nil
		if err != nil {
			e.q.release(1) // this waiter will not retry: the next one will
			return false, err
		}
		sub.woken = true
		return true, nil
	case <-t.C:
	case <-ctx.Done():
		err = ctx.Err()
	case <-s.hub.ctx.Done():
		err = ErrClosed
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	sub.asleep = nil
	if !e.q.cancel(el, w) {
		// Woken while leaving: if this waiter will not retry, the wake-up
		// belongs to the next one.
		if err != nil {
			e.q.release(1)
		} else {
			sub.woken = true
			return true, nil
		}
	}
	return false, err
}

// Won tells the channel's entry that this waiter, woken by a release,
// then took the lock. It keeps the score by which clients take turns with
// other clients waiting on the same channel.
func (sub *Subscription) Won() {
	s, e := sub.shard, sub.entry
	s.mu.Lock()
	defer s.mu.Unlock()
	if !sub.woken {
		return
	}
	if e.share.won() {
		s.countPeers(e.channel)
	}
}

// Poke wakes this waiter at once, out of turn, or, if no Wait of it
// sleeps, makes its next Wait return at once; either Wait reports woken.
// It is for news that comes another way than a message: a release in this
// process passed the waiter the lock. Such a wake-up is not a release's:
// it does not count in the client's share of the channel's releases.
func (sub *Subscription) Poke() {
	s, e := sub.shard, sub.entry
	s.mu.Lock()
	defer s.mu.Unlock()
	if sub.asleep == nil {
		sub.poked = true
		return
	}
	e.q.wakeOut(sub.asleep, poke)
}

// TakeGrant reports whether grant (a message beginning with
// keys.GrantPrefix) is the last grant message heard on the channel, and
// forgets it if so: the waiter it names holds the lock. A grant message
// wakes a waiter as a release does.
func (sub *Subscription) TakeGrant(grant string) bool {
	s, e := sub.shard, sub.entry
	s.mu.Lock()
	defer s.mu.Unlock()
	if grant == "" || e.grant != grant {
		return false
	}
	e.grant = ""
	return true
}

// Grant tells this waiter grant, a grant message on its channel, as if it
// was heard there: a release in this process granted it the lock, and its
// reply said so. The message itself, when it comes, wakes nobody; a grant
// heard already is not told again.
func (sub *Subscription) Grant(grant string) {
	s, e := sub.shard, sub.entry
	s.mu.Lock()
	defer s.mu.Unlock()
	if grant == "" || grant == e.lastGrant {
		return
	}
	e.grant, e.lastGrant = grant, grant
	if sub.asleep == nil {
		sub.poked = true
		return
	}
	e.q.wakeOut(sub.asleep, poke)
}

// WakeOthers wakes every other waiter of the channel that sleeps now, to
// retry at once: this waiter took a lock that they may share (a read lock).
func (sub *Subscription) WakeOthers() {
	s, e := sub.shard, sub.entry
	s.mu.Lock()
	defer s.mu.Unlock()
	e.q.wake(e.q.asleep(), 0)
}

// Close leaves the channel; the last waiter to leave unsubscribes it.
// Closing twice is a no-op.
func (sub *Subscription) Close() {
	s := sub.shard
	s.mu.Lock()
	defer s.mu.Unlock()
	if sub.closed {
		return
	}
	sub.closed = true
	s.leave(sub.entry)
}
