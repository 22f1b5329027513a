package history

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"
)

// ManifestFile is the manifest's file name in a run directory.
const ManifestFile = "manifest.json"

// The workloads, as the workload field and NameSpec.Workload name them.
const (
	Fenced      = "fenced"      // FencedMutex, RFencedLock; a fenced store
	Plain       = "plain"       // Mutex, RLock; a register without fencing
	Fair        = "fair"        // FairMutex, RFairLock
	RW          = "rw"          // RWMutex, RReadWriteLock; a register
	Semaphore   = "semaphore"   // Semaphore, RSemaphore
	PESemaphore = "pesemaphore" // PermitExpirableSemaphore, RPermitExpirableSemaphore
	Election    = "election"    // Election (and RFencedLock on its name)
	FairRW      = "fairrw"      // FairRWMutex (Go only: Redisson has none)
	Latch       = "latch"       // CountDownLatch, RCountDownLatch: rounds of a latch each
	Rate        = "rate"        // RateLimiter, RRateLimiter
	RedLock     = "redlock"     // NewRedLock, RedissonRedLock, over three servers
)

// Workloads lists the workloads in the order reports show them.
var Workloads = []string{Fenced, Plain, Fair, RW, Semaphore, PESemaphore, Election, FairRW, Latch, Rate, RedLock}

// Manifest describes a run: when it ran, what each name is, and which
// faults may lose writes that Redis acknowledged. The fleet writes it
// beside the history files (WriteManifest).
type Manifest struct {
	Started time.Time           `json:"started"`
	Ended   time.Time           `json:"ended"`
	Seed    int64               `json:"seed,omitempty"`
	Names   map[string]NameSpec `json:"names"`
	// LosesLocks lists the fault kinds that may lose acquisitions Redis
	// acknowledged (and so reset the fencing counter); null or absent
	// means DefaultLosesLocks, [] none. Overlapping holders and token
	// regressions under them are measured, not violations.
	LosesLocks []string `json:"loses_locks"`
	// LosesData lists the fault kinds that may lose register writes Redis
	// acknowledged (the fenced store's, a counter's); null or absent means
	// DefaultLosesData, [] none: registers kept on a server no fault
	// touches lose nothing.
	LosesData []string `json:"loses_data"`
	// LosesUnacked lists the fault kinds that lose the writes no replica
	// acknowledged, though relock's acquisitions and terms waited for one
	// (WithReplicaAck); null or absent means DefaultLosesUnacked, [] none.
	// Under them a semaphore's count, and a Redisson client's acquisitions
	// and tokens, may be lost: measured, not violations.
	LosesUnacked []string `json:"loses_unacked"`
}

// DefaultLosesLocks: a restart without persistence, or with appendfsync
// everysec (up to a second of writes), and a failover without
// WithReplicaAck, planned or not (a master killed, or cut off), may each
// lose acknowledged writes.
var DefaultLosesLocks = []string{"restart-nopersist", "restart-everysec", "failover", "kill-master", "cut-master"}

// DefaultLosesData: those, and a failover with WithReplicaAck, which waits
// for replicas on acquisitions but not on a register's writes.
var DefaultLosesData = []string{"restart-nopersist", "restart-everysec", "failover", "failover-ack",
	"kill-master", "kill-master-ack", "cut-master", "cut-master-ack"}

// DefaultLosesUnacked: a failover with WithReplicaAck, planned or not, which
// covers relock's lock acquisitions and election terms only: neither
// relock's semaphores nor Redisson (its RFencedLock's token, its
// semaphores) wait for replicas.
var DefaultLosesUnacked = []string{"failover-ack", "kill-master-ack", "cut-master-ack"}

// NameSpec describes one name of a run.
type NameSpec struct {
	Workload string `json:"workload"`
	// Permits is a semaphore's N: never more than N inside; a latch's
	// count, each round; a rate limiter's limit, per IntervalMS.
	Permits int `json:"permits,omitempty"`
	// LeaseMS is the holders' lease in milliseconds: the watchdog's
	// timeout, or the fixed lease (FixedLease), or a permit's lease.
	LeaseMS int64 `json:"lease_ms"`
	// IntervalMS is a rate limiter's interval in milliseconds.
	IntervalMS int64 `json:"interval_ms,omitempty"`
	// FixedLease: holders take the lock for LeaseMS without a watchdog, so
	// a hold ends LeaseMS after its grant whatever the holder does
	// (permit-expirable semaphores always do).
	FixedLease bool `json:"fixed_lease,omitempty"`
	// WaitMS is the longest an acquire waits before giving up (TryLock's
	// wait, the ctx's deadline); 0: it does not wait; -1: unbounded, and
	// liveness is not checked on this name.
	WaitMS int64 `json:"wait_ms"`
	// AckMS is how long an acquisition waits for a replica after it
	// succeeded, at most (WithReplicaAck; Redisson's slavesSyncTimeout, on
	// every Sentinel deployment): its wait may run over by that much.
	AckMS int64 `json:"ack_ms,omitempty"`
	// FairBound is how many later arrivals may overtake a fair waiter (the
	// fair lock's documented bound is 0).
	FairBound int `json:"fair_bound,omitempty"`
	// Redis is the lock service the name lives on: the fleet's namespace
	// ("single", "ack", "noack"), which is also the target of the
	// nemesis's restarts and failovers of that service.
	Redis string `json:"redis,omitempty"`
}

