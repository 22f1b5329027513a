// Package rlock provides distributed reentrant locks on Redis, stored and
// announced exactly as Redisson (the Java client) does, so Go and Java
// services can contend for the same lock.
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
// Unlock is safe in a defer with a request's ctx: when ctx has ended it
// still sends the release, detached and bounded (WithUnlockTimeout); when
// Redis cannot be reached the lock is no longer renewed and expires within
// its lease. Every error is an *Error naming the operation and the lock and
// wrapping its cause; errors.Is finds the sentinels (ErrNotHeld, ErrClosed,
// ErrInvalidName, ErrInvalidDuration, ErrWrongType, ...), ctx errors and
// Redis errors.
//
// A Client is created once per process; each Client.NewMutex call is a new
// owner. A handle behaves like sync.Mutex (an RWMutex like sync.RWMutex)
// for the goroutines that share it: each handle has a line (line.go), a
// ctx-aware in-process lock that an acquisition passes before it goes to
// Redis, so a goroutine waiting for a handle another holds sends nothing
// and wakes when that one unlocks. Share one handle per critical section.
// Re-entry is explicit: Reenter (RReenter for a read hold) adds a hold to
// the lock the handle holds, counted in the hash as Redisson counts it.
// When a hold ends without its last Unlock (Lost), Unlock reports
// ErrNotHeld, and the handle's next acquisition first releases whatever
// is left of that hold in Redis, so it starts a fresh one.
//
// Lock names follow one rule on every topology (ErrInvalidName): not
// empty, and either free of braces or with a hash tag, so that the lock's
// auxiliary keys and channels hash to its slot on a Cluster.
//
// # Redis layout
//
// The lock is a hash at the lock's name: field = owner id
// ("<client id>:<sequence>"), value = hold count. Acquire, release, renew
// and force-unlock are Lua scripts (package scripts), run with EVALSHA, so
// each is atomic and the uncontended Lock and Unlock are one round trip
// each. The last release deletes the hash and publishes "0" on
// redisson_lock__channel:{<name>}; the braces put the channel in the lock's
// Redis Cluster slot.
//
// # Waiting
//
// A waiter never polls. It subscribes to the lock's channel, retries once,
// then sleeps until an unlock message wakes it or the lock's TTL (capped by
// its remaining wait) passes, and retries again. All waiters of one lock
// name in one Client share one subscription, and one message wakes one of
// them (package pubsub), in arrival order: a newcomer, or an owner that
// just unlocked, queues behind the Client's waiters instead of racing
// them. A Mutex's last Unlock passes the lock straight to the Client's
// longest waiter for it, inside the release script: no message, no
// acquire round trip, never a free lock between the two holders. After 16
// such hand-offs in a row the release is published instead, and the
// Clients take turns: one that won one of the last releases lets the
// others retry first, for up to a millisecond; and a new acquisition in
// the Client whose release was just heard elsewhere lets the woken
// waiters go first, for a millisecond. A lost message, or an
// expiry, which publishes nothing, costs a waiter at most the lock's TTL.
// WithSpin replaces this with polling, for comparison.
//
// # Kinds of lock
//
// Mutex is Redisson's RLock. FairMutex (RFairLock) grants the lock in
// arrival order through a queue in Redis, each waiter woken on its own
// channel. FencedMutex (RFencedLock) returns with every acquisition a token
// that only grows, for storage to reject a stale holder's writes. RWMutex
// (RReadWriteLock) lets many readers in at once, or one writer; readers
// are woken together, a writer may also read (a downgrade), and a reader
// asking to write gets ErrUpgrade. NewFairRWMutex makes an RWMutex whose
// readers and writers are granted in arrival order, writers never starved
// by readers (Redisson has none; see package queue for its layout). All
// are reentrant, owned by the handle, and kept by the same watchdog.
//
// # Retries, replicas and clusters
//
// Acquire and unlock are safe for go-redis to resend after a lost reply:
// each carries the owner's known hold count, and unlock also the number of
// the request, which the owner's one unlock latch records, so neither
// applies twice. WithReplicaAck makes each acquisition wait for replicas
// (WAIT) and undoes it when too few acknowledge. On Redis Cluster every
// script touches one slot, and Redis 7's sharded pub/sub is used by
// default, as Redisson does (WithShardedPubSub).
//
// # Leases and the watchdog
//
// A lock taken without a lease (Lock, or TryLock with lease 0) gets the
// watchdog timeout as its lease (30s by default), and one goroutine per
// Client renews all such locks every timeout/3, batching them into a few
// script calls per pipeline; the locks are dealt over ten turns of that
// period, so a Client holding many sends a tenth of their renewals at a
// time. Renewal stops at the last Unlock, at
// Client.Close, and when a renewal finds the lock gone. A lock taken with a
// lease expires lease after its last acquisition or partial release unless
// released first. Reentrant acquisitions keep the lease mode of the first.
//
// # Failures
//
// Mutex.Lost tells the holder its lock is gone without Unlock: expired,
// force-unlocked, not renewed in time because Redis was unreachable (the
// channel closes when the last successfully sent renewal's lease ends, not
// later), or its Client closed. Unlock then returns ErrNotHeld. A lock
// gives mutual exclusion only while its lease holds: a process paused
// longer than its lease, or a Redis failover that loses a write, can let
// two owners in. Use Lost to stop work, and fencing at the storage layer
// where that matters.
//
// # Several locks at once
//
// NewMultiLock holds a set of locks (of any kind, on any Clients and Redis
// servers) all at once or not at all. It takes them in one order, by name,
// each waiting through its own pub/sub, so overlapping sets cannot
// deadlock, and releases what it took when one cannot be had. NewRedLock
// is held with a majority of locks on independent masters (Redlock); its
// doc states the timing assumptions it rests on.
//
// # Observing
//
// WithObserver receives the events of a Client's locks (acquired, waits,
// wake-ups, releases, renewals, losses, replaced subscriptions) from the
// one wait loop and the one hold record; WithLogger logs them with
// log/slog; package relockotel (a module of its own) turns them into
// OpenTelemetry metrics and spans. Client.Activity lists this Client's
// holds and waiters, Client.Inspect what Redis holds of one lock whoever
// took it, Client.Locks the locks matching a pattern; package debuglocks
// serves both as a /debug/locks page, and the relock command shows them
// in a terminal.
//
// # Where is what
//
// Every kind of lock runs on one engine; a new kind is a kind value (its
// scripts) and a handle type.
//
//	client.go        Client: options, pub/sub kind (wire), Close
//	owner.go         owner: identity and queries, embedded by every handle
//	kind.go          kind: the scripts of a kind of lock; the reentrant kind
//	acquire.go       the one wait loop (owner.take) and one attempt
//	turn.go          turn policies; clientTurns: waiters of a Client in turn
//	fair_turn.go     fairTurns: an owner's place in a fair lock's queue in Redis
//	sleeper.go       sleepers: on a pub/sub subscription, or spinning
//	hold.go          hold: one holding, its lease and its transitions
//	watchdog.go      renewal of holds, in batches over ten turns of the period
//	release.go       Unlock: the release request and its latch
//	observer.go      events and observers; logger.go: the slog observer
//	activity.go      Client.Activity: this Client's holds and waiters
//	inspect.go       Client.Inspect, Locks, ForceUnlock: what Redis holds
//	lease.go         Lost, Context, Extend
//	calls.go         argument checks, errors and detached requests of calls
//	replica.go       WithReplicaAck
//	mutex.go, fair_mutex.go, fenced_mutex.go   the handles
//	rw_mutex.go, fair_rw_mutex.go              RWMutex, plain and fair
//	multi_*.go, redlock.go                     sets of locks
//
// # Glossary
//
//	owner        one handle's identity: the hash field "<client id>:<seq>"
//	hold         an owner's holding of a lock, from first acquisition to last
//	             release or loss; its count is the reentrancy depth
//	acquisition  one successful Lock/TryLock; each is released by one Unlock
//	attempt      one acquire script run: it takes the lock or reports its TTL
//	waiter       an acquisition that sleeps between attempts
//	release      one Unlock's script run: it drops one acquisition
//	lease        how long Redis keeps the lock after it was set or renewed
//	turn         how one acquisition takes its turn among the lock's waiters
//	kind         the scripts of one kind of lock (reentrant, fair, ...)
package rlock
