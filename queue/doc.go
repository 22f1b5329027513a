// Package queue is the waiting line of relock's fair locks: Redisson's
// RFairLock protocol (Queue), relock's fair read-write lock (RWQueue), the
// Lua scripts that run them, and the bookkeeping of one waiter's place in
// line (Waiter).
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
//
// # The fair read-write lock
//
// Redisson has no fair read-write lock; RWQueue is relock's, on Redisson's
// read-write lock hash (mode, reader fields, '<owner id>:write', one lease
// key per read hold) so that plain Go and Java readers and writers still
// exclude it correctly. Beside the hash, a read-write lock named n keeps:
//
//   - the line, a LIST relock_rwlock_queue:{n} of entries, head first: a
//     reader's entry is its owner id, a writer's '<owner id>:write' (an
//     owner may wait on both sides, each with its own place);
//   - the deadlines, a ZSET relock_rwlock_timeout:{n}, kept and evicted
//     exactly as the fair lock's;
//   - one channel per entry, redisson_rwlock:{n}:<entry>.
//
// A writer's turn is at the head, when the lock is free. A reader's turn
// is when no writer is ahead of it and the lock is free or read: readers
// arriving together go in together, and a reader that arrives after a
// waiting writer waits behind it even while the lock is read, so a stream
// of readers never starves a writer. Re-entries and a writer taking the
// read lock (a downgrade) never wait in line; a reader asking to write is
// refused (ErrUpgrade). A release, a waiter leaving and a force-release
// wake every waiter whose turn has come: the writer at the head, or the
// readers at the head up to the first writer (at most 100 at once; each
// reader taking the lock wakes the next).
package queue
