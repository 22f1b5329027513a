// Package check decides what a proof run's history (package history)
// shows: what held of what must hold, and what was measured of what
// cannot. Each name is checked on its own, by its workload.
//
// # What is proven (a Violation fails the run)
//
//   - register (fenced, election, plain, rw): the register's reads and
//     writes are linearizable against the fenced store's model (a value
//     guarded by the highest token seen; a register without fencing has
//     every token 0), checked by porcupine. An accepted write no later
//     read sees, a read of a value never written, a write accepted with a
//     token below one the store had seen: each makes the history illegal.
//     The history is checked in chunks cut where no operation of known
//     outcome is in flight; an operation of unknown outcome (info, or no
//     completion: a killed process) may or may not take effect, at any
//     time in its window, and is carried into the next chunk while that
//     window is open (see registerOps for the window). Each chunk starts
//     from the states the history itself settles at the cut (settle: one
//     value, or the few a write of unknown order may have left), never
//     from porcupine's choice of order, so no right history is judged
//     wrong for the cut. A chunk porcupine cannot decide within
//     Config.ChunkTimeout is Unchecked, never ok. An illegal chunk's
//     finding names the operation no order fits, and gets porcupine's
//     visualization (HTML) beside the history.
//   - lost-updates (fenced, election, rw): the counter's final value
//     equals the number of accepted writes (each wrote the value read
//     plus one).
//   - store-tokens (fenced, election): the store never accepted a write
//     with a token below one it had accepted before that write was
//     invoked.
//   - grant-tokens (fenced, election): tokens granted are distinct, and
//     grow in real-time order (a direct check: for a counter that only
//     grows, that is what linearizability means).
//   - exclusion (every lock): no two sections overlap, a writer's beside
//     no other; permits (semaphores): never more than N holders inside,
//     by sections and by the count each read when it marked in.
//   - fair-order (fair): no waiter is granted after more than FairBound
//     waiters invoked more than Config.FairMargin after it (the history
//     shows when a waiter was invoked, not when it queued: the margin
//     covers the difference; a retry after an attempt that timed out
//     arrived with it: it keeps its place). A waiter that waited during a fault, or
//     within a lease and Config.Slack after one, is not judged: a fault
//     can evict a live waiter, which then queues again. A spawn (a process
//     started in a killed one's place) counts so for its own waiters only:
//     a cold JVM may queue a second after it invoked.
//   - liveness (every name with a bounded wait): every acquire returns,
//     served or told, within its wait, its wait for a replica
//     (NameSpec.AckMS) and Config.Slack, or within one
//     lease and Config.Slack after the last fault overlapping that span
//     healed.
//
// # What is measured (Measured: counted and reported, never a failure)
//
//   - a Redisson acquisition late by no more than Config.RedissonResend:
//     Redisson's resends of a command without a reply (its retry policy).
//   - overlapping sections, overrun semaphores, token regressions and
//     illegal register chunks that a fault or lease explains: a lock
//     holder paused past its lease (pause), a Redisson holder under any
//     fault (Redisson tells a holder nothing when its lease is lost), a
//     fixed lease or a permit's lease run out, a fault that may lose
//     acknowledged writes (Manifest.LosesLocks, Manifest.LosesData: a
//     restart without persistence, a failover without WithReplicaAck),
//     during it or for a lease and Config.Slack after it healed, or the
//     writes no replica acknowledged (Manifest.LosesUnacked: a failover
//     with WithReplicaAck loses a semaphore's count and a Redisson
//     client's acquisitions and tokens); an overrun semaphore after a
//     Redisson release that outlasted Config.RedissonTimeout (Redisson
//     sends it again: applied twice). A relock lock holder that was not paused is told (Lost) no later
//     than Redis expires its lock, and its section ends there, so nothing
//     else explains an overlap: the plain lock's unexplained overlaps are
//     violations like any other lock's.
//   - lost updates of the plain (unfenced) counter, and of any counter
//     across a fault that lost writes.
//
// Findings are attributed to the faults whose span (the fault, then one
// lease and Config.Slack) holds them, and acquisitions likewise, for the
// report's table of fault kind by workload.
package check
