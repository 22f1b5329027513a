package pubsub

import (
	"container/list"
	"math/rand/v2"
	"time"
)

// wakeups is the wake-up queue of one channel's waiters: a semaphore in
// the manner of golang.org/x/sync/semaphore, whose permits are wake-ups
// and whose acquirers are sleeping waiters, served in turn.
//
// Invariants, each kept by every method (the caller holds the shard's
// mutex, which guards it):
//   - subs counts the open Subscriptions; permits never exceed the
//     waiters awake (busy with an attempt), so a burst of messages while
//     nobody sleeps cannot store more wake-ups than there are waiters to
//     use them, and a wake-up no awake waiter can use wakes a sleeper
//     instead: every release is retried by somebody;
//   - a waiter's wake channel is in sleepers exactly while it sleeps, and
//     each wake-up is given to one sleeper or kept as one permit, never
//     both and never lost;
//   - sleepers are woken oldest first; a waiter whose retry after a
//     wake-up failed goes back to the front, keeping its turn;
//   - wakeBy is the latest time a sleeper asked to be woken by: by then
//     every current sleeper has retried.
type wakeups struct {
	subs     int // open Subscriptions
	permits  int
	sleepers list.List // of chan time.Duration: the delay before retrying
	wakeBy   time.Time
}

// join counts one more waiter.
func (q *wakeups) join() { q.subs++ }

// leave counts one waiter less, one that was awake: a permit kept for it
// that no other awake waiter can use wakes a sleeper, as a poke: a kept
// permit is taken without counting in the channel's share, and so is
// this, so that a retry of it that fails counts no loss.
func (q *wakeups) leave() {
	q.subs--
	if excess := q.permits - q.awake(); excess > 0 {
		q.permits -= excess
		q.wake(excess, poke)
	}
}

// awake is the number of waiters not asleep.
func (q *wakeups) awake() int { return q.subs - q.sleepers.Len() }

// take uses a stored wake-up, if there is one, for a waiter about to
// sleep. One that joined behind the others (behind) leaves the stored
// wake-ups to the other awake waiters, as far as they can use them.
func (q *wakeups) take(behind bool) bool {
	if q.permits == 0 || behind && q.permits < q.awake() {
		return false
	}
	q.permits--
	return true
}

// sleep queues a sleeper that asks to be woken within d: at the front
// when it keeps its turn. It returns the channel its wake-up comes on and
// its place, for cancel.
func (q *wakeups) sleep(d time.Duration, front bool) (<-chan time.Duration, *list.Element) {
	if by := time.Now().Add(d); by.After(q.wakeBy) {
		q.wakeBy = by
	}
	w := make(chan time.Duration, 1)
	if front {
		return w, q.sleepers.PushFront(w)
	}
	return w, q.sleepers.PushBack(w)
}

// cancel takes a sleeper out of the queue that was not woken; it reports
// false when it was woken meanwhile (its wake-up is in its channel).
func (q *wakeups) cancel(el *list.Element, w <-chan time.Duration) bool {
	select {
	case <-w:
		return false
	default:
		q.sleepers.Remove(el)
		return true
	}
}

// wake wakes n sleepers, oldest first, telling each to wait delay before
// it retries, and keeps what is left over as permits for waiters that are
// busy with an attempt.
func (q *wakeups) wake(n int, delay time.Duration) {
	for ; n > 0 && q.sleepers.Len() > 0; n-- {
		q.sleepers.Remove(q.sleepers.Front()).(chan time.Duration) <- delay
	}
	q.permits = min(q.permits+n, q.awake())
}

// wakeOut wakes the sleeper at el out of turn, telling it delay, unless
// it was woken already.
func (q *wakeups) wakeOut(el *list.Element, delay time.Duration) {
	w := el.Value.(chan time.Duration)
	if len(w) > 0 {
		return // woken: its wake-up is in its channel
	}
	q.sleepers.Remove(el)
	w <- delay
}

// release wakes n sleepers, or keeps the wake-ups: a waiter that received
// one and will not retry passes it on with release(1).
func (q *wakeups) release(n int) { q.wake(n, 0) }

// releaseAll makes every waiter retry once: every sleeper is woken and
// every waiter not asleep gets a permit.
func (q *wakeups) releaseAll() { q.release(q.subs) }

// releaseSpread is releaseAll with each sleeper told to wait a delay
// drawn at random below spread before it retries, so that the waiters of
// many channels woken together retry spread out.
func (q *wakeups) releaseSpread(spread time.Duration) {
	if spread <= 0 {
		q.releaseAll()
		return
	}
	n := q.subs
	for ; n > 0 && q.sleepers.Len() > 0; n-- {
		// (A delay of 0 would be no delay; poke is -1.)
		q.sleepers.Remove(q.sleepers.Front()).(chan time.Duration) <- 1 + rand.N(spread)
	}
	q.permits = min(q.permits+n, q.awake())
}

// asleep is the number of sleeping waiters.
func (q *wakeups) asleep() int { return q.sleepers.Len() }
