// Package failover tests relock's locks on a Sentinel-managed Redis, with
// real redis-server and redis-sentinel processes on loopback
// (redistest.StartSentinel), through go-redis's failover client: locks
// taken, waited for and handed over by pub/sub, then a master failover,
// planned (SENTINEL FAILOVER) and unplanned (the master killed), in the
// middle of contention.
//
// # What a failover can do to a lock
//
// Redis replicates asynchronously, and Sentinel promotes a replica without
// stopping the former master first. Two kinds of writes are therefore lost:
// those the promoted replica had not received when it was promoted, and
// those that clients which had not yet heard of the switch sent to the
// former master afterwards (a planned failover leaves it running, as a
// master, until Sentinel demotes it about ten seconds later). For a lock
// this means:
//
//   - an acquisition reported to its caller can be missing on the new
//     master: another owner can take the lock while the first still
//     believes it holds it. The first learns it at its next renewal, which
//     finds the lock gone (Lost closes; Unlock returns ErrNotHeld), unless
//     it released the lock before its Client switched: then it is never
//     told;
//   - a release can be lost: the lock stays held on the new master, by
//     nobody, until its lease ends, and waiters wait that long;
//   - the fencing-token counter lives in Redis too and can go back: tokens
//     granted again after the failover can repeat or undercut tokens
//     already used, so a store that fences by token rejects the writes of
//     legitimate holders until the counter passes the highest token it saw.
//
// rlock.WithReplicaAck closes the first and third holes for a planned
// failover: an acquisition is reported only once a replica acknowledged
// it, and an acquisition sent to the former master after the promotion is
// acknowledged by nobody, so it is undone and reported as ErrNotReplicated.
// It does not protect releases, and it makes acquisitions fail while the
// master has fewer replicas than it asks for.
//
// The tests assert what the library promises and log what they measure;
// none of them asserts a duration that depends on the machine's speed.
//
// Like every package under test/, it exists for relock's own tests and
// makes no compatibility promise: its API changes as the tests need.
package failover
