package check

import (
	"fmt"
	"time"
)

// Severity is what a Finding means for the run.
type Severity int

const (
	// Measured: what cannot hold, counted and reported (overlapping
	// holders while one was paused past its lease, writes a restart
	// without persistence lost). It never fails a run.
	Measured Severity = iota + 1
	// Unchecked: the checker could not decide (porcupine timed out). The
	// part is not proven: a run with one is not a pass.
	Unchecked
	// Violation: what must hold did not. It fails the run.
	Violation
)

func (s Severity) String() string {
	switch s {
	case Measured:
		return "measured"
	case Unchecked:
		return "unchecked"
	case Violation:
		return "VIOLATION"
	}
	return fmt.Sprintf("Severity(%d)", int(s))
}

// The checks, as Finding.Check names them (the package doc says what each
// proves).
const (
	CheckRegister    = "register"     // the register is linearizable (porcupine)
	CheckLostUpdates = "lost-updates" // the counter's final value counts every accepted write
	CheckStoreTokens = "store-tokens" // the fenced store never accepted a token below one it accepted
	CheckGrantTokens = "grant-tokens" // tokens granted are distinct and grow in real-time order
	CheckExclusion   = "exclusion"    // no two holders at once (writers: not beside readers)
	CheckPermits     = "permits"      // never more than N inside a semaphore
	CheckFairOrder   = "fair-order"   // no waiter overtaken by more than the bound
	CheckLiveness    = "liveness"     // every waiter served or told in time
	CheckProgress    = "progress"     // a lock nobody holds is granted to its waiters in time
	CheckLeftovers   = "leftovers"    // after the run, Redis holds only what is meant to stay
)

// Finding is one thing the checker found.
type Finding struct {
	Severity Severity
	Check    string
	Name     string
	Workload string
	// Side is the side ("go", "java") of the holder whose hold broke (the
	// holder that lost it, or the earlier one when nothing explains it),
	// of the waiter, or for a lost update, of the holder whose hold broke
	// where the writers overlapped, else of the write whose update was
	// lost; "" for the harness's register and the run's leftovers.
	Side  string
	At    int64         // ns since the Unix epoch: when it happened
	Since time.Duration // At, from the run's start
	Cause string        // Measured: what explains it (a fault, a lease run out)
	Text  string
}

func (f Finding) String() string {
	s := fmt.Sprintf("%s %s %s (%s) at +%s: %s", f.Severity, f.Check, f.Name, f.Workload, f.Since.Round(time.Millisecond), f.Text)
	if f.Cause != "" {
		s += " [" + f.Cause + "]"
	}
	return s
}

// Counts is how many findings of each severity.
type Counts struct {
	Violations, Measured, Unchecked int
}

func (c *Counts) merge(o Counts) {
	c.Violations += o.Violations
	c.Measured += o.Measured
	c.Unchecked += o.Unchecked
}

func (c *Counts) add(s Severity) {
	switch s {
	case Violation:
		c.Violations++
	case Measured:
		c.Measured++
	case Unchecked:
		c.Unchecked++
	}
}

// NameResult is what was checked on one name, and what was found.
type NameResult struct {
	Name, Workload string
	Operations     int // operations of the name (invocations)
	Acquisitions   int // acquires that returned ok
	// Register is porcupine's verdict on the name's register: "ok",
	// "illegal" (some chunk is not linearizable), "unknown" (some chunk
	// timed out and none is illegal), or "" when the workload has none.
	Register string
	Chunks   int // pieces the register's history was checked in
	// Overlaps counts pairs of sections that overlapped (explained or not).
	Overlaps int
	// LostUpdates is how many accepted writes the counter's final value
	// does not count (at least); -1 when the final value is not known.
	LostUpdates int64
	// MaxInside is a semaphore's most holders at once, by sections.
	MaxInside int
	// MaxOvertaken is a fair lock's most later arrivals granted before one
	// waiter; FairWaiters how many waiters were judged, FairSkipped how
	// many were not (a fault hit them while they waited).
	MaxOvertaken, FairWaiters, FairSkipped int
	// Waiters is how many acquires liveness judged; WaitersUnjudged how
	// many it could not (no completion: killed, or the run ended, before
	// their bound); LongestWait the longest any judged one waited.
	Waiters, WaitersUnjudged int
	LongestWait              time.Duration
	// FreeLongest is the longest a waiter waited while nobody held the
	// lock, out of faults' reach (progress).
	FreeLongest time.Duration
	// Woken is how many releases with a relock waiter the woken check
	// judged; WakeLongest the longest from such a release to the first
	// grant after it, among those in time.
	Woken       int
	WakeLongest time.Duration
	ByCheck     map[string]*Counts
	Counts
}

// Cell is the table's cell for one fault kind and workload: acquisitions
// made while the fault was on or its effects could last (its span, then
// one lease and a second), and findings in that span. Kind "none" holds
// what happened out of every fault's span.
type Cell struct {
	Fault, Workload string
	Acquisitions    int
	Counts
}

// causeKey counts findings by cause ("": a violation), side and check.
type causeKey struct{ cause, side, check string }

// CauseCount is how many findings one cause explains on one side, by
// check; Cause "" counts the violations.
type CauseCount struct {
	Cause, Side, Check string
	Findings           int
}

// NoFault is the Cell.Fault of what happened out of every fault's span.
const NoFault = "none"

// Result is the checker's verdict on a run.
type Result struct {
	Names []NameResult
	// Findings holds every violation and unchecked part, and up to
	// Config.MaxExamples measured findings per name and check (the counts
	// in Names count them all).
	Findings []Finding
	Cells    []Cell
	// Causes counts every violation and measured finding by cause, side
	// and check.
	Causes []CauseCount
	// Visualizations are the porcupine visualizations written (HTML), one
	// per register chunk found illegal, up to Config.MaxVisualizations.
	Visualizations []string
	Counts
}

