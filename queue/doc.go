// Package queue is the waiting queue of relock's fair locks: Redisson's
// RFairLock protocol (Queue), relock's fair read-write lock (RWQueue), the
// Lua scripts that run them, and the bookkeeping of one waiter's place in
// the queue (Place).
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
//     that waiter alone is told its turn with the unlock message "0";
//
// and, relock's own, a HASH relock_lock_waiters:{n} of the relock waiters
// in the queue: owner id to the lease a release grants it the lock with,
// or "granted" until it claims the lock or releases it (Redisson's waiters
// are not in it), beside the fields #clean, #unheard and #evicted
// (fair_common.lua); and a channel relock_turns:{n} on which every turn
// given is announced as "turn:<owner id>", for onlookers (relock watch).
//
// Every message on a channel of Redisson's layout is a number, as
// Redisson's codec reads them: "0", or for a relock waiter granted the
// lock "-<wait id>". Redisson acts on 0 and 1 and ignores other numbers.
//
// # Whose turn, and how it is told
//
// An owner may take the lock only when it is free and nobody waits, or it
// is the head (TryAcquire, and every attempt of a Place): a newcomer never
// gets ahead of the queue, not even with a single attempt. When the lock
// becomes free (a last release, a force-release, the head leaving, or an
// attempt that finds an expired lock with someone else at the head), the
// turn passes to the head in the same script: a message on its channel,
// and
//
//   - a relock head is granted the lock at once: its field is written, its
//     lease set, it leaves the queue (the grant rule below), and it is
//     marked "granted" until it claims the lock (Place.Claim, or its next
//     attempt) or releases it; its hold count is one. The
//     lock is never free between two holders, so nobody can barge. If it
//     gave up meanwhile, its leaving gives the lock back and passes the
//     turn on;
//   - a relock head nobody listens to (PUBLISH reaches no subscriber) is
//     dead, or its pub/sub connection dropped: a relock waiter listens on
//     its channel, confirmed, before it queues. It is evicted at once, and
//     the turn passes to the next. A live one finds out at its next attempt
//     and goes back to the head (below);
//   - a Redisson head takes the lock with its own acquire script;
//   - a Redisson head nobody listens to may be alive: Redisson runs its
//     queueing script first and subscribes after, a round trip later, and a
//     Redisson client is deaf while its pub/sub connection reconnects. It
//     keeps its turn for a grace of 3 seconds (GRACE) from when a relock
//     script first found it unheard (#unheard: its owner id and its
//     deadline, which stays the same while it stays at the head, and since
//     when); the lock stays free for it, and the waiter behind it is told
//     (once), so that it comes back to check. A relock waiter behind it
//     rechecks a free lock every second at most (freeRecheck), and each
//     check tells the head its turn again, so a head that subscribed late
//     is woken within a second even if it did not retry by itself. After
//     the grace, a head still unheard is evicted, if anyone waits behind it
//     (else it holds up nobody, and keeps its turn), and the turn passes to
//     the next: a dead Redisson head costs the queue about GRACE plus a
//     recheck. An evicted Redisson head is remembered (#evicted, at most 8)
//     and told of every turn a relock script gives from then on, with "0"
//     on its channel, until it hears one: a live one then retries its
//     acquisition and queues again at the tail, instead of sleeping until
//     its own timeout while the lock is free.
//
// A waiter subscribes to its channel (and the server confirms) before its
// first queueing attempt, so a turn that comes right after it joins still
// reaches it. A waiter sleeps at most the lock's remaining TTL while the
// lock is held, since an expiry announces nothing: the head then takes the
// lock, and a waiter behind a dead head finds the lock expired and passes
// the turn on. While the lock is free and a Redisson head has not claimed
// it yet, the waiters behind sleep at most a second (freeRecheck), and no
// longer than a heartbeat (a third of the wait timeout): no tight loop.
//
// # Deadlines
//
// Deadlines are Redisson's, so that Go and Java waiters in one queue are
// treated alike by both clients' scripts. A newcomer's deadline is the
// last waiter's deadline (with nobody queued: now plus the lock's PTTL)
// plus the wait timeout, so deadlines grow in queue order; every grant
// takes one wait timeout off all of them, and a waiter giving up takes one
// off those behind it. Such deadlines never move with time: through a
// long hold, or a long run of grants, a live waiter's would pass. So while
// the lock is held (or granted and not yet claimed), relock's scripts that
// read the clock (an attempt that does not simply join, a release that
// leaves holds) keep the head's deadline at least a wait timeout away,
// moving every deadline behind it by as much, and evict nobody: a Redisson
// waiter is not purged while it waits for a live holder. A join while
// another owner holds the lock gives no turn and reads no clock: it queues
// at the tail. The release of the last hold gives the turn without
// reading deadlines: a relock head is granted the lock whatever its
// deadline (its silence tells whether it is dead), and a Redisson head has
// its deadline kept a wait timeout away as it is told, so that its own
// script, which purges stale heads first, keeps it. A relock waiter
// granted the lock, or giving up at the head of a held lock, moves the
// deadlines a wait timeout earlier as Redisson's rule has it, then keeps
// the new head's at least a wait timeout away: a Redisson waiter chained
// with a shorter wait timeout than relock's (Redisson's tryLock uses its
// wait time in place of fairLockWaitTimeout) would otherwise be past its
// deadline at once, for the next Redisson script to purge. The watchdog's
// renewal of a fair lock (NewRenewer) keeps the head's deadline ahead too,
// so that a Redisson head queued behind a Go holder is not purged when it
// wakes, however long the hold and whoever else waits. Once the lock is free
// (it expired, or was taken away), the stale heads are evicted (Redisson's
// rule) by the attempts and force-releases before anything else.
// A live relock waiter at the head also refreshes its deadline on each
// attempt, so no deadline evicts it however long it waits. Should a live
// waiter find itself evicted anyway (a pause longer than the wait timeout,
// or a turn that came while its pub/sub connection was down), it was the
// head, and it goes back to the head.
//
// What a dead waiter costs the queue: a relock waiter that died is evicted
// as soon as a relock script gives it its turn, so it costs nothing beyond
// the lease of the holder before it; a Redisson waiter that died costs the
// grace and a recheck more (about 3 to 4 seconds). When only Redisson
// clients run the scripts, a dead waiter (relock's or Redisson's) holds up
// the queue until its deadline, as in Redisson.
//
// A waiter that gives up leaves in one script: it is removed from the
// keys, the deadlines behind it move up, and if it was the head of a free
// lock the turn passes on, so no turn is lost with it.
//
// # Compatibility
//
// Redisson fair waiters and relock waiters can share a queue: they are
// served in arrival order, each on its own channel. Redisson computes
// deadlines from its client clock and its own fairLockWaitTimeout (5
// minutes by default, relock's default too), or, for a tryLock with a wait
// time, that wait time; give relock the longest of them when the two
// share a lock. relock reads the
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
//   - the queue, a LIST relock_rwlock_queue:{n} of entries, head first: a
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
// read lock (a downgrade) never queue; a reader asking to write is
// refused (ErrUpgrade). A release, a waiter leaving and a force-release
// wake every waiter whose turn has come: the writer at the head, or the
// readers at the head up to the first writer (at most 100 at once; each
// reader taking the lock wakes the next).
package queue
