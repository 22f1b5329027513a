// Package rlock provides distributed locks on Redis, stored and announced
// exactly as Redisson (the Java client) does, so Go and Java services can
// contend for the same lock: reentrant, fair, fenced and read-write locks,
// sets of locks, semaphores, count-down latches and rate limiters, and
// leader elections on a fair lock.
//
// # Use
//
//	c, err := rlock.New(rdb) // rdb: a go-redis UniversalClient
//	defer c.Close()
//	m := c.NewMutex("orders:42")
//	if err := m.Lock(ctx); err != nil { ... }
//	defer m.Unlock(ctx) // releases even after ctx has ended
//	work, cancel := m.Context(ctx) // ends if the lock is lost
//	defer cancel()
//
// A Client is created once per process (per Redis deployment); each
// Client.NewMutex call is a new owner, with its own owner id. A handle
// behaves like sync.Mutex (an RWMutex like sync.RWMutex) for the goroutines
// that share it: while one holds it, another's Lock waits in the process,
// ctx honoured, without a command to Redis. Share one handle per critical
// section. Re-entry is explicit: Reenter (RReenter for a read hold) adds a
// hold to the lock the handle holds, counted in the lock's hash as
// Redisson counts it.
//
// # Semantics in brief
//
//   - Unlock is safe in a defer with a request's ctx: when ctx has ended it
//     still sends the release, detached and bounded (WithUnlockTimeout).
//   - A lock taken without a lease (Lock, or TryLock with lease 0) is kept
//     by the Client's watchdog (by default a 30s lease, renewed every 10s)
//     until the last Unlock, Client.Close, or its loss; one taken with a
//     lease expires lease after its last acquisition unless released first.
//   - Lost and Context tell the holder that its lock is gone without
//     Unlock (expired, force-unlocked, not renewed in time); Unlock then
//     returns ErrNotHeld. A lock excludes only while its lease holds: where
//     a paused holder could do harm, fence the storage (FencedMutex).
//   - Waiters never poll: they sleep on one shared subscription per lock
//     and Client, woken in arrival order by releases; a lost message costs
//     a waiter at most the lock's TTL (WithSpin polls instead).
//   - Every error is an *Error naming the operation and the lock; errors.Is
//     finds the sentinels (ErrNotHeld, ErrClosed, ErrInvalidName, ...), ctx
//     errors and Redis errors.
//   - Lock names are not empty, and either free of braces or with a hash
//     tag (ErrInvalidName), so that a lock's keys and channels share its
//     Redis Cluster slot.
//
// # Kinds
//
// Mutex is Redisson's RLock; FairMutex (RFairLock) grants the lock in
// arrival order; FencedMutex (RFencedLock) returns a growing token with
// each acquisition; RWMutex (RReadWriteLock) lets readers in together, and
// NewFairRWMutex makes one granted in arrival order. NewMultiLock holds a
// set of locks all at once or not at all, NewRedLock a majority of them.
// Semaphore (RSemaphore), PermitExpirableSemaphore and CountDownLatch are
// the counting objects of job schedulers; RateLimiter (RRateLimiter) keeps
// a rate that Go and Java services share: at most Limit permits in any
// window of one Interval. NewElection runs a leader election on a fair
// lock: Campaign waits to lead and returns a Term, Leader and Observe tell
// who leads.
//
// # Observing
//
// WithObserver receives the events of a Client's locks and WithLogger logs
// them; package relockotel turns them into OpenTelemetry metrics and spans.
// Client.Activity lists this Client's holds and waiters, Client.Inspect
// what Redis holds of one lock, and package debuglocks serves both as a
// /debug/locks page.
//
// # More
//
// The repository's docs go further: semantics.md (what a lock promises),
// guarantees.md (what holds when processes, networks and Redis fail),
// lock-kinds.md, semaphores.md, rate-limiter.md, election.md,
// redis-layout.md (the keys, the messages, Redisson compatibility),
// deployment.md and operations.md; and, for those who change the package,
// architecture.md: its files, its words, and how a goroutine waits.
package rlock