// Failed reports whether anything that must hold did not.
func (r *Result) Failed() bool { return r.Violations > 0 }

// Proven reports whether the run passed: no violation, and nothing left
// unchecked.
func (r *Result) Proven() bool { return r.Violations == 0 && r.Unchecked == 0 }

// Config tunes the checker; a zero field takes its default, a negative one
// is an error.
type Config struct {
	// ChunkTimeout bounds porcupine on one chunk of a register's history
	// (default 10 s); a chunk that takes longer is Unchecked.
	ChunkTimeout time.Duration
	// ChunkOps is how many operations a chunk aims at (default 1000).
	ChunkOps int
	// Horizon bounds how long after its invocation an operation of
	// unknown outcome on a register without fencing may still take effect
	// (default 5 s, counted from the end of any fault it overlaps). A
	// fenced register needs none: a higher token ends the window.
	Horizon time.Duration
	// FairMargin is how much earlier a relock waiter must have been
	// invoked than another to count as the earlier arrival (default 150 ms:
	// the history shows when a waiter was invoked, not when its command
	// reached Redis; a loaded host delays that by tens of milliseconds).
	// FairMarginRedisson is the same for a Redisson waiter (default
	// 200 ms: a JVM may stall between the record and the command).
	FairMargin, FairMarginRedisson time.Duration
	// Slack is liveness's "+ 1 s" (default 1 s).
	Slack time.Duration
	// Wake is how long after a release returned a relock waiter of the
	// lock may wait before someone is granted it, and how long before its
	// reply a grant may have been made (default 500 ms: a waiter that
	// missed the release's message sleeps out the TTL it was told, up to
	// the proof's 2 s lease; a woken one is granted within tens of ms).
	Wake time.Duration
	// FairWait is the fair locks' wait timeout (default 5 s): a waiter
	// that left its entry in a fair queue (killed, deaf, or its attempt
	// ended in doubt) holds the waiters behind it up until it passes.
	FairWait time.Duration
	// RedissonTimeout is the Java workers' Redisson response timeout
	// (default 1 s), and on a Sentinel deployment that and its wait for
	// a replica (NameSpec.AckMS): Redisson sends a command again when no
	// reply came within it, so a semaphore's release that took longer,
	// or failed without an answer, may have been applied twice.
	RedissonTimeout time.Duration
	// RedissonResend is how much longer than its wait (and Config.Slack)
	// a Redisson acquisition may take by resending its last command
	// (default 3.2 s: the workers' first response timeout and two
	// retries, each after a 100 ms delay and a response timeout; on a
	// Sentinel deployment each of the three a wait for a replica longer).
	// A Java acquire late by no more is measured, not a violation:
	// Redisson's own retry policy, which relock cannot bound.
	RedissonResend time.Duration
	// VisualDir is where porcupine's visualizations are written (default:
	// the run's directory; none if the run has none); MaxVisualizations
	// how many (default 3).
	VisualDir         string
	MaxVisualizations int
	// MaxExamples is how many measured findings Result keeps per name and
	// check (default 20).
	MaxExamples int
}

func (c Config) validate() error {
	for name, d := range map[string]time.Duration{"ChunkTimeout": c.ChunkTimeout, "Horizon": c.Horizon, "FairMargin": c.FairMargin, "FairMarginRedisson": c.FairMarginRedisson, "Slack": c.Slack, "Wake": c.Wake, "FairWait": c.FairWait, "RedissonTimeout": c.RedissonTimeout, "RedissonResend": c.RedissonResend} {
		if d < 0 {
			return fmt.Errorf("check: Config.%s is negative (%v)", name, d)
		}
	}
	for name, n := range map[string]int{"ChunkOps": c.ChunkOps, "MaxVisualizations": c.MaxVisualizations, "MaxExamples": c.MaxExamples} {
		if n < 0 {
			return fmt.Errorf("check: Config.%s is negative (%d)", name, n)
		}
	}
	return nil
}

// DefaultConfig returns the Config the zero Config stands for.
func DefaultConfig() Config { return Config{}.withDefaults() }

func (c Config) withDefaults() Config {
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&c.ChunkTimeout, 10*time.Second)
	def(&c.Horizon, 5*time.Second)
	def(&c.FairMargin, 150*time.Millisecond)
	def(&c.FairMarginRedisson, 200*time.Millisecond)
	def(&c.Slack, time.Second)
	def(&c.Wake, 500*time.Millisecond)
	def(&c.FairWait, 5*time.Second)
	def(&c.RedissonTimeout, time.Second)
	def(&c.RedissonResend, c.RedissonTimeout+2*(c.RedissonTimeout+100*time.Millisecond))
	if c.ChunkOps <= 0 {
		c.ChunkOps = 1000
	}
	if c.MaxVisualizations <= 0 {
		c.MaxVisualizations = 3
	}
	if c.MaxExamples <= 0 {
		c.MaxExamples = 20
	}
	return c
}

// redissonTimeout is the response timeout of the name's Redisson clients
// (Config.RedissonTimeout).
func (c *nameCheck) redissonTimeout() int64 { return int64(c.cfg.RedissonTimeout + c.spec.Ack()) }

// redissonResend is how late the name's Redisson acquisitions may return
// by Redisson's resends (Config.RedissonResend).
func (c *nameCheck) redissonResend() int64 { return int64(c.cfg.RedissonResend + 3*c.spec.Ack()) }
