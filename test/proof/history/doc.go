// Package history is what a proof run records: every operation of every
// process of the fleet, Go or Java, as JSON lines, one file per process,
// and a manifest that says what each name is; Load reads a run's directory
// back for the checker (package check).
//
// # Files
//
// A run directory holds one history file per process, named <anything>.jsonl
// (go-3.jsonl, java-1.jsonl, nemesis.jsonl), manifest.json (Manifest,
// written by WriteManifest), and leftovers.json (Leftover: what the lock
// services held after the run). Every other file is ignored.
//
// # Lines
//
// An operation is two lines: an invocation, written before the call, and
// its completion, written when the call returned. A process killed or
// paused forever leaves invocations without completions; a checker treats
// those as operations whose outcome is unknown (they may or may not have
// taken effect). Each line is written with one write(2), so a process
// killed with SIGKILL loses no line it finished writing; a last line cut
// short is dropped when read.
//
// A line is a JSON object with these fields (omitted when zero):
//
//	type      "invoke", "ok" (done, with effect), "fail" (done, certainly
//	          without effect: not granted, rejected), "info" (returned
//	          with an error: the effect is unknown)
//	process   the process, "go-3" or "java-1"; with id, names the operation
//	side      "go" or "java" ("" for the nemesis)
//	workload  fenced, plain, fair, rw, semaphore, pesemaphore, election,
//	          fairrw, latch, rate, redlock
//	name      the object's name in Redis
//	id        the operation's number within its process, from 1
//	op        what was done (below)
//	t         when: nanoseconds since the Unix epoch, the host's clock (all
//	          processes run on one host: one clock)
//	mode      rw: "read" or "write"
//	value     a register's value read (on ok), or to be written (on
//	          invoke); semaphore acquire and release, rate acquire: the
//	          permits (0: one); latch write: the count set
//	token     the fencing token the operation holds (read, write: on
//	          invoke) or was granted (acquire: on ok); latch: the round
//	          (on invoke)
//	count     semaphore enter: how many were inside once this holder
//	          marked in (on ok)
//	error     the error text of a fail or info
//	fault     nemesis: the fault's kind (below)
//	target    nemesis: what the fault hits: a process ("go-3"); a lock
//	          service, by the namespace the manifest gives its names
//	          (NameSpec.Redis: "single", "ack", "noack"), for its restarts
//	          and failovers, which then concern only the names on it; or
//	          anything else ("" for everything), which hits every process
//	          and name
//
// The completion repeats the invocation's process, id, workload, name and
// op; Load pairs the two by process and id, and takes value, token and
// count from whichever line carries them.
//
// # Operations
//
//	acquire   take the object: lock, read/write lock (mode), permit(s),
//	          leadership (a term); ok carries the token where there is one
//	release   give it back; fail: not held any more (ErrNotHeld,
//	          IllegalMonitorStateException)
//	lost      the holder learned that its hold ended (Go's Lost, a
//	          permit's Lost, a term's Lost): an instant, written as invoke
//	          and ok with one t (Writer.Instant)
//	read      read the guarded register; fenced (and election): through
//	          the fenced store, with the holder's token, which raises the
//	          store's highest token seen to at least it
//	write     write the guarded register (value: read + 1); fenced: with
//	          the token, accepted only if no higher token was seen; fail
//	          means the store rejected the token, and nothing else: any
//	          other error is info
//	enter     mark in, inside a semaphore's section; ok carries count
//	leave     mark out
//	queued    a relock waiter's first attempt was answered busy: it had
//	          joined the fair queue by then (an instant, as lost; value:
//	          the id of its acquire)
//	fault     the nemesis's (process "nemesis"): invoke when the fault
//	          begins, ok when it is healed (a kill: at once; info if it
//	          could not be injected or healed, taken as over then); a
//	          fault never completed lasts to the end of the run
//
// A latch round's operations (Token: the round) reuse three: write sets
// the latch's count (fail: it had one), release counts it down, acquire
// awaits zero (ok: released; fail: the wait ended first).
//
// A process holds at most one hold per name at a time (a process that runs
// several holders of one name gives each its own process name and file): a
// section is its acquire's ok up to its release's invoke, its lost, or its
// process's last line, whichever comes first. A register starts at 0, with
// no token seen; after the run the fleet reads each register once more
// (read, token 0), so that the last write is seen. A semaphore holder's
// mark (count) lasts as long as its permit, or less: the fleet takes the
// marks of a process killed inside out once the process is dead (its
// permit is then gone for good, or comes back when its lease ends), so a
// count never includes a dead holder beside the live ones its permit let
// in.
//
// # Faults
//
// The nemesis names its faults with these kinds; the checker knows what
// pause and kill do to a process, and which kinds may lose acknowledged
// writes from the manifest (Manifest.LosesLocks, Manifest.LosesData):
//
//	partition, latency, reset   test/faultproxy, target a process or ""
//	pause                       SIGSTOP then SIGCONT of target
//	kill                        SIGKILL of target
//	spawn                       not injected: an instant, when the process
//	                            target, started in a killed one's place,
//	                            began on the run's objects
//	restart-always              Redis restarted, AOF appendfsync always
//	restart-everysec            Redis restarted, AOF appendfsync everysec
//	restart-nopersist           Redis restarted without persistence
//	failover                    Sentinel failover, no WithReplicaAck
//	failover-ack                Sentinel failover, WithReplicaAck
//	script-flush                SCRIPT FLUSH
//
// Other kinds are accepted and reported under their own name.
package history
