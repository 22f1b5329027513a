// Package report turns the results of a benchmark run into a text table, a
// check of the project's performance targets, JSON and plots.
package report

import (
	"encoding/json"
	"os"
	"time"

	"github.com/relock-go/relock/bench/internal/harness"
)

// Machine describes where a run happened.
type Machine struct {
	GoVersion    string  `json:"go_version"`
	OS           string  `json:"os"`
	Arch         string  `json:"arch"`
	CPUs         int     `json:"cpus"`
	MemoryGiB    float64 `json:"memory_gib,omitempty"`
	CPUModel     string  `json:"cpu_model,omitempty"`
	RedisVersion string  `json:"redis_version"`
	RedisAddr    string  `json:"redis_addr"`
}

// Config records the run's settings.
type Config struct {
	Strategies      []string `json:"strategies"`
	Goroutines      []int    `json:"goroutines"`
	Clients         int      `json:"clients"`
	HoldMs          float64  `json:"hold_ms"`
	RunSeconds      float64  `json:"seconds_per_contention_run"`
	WarmupSeconds   float64  `json:"warmup_seconds"`
	ManyLocks       int      `json:"many_locks"`
	ManyWaiters     int      `json:"many_waiters_per_lock"`
	ScaleWaiters    int      `json:"scale_waiters_per_lock,omitempty"`
	IdleSeconds     float64  `json:"idle_seconds,omitempty"`
	WatchdogLocks   int      `json:"watchdog_locks"`
	WatchdogTimeout float64  `json:"watchdog_timeout_seconds"`
	ClusterLocks    int      `json:"cluster_locks,omitempty"`
	ClusterWaiters  int      `json:"cluster_waiters_per_lock,omitempty"`
	ClusterHoldMs   float64  `json:"cluster_hold_ms,omitempty"`
}

// Report is everything one run measured.
type Report struct {
	Started time.Time         `json:"started"`
	Seconds float64           `json:"seconds"`
	Machine Machine           `json:"machine"`
	Config  Config            `json:"config"`
	Ping    harness.Quantiles `json:"ping"`
	// IdlePing is PING after an idle of the contention scenario's hold.
	IdlePing    harness.Quantiles           `json:"ping_after_idle"`
	Uncontended []harness.UncontendedResult `json:"uncontended,omitempty"`
	Contention  []harness.ContentionResult  `json:"contention,omitempty"`
	// Holds is the contention scenario at other critical sections.
	Holds     []harness.ContentionResult `json:"holds,omitempty"`
	ReadWrite []harness.ReadWriteResult  `json:"readwrite,omitempty"`
	ManyLocks []harness.ManyLocksResult  `json:"many_locks,omitempty"`
	// Scale is relock with default options at each -scale-locks count.
	Scale    []harness.ManyLocksResult `json:"scale,omitempty"`
	Watchdog *harness.WatchdogResult   `json:"watchdog,omitempty"`
	Cluster  []harness.ClusterResult   `json:"cluster,omitempty"`
	// ClusterScale is the scale scenario on Clusters of each masters
	// count (ManyLocksResult.Masters).
	ClusterScale []harness.ManyLocksResult `json:"cluster_scale,omitempty"`
	Targets      []Target                  `json:"targets,omitempty"`
}

// WriteJSON writes r, indented, to path.
func (r *Report) WriteJSON(path string) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// ReadJSON reads a report that WriteJSON wrote.
func ReadJSON(path string) (*Report, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var r Report
	return &r, json.Unmarshal(b, &r)
}

// RTT is the run's PING round trip (p50).
func (r *Report) RTT() time.Duration {
	return time.Duration(r.Ping.P50 * float64(time.Millisecond))
}

// find returns the contention result of strategy at g goroutines, or nil.
func (r *Report) find(strategy string, g int) *harness.ContentionResult {
	for i := range r.Contention {
		if c := &r.Contention[i]; c.Strategy == strategy && c.Goroutines == g {
			return c
		}
	}
	return nil
}