// Lease returns the spec's lease.
func (s NameSpec) Lease() time.Duration { return time.Duration(s.LeaseMS) * time.Millisecond }

// Wait returns how long an acquire waits at most, and false if that is
// unbounded.
func (s NameSpec) Wait() (time.Duration, bool) {
	return time.Duration(s.WaitMS) * time.Millisecond, s.WaitMS >= 0
}

// Ack returns how long an acquisition waits for a replica, at most.
func (s NameSpec) Ack() time.Duration { return time.Duration(s.AckMS) * time.Millisecond }

// Expires reports whether a hold ends LeaseMS after its grant whatever its
// holder does (a fixed lease, a permit's lease).
func (s NameSpec) Expires() bool { return s.FixedLease || s.Workload == PESemaphore }

// Validate reports the first thing wrong with m: a name without a known
// workload, a semaphore without permits, a lease that is not positive, a
// wait below -1, an end before the start.
func (m Manifest) Validate() error {
	if len(m.Names) == 0 {
		return errors.New("history: the manifest names no object")
	}
	if !m.Ended.IsZero() && m.Ended.Before(m.Started) {
		return fmt.Errorf("history: the manifest's run ended (%v) before it started (%v)", m.Ended, m.Started)
	}
	for _, name := range m.SortedNames() {
		s := m.Names[name]
		switch {
		case !slices.Contains(Workloads, s.Workload):
			return fmt.Errorf("history: name %q: unknown workload %q (want one of %v)", name, s.Workload, Workloads)
		case (s.Workload == Semaphore || s.Workload == PESemaphore || s.Workload == Latch || s.Workload == Rate) && s.Permits <= 0:
			return fmt.Errorf("history: name %q: a %s needs permits > 0, not %d", name, s.Workload, s.Permits)
		case s.Workload == Rate && s.IntervalMS <= 0:
			return fmt.Errorf("history: name %q: a rate limiter needs interval_ms > 0, not %d", name, s.IntervalMS)
		case s.LeaseMS <= 0:
			return fmt.Errorf("history: name %q: lease_ms must be positive, not %d", name, s.LeaseMS)
		case s.AckMS < 0:
			return fmt.Errorf("history: name %q: ack_ms must not be negative, not %d", name, s.AckMS)
		case s.WaitMS < -1:
			return fmt.Errorf("history: name %q: wait_ms must be -1 (unbounded) or more, not %d", name, s.WaitMS)
		case s.FairBound < 0:
			return fmt.Errorf("history: name %q: fair_bound must not be negative, not %d", name, s.FairBound)
		}
	}
	return nil
}

// SortedNames returns the manifest's names in order.
func (m Manifest) SortedNames() []string {
	names := make([]string, 0, len(m.Names))
	for n := range m.Names {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// LosesLocksUnder reports whether a fault of kind may lose acquisitions.
func (m Manifest) LosesLocksUnder(kind string) bool {
	return slices.Contains(orDefault(m.LosesLocks, DefaultLosesLocks), kind)
}

// LosesDataUnder reports whether a fault of kind may lose register writes.
func (m Manifest) LosesDataUnder(kind string) bool {
	return slices.Contains(orDefault(m.LosesData, DefaultLosesData), kind)
}

// LosesUnackedUnder reports whether a fault of kind may lose the writes
// that no replica acknowledged: semaphores', Redisson's.
func (m Manifest) LosesUnackedUnder(kind string) bool {
	return slices.Contains(orDefault(m.LosesUnacked, DefaultLosesUnacked), kind)
}

func orDefault(l, d []string) []string {
	if l == nil {
		return d
	}
	return l
}

// WriteManifest validates m and writes it into dir as ManifestFile.
func WriteManifest(dir string, m Manifest) error {
	if err := m.Validate(); err != nil {
		return err
	}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, ManifestFile), append(b, '\n'), 0o644)
}

// ReadManifest reads and validates dir's ManifestFile. Unknown fields are
// an error, so that a misspelt one is not silently ignored.
func ReadManifest(dir string) (Manifest, error) {
	f, err := os.Open(filepath.Join(dir, ManifestFile))
	if err != nil {
		return Manifest{}, err
	}
	defer f.Close()
	var m Manifest
	d := json.NewDecoder(f)
	d.DisallowUnknownFields()
	if err := d.Decode(&m); err != nil {
		return Manifest{}, fmt.Errorf("history: %s: %w", f.Name(), err)
	}
	return m, m.Validate()
}
