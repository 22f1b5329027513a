// Package check decides what a proof run's history (package history)
// shows: what held of what must hold, and what was measured of what
// cannot. Each name is checked on its own, by its workload.
//
// # What relock can fail, and what judges the harness
//
// exclusion, permits, grant-tokens, lost-updates, fair-order, liveness,
// progress, told, woken, latch, rate and leftovers judge the locks and
// the other kinds (relock's and Redisson's on the same objects; told and
// woken judge relock's holders and waiters only, since Redisson promises
// its holders nothing and how its waiters wake is its own): a broken
// library fails them, and each has a mutation of the library that the
// proof must catch (test/cmd/mutants -proof) or a wrong history its tests
// must reject. register and store-tokens judge the harness: the fenced
// store is one script per operation on a Redis no fault touches, so no
// behaviour of a lock can make its history non-linearizable or its tokens
// go back. They stay as the check that the harness records and fences
// what the others rely on.
//
// # What is proven (a Violation fails the run)
//
//   - register (fenced, election, plain, rw; the harness): the register's
//     reads and writes are linearizable against the fenced store's model
//     (a value guarded by the highest token seen; a register without
//     fencing has every token 0), checked by porcupine. The history is
//     checked in chunks cut where no operation of known outcome is in
//     flight; an operation of unknown outcome (info, or no completion: a
//     killed process) may or may not take effect, at any time in its
//     window, and is carried into the next chunk while that window is open
//     (see registerOps for the window). Each chunk starts from the states
//     the history itself settles at the cut (settle), never from
//     porcupine's choice of order. A chunk porcupine cannot decide within
//     Config.ChunkTimeout is Unchecked, never ok. An illegal chunk's
//     finding names the operation no order fits, and gets porcupine's
//     visualization (HTML) beside the history.
//   - store-tokens (fenced, election; the harness): the store never
//     accepted a write with a token below one it had accepted before that
//     write was invoked.
//   - lost-updates (fenced, election, rw): no accepted write's update is
//     lost: two accepted writes that continued one write (each wrote the
//     value read plus one, and read the other's source) lose one, dated
//     at the later; and the counter's final value counts every accepted
//     write, the writes lost on a branch such a pair cut off explained as
//     the pair is. Writes of one value on different branches (the
//     increments after a stale write set the counter back, writing its
//     values again) lose nothing of their own. A final value the history
//     does not settle is Unchecked.
//   - grant-tokens (fenced, election): tokens granted are distinct, and
//     grow in real-time order (a direct check: for a counter that only
//     grows, that is what linearizability means).
//   - exclusion (every lock: fenced, plain, fair, rw, fairrw, election,
//     redlock): no two sections overlap, a writer's beside no other;
//     permits (semaphores): never more than N holders inside, by sections
//     and by the count each read when it marked in.
//   - told (every lock; relock holders): a relock holder releases or
//     records its loss before any holder whose acquisition was invoked
//     after its own returned gets in, unless its own causes (below)
//     explain it: a fault on the later holder tells it nothing. Reported
//     only where exclusion let the pair pass.
//   - fair-order (fair): no waiter is granted after more than FairBound
//     waiters invoked after it had queued (its queued line), or, without
//     one, more than its margin after it (Config.FairMargin for relock,
//     Config.FairMarginRedisson for Redisson, and the longest time its
//     process wrote no line meanwhile); a retry after an
//     attempt that timed out keeps its place. A waiter hit by a fault (its
//     process, everyone, its lock service) while it waited, or within a
//     lease and Config.Slack after, is not judged, and is counted
//     (FairSkipped); a fault on another process excuses nothing, but a
//     waiter whose own process a fault hit just before it arrived may have
//     kept an older place, and is no later arrival. A spawn counts so for
//     its own waiters only.
//   - liveness (every name with a bounded wait): every acquire returns,
//     served or told, within its wait, its wait for a replica
//     (NameSpec.AckMS) and Config.Slack, or within one lease and
//     Config.Slack after the last fault that hit the waiter itself (its
//     process, everyone, its lock service) overlapping that span healed.
//   - progress (every lock): no waiter waits more than a lease, its wait
//     for a replica and Config.Slack while nobody holds the lock, out of
//     faults' reach (a lease, or a fair lock's wait timeout, and
//     Config.Slack after any fault on the lock service or a process);
//     "told in time" is not progress.
//   - woken (plain, fenced; relock waiters): after a release that
//     returned ok, with a relock waiter invoked before it and still
//     waiting Config.Wake (and its wait for a replica) later, untouched
//     by faults since a lease and Config.Slack before, someone was
//     granted the lock by then (a grant dated Config.Wake before its
//     reply, or at its invocation when a fault hit its process): a waiter
//     that missed the release's message sleeps out the TTL it was told.
//   - latch (latch): in each round, no waiter released before the
//     round's count of count-downs were invoked; no waiter giving up more
//     than a lease and Config.Slack after they had all returned ok.
//   - rate (rate): grants whose spans fit in one interval (less the
//     clocks' allowance) never take more than the limit's permits.
//   - leftovers (the run): after the run, the lock services hold only keys
//     meant to stay (history.KeptFamilies) or with a TTL; a fair queue's
//     keys are measured (the run does not record its deadlines).
//
// # What is measured (Measured: counted and reported, never a failure)
//
// An overlap, a repeated or regressed token, an overrun semaphore is
// explained only by a cause on the holder whose hold broke: the earlier
// holder, or the later one when its acquisition was in flight as the
// earlier one's returned (Redis may have granted it first); a holder
// invoked after the other had returned never held first, and a fault on
// it, or on another process, explains nothing. The causes (mayHaveLost):
//
//   - its own process paused (pause) past its lease;
//   - a Redisson holder under a fault that hit its process or its Redis
//     (Redisson tells a holder nothing when its lease is lost);
//   - a fixed lease or a permit's lease run out;
//   - a fault on its lock service that may lose acknowledged writes
//     (Manifest.LosesLocks: a restart without persistence or with
//     appendfsync everysec, a failover without WithReplicaAck), during it
//     or for a lease and Config.Slack after, or the writes no replica
//     acknowledged (Manifest.LosesUnacked) where its holder was promised
//     none: a semaphore's, a Redisson holder's or token. A relock lock
//     holder or token acknowledged by a replica lost in a failover is a
//     violation.
//
// An overrun of k permits needs causes for k: each holder inside that may
// have lost its permit accounts for its own, and each Redisson release
// whose reply did not come within Config.RedissonTimeout (Redisson sends
// it again: applied twice) for one release's, from the moment a resend
// could apply, in its own semaphore; a process killed before then resent
// nothing. Also measured: a Redisson acquisition late by no more than
// Config.RedissonResend (its retry policy: its last command's response
// timeout and two resends), and lost updates of the plain
// (unfenced) counter, or across a fault that lost writes, or of two
// read-write writers whose overlap a cause explains; a latch waiter
// released early, or a rate window over its limit, under a fault that may
// lose the count or the permits (LosesLocks, or LosesUnacked: neither
// waits for replicas); a latch waiter that gave up late under a fault
// that hit it (its process, everyone, its lock service) while it waited.
//
// Findings are dated at the operation that makes them, and attributed to
// the faults whose span (the fault, then one lease and Config.Slack) holds
// them, and acquisitions likewise, for the report's table of fault kind by
// workload.
package check
