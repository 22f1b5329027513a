package fleet

import (
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/relock-go/relock/test/proof/nemesis"
	"github.com/relock-go/relock/test/proof/store"
)

// Config is what a run does. The zero value of a field means its default.
type Config struct {
	// Dir is the run directory, created if need be: the history files,
	// the manifest, the processes' logs.
	Dir string
	// Duration is how long the nemesis injects faults (default 2m); the
	// first round of faults, one of each kind, is finished even if it takes
	// longer.
	Duration time.Duration
	// Seed decides the faults and the workers' pauses (default: from the
	// clock; the manifest records it).
	Seed int64
	// Go and Java are how many processes of each side run at once (default
	// 3 and 2); a killed one is replaced by a new one of its side.
	Go, Java int
	// Faults are the kinds the nemesis injects (default: every kind).
	Faults []string
	// Namespaces and Workloads narrow what the processes run (default:
	// all of store's).
	Namespaces, Workloads []string
	// Cluster adds the namespace store.Cluster (a Redis Cluster of three
	// masters with a replica each) to the default namespaces, and its
	// faults (nemesis.ClusterKinds) to the default kinds.
	Cluster bool

	// Lease is every lock's lease (the watchdog's timeout; Redisson's
	// lockWatchdogTimeout), default 2s.
	Lease time.Duration
	// PermitLease is a permit-expirable semaphore's permits' lease
	// (default: Lease).
	PermitLease time.Duration
	// FairWait is both sides' fair wait timeout (default 5s).
	FairWait time.Duration
	// Wait bounds every acquisition's wait (default 5s).
	Wait time.Duration
	// AckTimeout is the ack namespace's wait for a replica: Go's
	// WithReplicaAck, Redisson's slavesSyncTimeout (default 1s).
	AckTimeout time.Duration
	// Permits is each semaphore's N (default 2).
	Permits int
	// Hold and Think are the longest pause inside a section and between two
	// iterations of a loop (default 3ms and 10ms).
	Hold, Think time.Duration
	// Warmup runs the fleet without faults before the first (default 3s).
	Warmup time.Duration
	// ShortOnly: no long holds, every section lasts up to Hold; else each
	// worker keeps one section at a time of a lock the watchdog keeps
	// for 0.5 to 4 leases. For proofs of what short sections show best
	// (the order of many grants), not of renewals.
	ShortOnly bool

	// Jar is the Redisson peer's jar, whose classes the Java worker runs
	// on (default: $RELOCK_REDISSON_PEER, else ../shared/interop/
	// redisson-peer.jar beside the repository).
	Jar string
	// Log receives a line per step and per fault (nil: none).
	Log io.Writer
}

func (c *Config) defaults() error {
	set := func(d *time.Duration, v time.Duration) {
		if *d == 0 {
			*d = v
		}
	}
	set(&c.Duration, 2*time.Minute)
	set(&c.Lease, 2*time.Second)
	set(&c.PermitLease, c.Lease)
	set(&c.FairWait, 5*time.Second)
	set(&c.Wait, 5*time.Second)
	set(&c.AckTimeout, time.Second)
	set(&c.Hold, 3*time.Millisecond)
	set(&c.Think, 10*time.Millisecond)
	set(&c.Warmup, 3*time.Second)
	if c.Seed == 0 {
		c.Seed = time.Now().UnixNano()
	}
	if c.Go == 0 && c.Java == 0 {
		c.Go, c.Java = 3, 2
	}
	if c.Permits == 0 {
		c.Permits = 2
	}
	if c.Namespaces == nil {
		c.Namespaces = store.Namespaces
		if c.Cluster {
			c.Namespaces = append(slices.Clone(c.Namespaces), store.Cluster)
		}
	}
	if c.Faults == nil && c.Cluster {
		c.Faults = append(slices.Clone(nemesis.Kinds), nemesis.ClusterKinds...)
	}
	if c.Workloads == nil {
		c.Workloads = store.Workloads
	}
	if len(c.sideWorkloads(nemesis.Java)) == 0 {
		// Only Go-only workloads: a Java worker given none would run
		// its own default, every workload.
		c.Java = 0
	}
	if c.Log == nil {
		c.Log = io.Discard
	}
	switch {
	case c.Dir == "":
		return fmt.Errorf("fleet: no run directory")
	case c.Go < 0 || c.Java < 0:
		return fmt.Errorf("fleet: %d Go and %d Java processes", c.Go, c.Java)
	case c.Permits < 1:
		return fmt.Errorf("fleet: %d permits", c.Permits)
	}
	return nil
}

// sideWorkloads returns the workloads the processes of side run: every
// one for Go, all but store.GoOnly for Java.
func (c *Config) sideWorkloads(side string) []string {
	if side == nemesis.Go {
		return c.Workloads
	}
	var out []string
	for _, wl := range c.Workloads {
		if !slices.Contains(store.GoOnly, wl) {
			out = append(out, wl)
		}
	}
	return out
}

// logf writes one progress line.
func (c *Config) logf(format string, args ...any) {
	fmt.Fprintf(c.Log, "proof: "+format+"\n", args...)
}

// longHolds is how many long holds each worker keeps at once (its -long).
func (c *Config) longHolds() int {
	if c.ShortOnly {
		return 0
	}
	return 1
}
