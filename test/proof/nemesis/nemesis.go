// Package nemesis decides the faults of a proof run: which, on what, for
// how long, one after another, from a seed. The fleet (package fleet)
// injects them and writes each to the run's history (history's "fault"
// lines), so that the same seed replays the same decisions.
//
// A schedule first draws every kind once, in an order the seed shuffles
// (pause and kill once on each side), so that a run long enough for one
// round covers every kind; then it draws kinds at random. Durations are in
// leases: a pause of one to three leases is the GC pause or stopped VM
// that outlives a lease.
//
// Like every package under test/, it exists for relock's own tests and
// makes no compatibility promise.
package nemesis

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"time"
)

// The fault kinds, as the history names them.
const (
	// Partition holds back every byte between a process and its lock
	// services, both ways (faultproxy's stall), and when it heals either
	// delivers them, as TCP does through a partition, or resets every
	// connection (Fault.Severed); or it refuses them from its start
	// (Fault.Refused).
	Partition = "partition"
	// Latency delays every byte between a process and its lock services.
	Latency = "latency"
	// Reset aborts a process's connections to its lock services with a
	// TCP RST.
	Reset = "reset"
	// Pause stops a process (SIGSTOP) and continues it (SIGCONT).
	Pause = "pause"
	// Kill kills a process (SIGKILL); another takes its place.
	Kill = "kill"
	// Spawn is not injected: it records, as an instant aimed at the new
	// process, that the process taking a killed one's place started on the
	// run's objects. Its first moments are cold (a JVM's connection pool,
	// code never run), which delays its own commands.
	Spawn = "spawn"
	// RestartAlways kills the single server and restarts it from its AOF,
	// written with appendfsync always.
	RestartAlways = "restart-always"
	// RestartEverysec is RestartAlways with appendfsync everysec.
	RestartEverysec = "restart-everysec"
	// RestartNoPersist kills the single server and restarts it empty.
	RestartNoPersist = "restart-nopersist"
	// Failover fails the noack deployment's master over to its replica
	// (SENTINEL FAILOVER); neither side waits for replicas there.
	Failover = "failover"
	// FailoverAck fails the ack deployment's master over: the Go side
	// acquires WithReplicaAck there, the Java side with Redisson's wait
	// for a replica.
	FailoverAck = "failover-ack"
	// ScriptFlush empties the script cache of every lock service.
	ScriptFlush = "script-flush"
	// KillMaster kills the master of every Sentinel deployment at once
	// (SIGKILL), and its Sentinels elect the replica on their own; the
	// killed server then starts again, empty, as the new master's
	// replica. The history records it by deployment: KillMaster
	// on noack, KillMasterAck on ack.
	KillMaster    = "kill-master"
	KillMasterAck = "kill-master-ack"
	// CutMaster cuts the master of every Sentinel deployment off from
	// its clients (their proxies stalled) and from its Sentinels and
	// replica (its process stopped) until the Sentinels elected the
	// replica, and for Length more; then everything heals at once, and
	// clients that have not heard of the switch may still write to the
	// former master until the Sentinels demote it. Recorded as CutMaster
	// on noack, CutMasterAck on ack.
	CutMaster    = "cut-master"
	CutMasterAck = "cut-master-ack"
	// ClusterFailover promotes the replica of a Redis Cluster master that
	// serves one of the objects in use (CLUSTER FAILOVER: the replica
	// takes over once it has every write of its master).
	ClusterFailover = "cluster-failover"
	// SlotMigration moves the hash slot of an object in use to another
	// Redis Cluster master (SETSLOT IMPORTING and MIGRATING, MIGRATE of
	// its keys, SETSLOT NODE), while its locks are held.
	SlotMigration = "slot-migration"
)

// Kinds lists every kind.
var Kinds = []string{Partition, Latency, Reset, Pause, Kill, RestartAlways, RestartEverysec,
	RestartNoPersist, Failover, FailoverAck, ScriptFlush, KillMaster, CutMaster}

// ClusterKinds lists the kinds of a run with a Redis Cluster, beside Kinds.
var ClusterKinds = []string{ClusterFailover, SlotMigration}

// The sides a pause or kill picks its process from.
const (
	Go   = "go"
	Java = "java"
)

