// Package queue is the waiting line of relock's fair locks: Redisson's
// RFairLock protocol, the Lua scripts that run it, and the bookkeeping of
// one waiter's place in line.
//
// # Redis layout
//
// A fair lock named n keeps, exactly as Redisson does:
//
//   - the lock hash n: field = owner id, value = hold count;
//   - the queue, a LIST redisson_lock_queue:{n} of waiting owner ids, head
//     first: the head is the next owner;
//   - the deadlines, a ZSET redisson_lock_timeout:{n}: owner id to the
//     absolute time (ms) after which a waiter counts as dead;
//   - one channel per waiter, redisson_lock__channel:{n}:<owner id>, on which
//     that waiter alone is woken with the unlock message "0".
//
// # Who wakes whom
//
// An owner may take the lock only when it is free and nobody waits, or it
// is the head (TryAcquire, and every attempt of a Waiter): a newcomer never
// gets ahead of the queue, not even with a single attempt. Release wakes the
// head only, on its own channel. A waiter subscribes to its channel (and the
// server confirms) before its first queueing attempt, so a release that
// lands right after it joins still wakes it.
//
// The head sleeps at most the lock's remaining TTL: a lock that expires
// without Unlock (its holder died) announces nothing, so the head wakes by
// itself when the lease runs out and takes the lock. Waiters behind the head
// are never woken by releases; they sleep a heartbeat (a third of the wait
// timeout) between attempts, so a free lock that the head has not claimed
// yet costs them nothing. A script that evicts a stale head from a free
// lock wakes the new head, which inherited the turn.
//
// # Deadlines, dead and live waiters
//
// Every acquire attempt, release and force-release first evicts waiters
// from the head whose deadline has passed (Redisson's rule). Each attempt of a live waiter sets its own
// deadline to now + (position + 1) * wait timeout, and it attempts at least
// every heartbeat, so its deadline stays ahead of the clock: a live waiter
// is never evicted however long it waits. A grant, and a waiter giving up,
// take one wait timeout off the deadlines of those who move up a place,
// which keeps that bound. A waiter whose process died stops refreshing and
// is evicted at most about one wait timeout after it reaches the head; the
// next live waiter's heartbeat evicts it and, the lock being free, claims
// the lock or wakes the new head. Should a live waiter find itself evicted
// anyway (a pause longer than the wait timeout, or a Redisson client that
// subtracts a larger wait timeout than ours), it was the head when it was
// evicted, and it goes back to the head. Several waiters evicted at once
// go back in the order of their next attempts, which need not be their
// order of arrival: strict FIFO needs every client of a lock to use the
// same wait timeout.
//
// A waiter that gives up leaves in one script: it is removed from both
// keys, the deadlines behind it move up, and if it was the head of a free
// lock the new head is woken in its place, so no wake-up is lost with it.
//
// # Compatibility
//
// Redisson fair waiters and relock waiters can share a queue: they are
// served in arrival order, each on its own channel. Redisson computes
// deadlines from its client clock and its own fairLockWaitTimeout; give
// relock the same wait timeout when the two share a lock. relock reads the
// server's clock (TIME) in its scripts, and needs Redis 6.0.6 or later
// (LPOS).
package queue
