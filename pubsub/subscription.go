package pubsub

import (
	"container/list"
	"context"
	"time"
)

// JoinBehind joins channel's entry, without any round trip, if it is
// subscribed and has waiters, so that the caller can wait its turn behind
// them instead of competing with them: its first Wait sleeps at the back
// and leaves any pending wake-up to the waiters that were there first. It
// returns the Subscription and the time by which every current sleeper
// will have retried, or ok == false (and no Subscription) if there is
// nobody to wait behind.
func (h *Hub) JoinBehind(channel string) (sub *Subscription, due time.Time, ok bool) {
	s := h.existingShard(channel)
	if s == nil {
		return nil, time.Time{}, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.entries[channel]
	if s.closed || e == nil || e.state != subscribed || e.q.waiters == 0 {
		return nil, time.Time{}, false
	}
	e.q.join()
	return &Subscription{shard: s, entry: e, behind: true}, e.q.wakeBy, true
}

// Subscription is one waiter's membership of a channel's entry.
type Subscription struct {
	shard  *shard
	entry  *entry
	closed bool
	// woken: the last Wait ended with a wake-up, so the next Wait follows
	// a failed retry and keeps this waiter's turn at the front.
	woken bool
	// behind: joined behind other waiters and not yet asleep; pending
	// wake-ups are theirs.
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
// Hub closes, and ErrMoved when the channel must be subscribed again
// elsewhere.
//
// Waiters sleep in turn: a message wakes the one that has waited longest,
// and a waiter whose retry after a wake-up failed keeps its turn.
func (sub *Subscription) Wait(ctx context.Context, d time.Duration) (woken bool, err error) {
	s, e := sub.shard, sub.entry
	s.mu.Lock()
	if e.state == orphaned {
		s.mu.Unlock()
		return false, ErrMoved
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
	if !behind && e.q.take() {
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

// WakeOthers wakes every other waiter of the channel that sleeps now, to
// retry at once: this waiter took a lock that they may share (a read lock).
func (sub *Subscription) WakeOthers() {
	s, e := sub.shard, sub.entry
	s.mu.Lock()
	defer s.mu.Unlock()
	e.q.wake(e.q.asleep(), 0)
}

// StepAside is how long a client that just released or took the lock on
// channel lets the waiters of other clients go first: 0 when no other
// connection subscribes to channel (as last counted, see share), a
// millisecond when only relock Clients do, else the channel's current
// step, which grows while the others keep coming too late (a Redisson
// client needs a few milliseconds to wake and retry). turns reports that
// clients other than relock's listen and take their turns: they have not
// kept coming too late at the longest step.
func (h *Hub) StepAside(channel string) (d time.Duration, turns bool) {
	s := h.existingShard(channel)
	if s == nil {
		return 0, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if e := s.entries[channel]; e != nil {
		return e.share.others(), e.share.turns()
	}
	return 0, false
}

// CountDue reports whether a release of this client on channel should
// have its script count the channel's listeners (Counted): when this
// client does not listen there, or its count is older than countEvery.
// So a Redisson waiter that began to wait is noticed within that time,
// at a cost of a count (one PUBSUB NUMSUB in the script, run only when a
// subscriber heard the release) per channel and client every countEvery
// at most while the client listens there, and at each heard release
// while it does not (it keeps no count then).
func (h *Hub) CountDue(channel string) bool {
	s := h.existingShard(channel)
	if s == nil {
		return true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.entries[channel]
	return e == nil || time.Since(e.share.peersAt) > countEvery
}

// Counted records what a release script counted when it announced a
// release on channel, or passed the lock on within this client:
// subscribers connections subscribed to channel, relock of them relock
// Clients (those subscribed to its presence marker, keys.Presence). It
// returns StepAside's answer with these counts. A client that does not
// listen on channel itself (no entry) keeps no share of it: the answer is
// then the first step of a share with these counts, slowStep while any
// other client than relock's listens.
func (h *Hub) Counted(channel string, subscribers, relock int) (d time.Duration, turns bool) {
	foreign := max(subscribers-relock, 0)
	if s := h.existingShard(channel); s != nil {
		s.mu.Lock()
		defer s.mu.Unlock()
		if e := s.entries[channel]; e != nil {
			e.share.counted(subscribers, foreign)
			return e.share.others(), e.share.turns()
		}
	}
	switch {
	case foreign > 0:
		return slowStep, true
	case subscribers > 0:
		return relockStep, false
	}
	return 0, false
}

// pause waits until c fires (nil), ctx ends (ctx.Err()) or the Hub closes
// (ErrClosed).
func (h *Hub) pause(ctx context.Context, c <-chan time.Time) error {
	select {
	case <-c:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-h.ctx.Done():
		return ErrClosed
	}
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
