// Package fleet runs a proof: separate OS processes, Go ones using relock
// and Java ones using Redisson 3.52, contending for the same objects while
// a nemesis injects faults, each process recording every operation it
// makes (package history) for the checker (package check).
//
// # What runs
//
//   - The resource: a redis-server that no fault touches, holding what the
//     locks guard (package store).
//   - The lock services, one per namespace (store.Namespaces): a single
//     redis-server with AOF, and two Sentinel deployments (a master, a
//     replica and three Sentinels each): "ack", where the Go side acquires
//     WithReplicaAck and Redisson waits for a replica (its default), and
//     "noack", where neither waits.
//   - The workers: Go processes (../worker) and Java processes (../java,
//     compiled against the Redisson peer's jar and cached by a hash of the
//     sources, the jar and javac), each running every workload of every
//     namespace in a loop of its own (store.GoOnly's only on the Go side:
//     Redisson has no fair read-write lock). Each reaches every lock service
//     through proxies of its own (test/faultproxy): the single server's,
//     and one per data node of each Sentinel deployment (the Sentinels
//     themselves are reached directly).
//   - The nemesis (package nemesis decides; this package injects): network
//     faults on one process's proxies or everyone's, a pause (SIGSTOP and
//     SIGCONT) or a kill (SIGKILL, and a new process in its place) of a Go
//     or a Java process, restarts of the single server from its AOF
//     (appendfsync always, everysec) and empty, planned failovers of each
//     Sentinel deployment, and SCRIPT FLUSH of every lock service. One
//     fault at a time, each written to nemesis.jsonl as a span.
//
// After a fault that may lose the lock service's writes (a restart without
// persistence, a failover) has had a lease or two to show what it does,
// the workloads of that namespace move to fresh objects (an epoch, in the
// objects' names), as users would start again from a known state. The
// semaphores move after every fault: a permit given back twice, or taken
// and never given back (a killed holder's), would otherwise leave the count
// wrong through every later fault.
//
// # The run directory
//
// One history file per process (go-1.jsonl, java-2.jsonl), nemesis.jsonl,
// final.jsonl (every register read once more after the processes stopped),
// manifest.json (history.Manifest: the seed, and every name the run used),
// logs/ (each process's stderr) and bin/ (the Go worker).
//
// Like every package under test/, it exists for relock's own tests and
// makes no compatibility promise.
package fleet