// Fault is one decision: a kind, and what the fleet needs to inject it.
type Fault struct {
	Kind string
	// Side is the side of the process a pause or kill hits ("go" or
	// "java"); the fleet picks the process among the side's live ones
	// with Pick.
	Side string
	// Everyone: a network fault hits every process, not one.
	Everyone bool
	// Severed: a partition ends with every connection it held reset, as
	// when a network lost their state (a NAT, a firewall), what they held
	// dropped; otherwise, as TCP's retransmissions would, it delivers
	// what it held. Drawn from Pick's highest bit, half of them.
	Severed bool
	// Refused: a partition resets every connection as it begins and
	// refuses every new one until it heals, as a firewall's REJECT rule
	// does, so that commands fail at once instead of timing out. Drawn
	// from Pick's two highest bits, a quarter of the partitions (half of
	// those that would be severed).
	Refused bool
	// Length is how long a partition, latency or pause lasts, and how
	// long a cut master stays cut off after the Sentinels elected another.
	Length time.Duration
	// Delay is a latency fault's delay, each way.
	Delay time.Duration
	// Pick chooses the process a fault hits, among n candidates.
	Pick int
	// Gap is the quiet time after the fault healed, before the next.
	Gap time.Duration
}

func (f Fault) String() string {
	s := f.Kind
	switch f.Kind {
	case Pause, Kill:
		s += " " + f.Side
	}
	if f.Everyone {
		s += " everyone"
	}
	if f.Severed {
		s += " severed"
	}
	if f.Refused {
		s += " refused"
	}
	if f.Length > 0 {
		s += fmt.Sprintf(" for %v", f.Length.Round(time.Millisecond))
	}
	if f.Delay > 0 {
		s += fmt.Sprintf(" at %v", f.Delay.Round(time.Millisecond))
	}
	return s
}

// Schedule draws faults from a seed.
type Schedule struct {
	rng   *rand.Rand
	lease time.Duration
	kinds []string
	// first holds what is left of the first round: kinds, with pause and
	// kill once per side ("pause/go").
	first []string
}

// New returns the schedule of seed over kinds (nil: Kinds), whose lengths
// are measured in lease.
func New(seed int64, kinds []string, lease time.Duration) (*Schedule, error) {
	if kinds == nil {
		kinds = Kinds
	}
	var first []string
	for _, k := range kinds {
		if !slices.Contains(Kinds, k) && !slices.Contains(ClusterKinds, k) {
			return nil, fmt.Errorf("nemesis: unknown fault kind %q (want one of %v, %v)", k, Kinds, ClusterKinds)
		}
		if k == Pause || k == Kill {
			first = append(first, k+"/"+Go, k+"/"+Java)
			continue
		}
		first = append(first, k)
	}
	if len(first) == 0 {
		return nil, fmt.Errorf("nemesis: no fault kind")
	}
	if lease <= 0 {
		return nil, fmt.Errorf("nemesis: lease %v", lease)
	}
	s := &Schedule{rng: rand.New(rand.NewPCG(uint64(seed), 0x6e656d65)), lease: lease, kinds: kinds}
	s.rng.Shuffle(len(first), func(i, j int) { first[i], first[j] = first[j], first[i] })
	s.first = first
	return s, nil
}

// Covered reports whether every kind has been drawn (on both sides for a
// pause and a kill).
func (s *Schedule) Covered() bool { return len(s.first) == 0 }

// Next draws the next fault.
func (s *Schedule) Next() Fault {
	var kind, side string
	if len(s.first) > 0 {
		kind, s.first = s.first[0], s.first[1:]
		if k, sd, ok := strings.Cut(kind, "/"); ok {
			kind, side = k, sd
		}
	} else {
		kind = s.kinds[s.rng.IntN(len(s.kinds))]
		side = []string{Go, Java}[s.rng.IntN(2)]
	}
	f := Fault{Kind: kind, Pick: s.rng.IntN(1 << 30), Gap: s.leases(0.5, 1.5)}
	switch kind {
	case Partition:
		f.Everyone, f.Length = s.rng.IntN(3) == 0, s.leases(0.5, 3)
		f.Severed = f.Pick&(1<<29) != 0
		f.Refused, f.Severed = f.Severed && f.Pick&(1<<28) != 0, f.Severed && f.Pick&(1<<28) == 0
	case Latency:
		f.Everyone, f.Length = s.rng.IntN(2) == 0, s.leases(1, 3)
		f.Delay = time.Duration(5+s.rng.IntN(246)) * time.Millisecond
	case Reset:
		f.Everyone = s.rng.IntN(2) == 0
	case Pause:
		f.Side, f.Length = side, s.leases(1, 3)
	case Kill:
		f.Side = side
	case CutMaster:
		f.Length = s.leases(0.5, 1.5)
	}
	return f
}

// leases returns a random duration between lo and hi leases.
func (s *Schedule) leases(lo, hi float64) time.Duration {
	return time.Duration((lo + s.rng.Float64()*(hi-lo)) * float64(s.lease))
}
