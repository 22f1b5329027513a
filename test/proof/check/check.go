package check

import (
	"cmp"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/relock-go/relock/test/proof/history"
)

// Check checks a run, name by name in parallel, and returns what held and
// what did not. It fails only on a Config it cannot use (a negative
// value) or a run whose manifest lacks one of its names; what it finds in
// the run is in the Result.
func Check(run *history.Run, cfg Config) (*Result, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	for _, name := range run.Names {
		if _, ok := run.Manifest.Names[name]; !ok {
			return nil, fmt.Errorf("check: name %q is not in the run's manifest", name)
		}
	}
	cfg = cfg.withDefaults()
	if cfg.VisualDir == "" {
		cfg.VisualDir = run.Dir
	}
	vis := &visuals{}
	if cfg.VisualDir == "" {
		vis.Store(int64(cfg.MaxVisualizations)) // nowhere to write them
	}
	byName := make([][]*history.Operation, len(run.Names))
	procLast := make([]int64, len(run.Procs))
	lines := make([][]int64, len(run.Procs))
	for i := range run.Ops {
		o := &run.Ops[i]
		byName[o.Name] = append(byName[o.Name], o)
		procLast[o.Proc] = max(procLast[o.Proc], o.Call, o.Return)
		lines[o.Proc] = append(lines[o.Proc], o.Call)
		if o.Done() {
			lines[o.Proc] = append(lines[o.Proc], o.Return)
		}
	}
	for _, l := range lines {
		slices.Sort(l)
	}
	procs := map[string]bool{}
	for _, p := range run.Procs {
		procs[p.Name] = true
	}
	checks := make([]*nameCheck, len(run.Names))
	var wg sync.WaitGroup
	limit := make(chan struct{}, runtime.GOMAXPROCS(0))
	for i, name := range run.Names {
		spec := run.Manifest.Names[name]
		c := &nameCheck{cfg: cfg, run: run, fi: newFaultIndex(run, procs, spec), procLast: procLast, lines: lines, name: name, spec: spec,
			ops: byName[i], visuals: vis, cells: map[string]*Cell{}, causes: map[causeKey]int{}}
		checks[i] = c
		wg.Add(1)
		limit <- struct{}{}
		go func() {
			defer func() { <-limit; wg.Done() }()
			c.check()
		}()
	}
	wg.Wait()
	res := &Result{Visualizations: vis.paths}
	causes := map[causeKey]int{}
	for _, f := range leftovers(run) {
		res.Findings = append(res.Findings, f)
		res.add(f.Severity)
		if f.Severity != Unchecked {
			causes[causeKey{cause: f.Cause, check: f.Check}]++
		}
	}
	cells := map[[2]string]*Cell{}
	for _, c := range checks {
		for k, n := range c.causes {
			causes[k] += n
		}
		res.Names = append(res.Names, c.res)
		res.Findings = append(res.Findings, c.findings...)
		res.merge(c.res.Counts)
		for kind, cell := range c.cells {
			k := [2]string{kind, c.spec.Workload}
			if cells[k] == nil {
				cells[k] = &Cell{Fault: kind, Workload: c.spec.Workload}
			}
			cells[k].Acquisitions += cell.Acquisitions
			cells[k].merge(cell.Counts)
		}
	}
	for _, cell := range cells {
		res.Cells = append(res.Cells, *cell)
	}
	for k, n := range causes {
		res.Causes = append(res.Causes, CauseCount{Cause: k.cause, Side: k.side, Check: k.check, Findings: n})
	}
	slices.SortFunc(res.Causes, func(a, b CauseCount) int {
		return cmp.Or(strings.Compare(a.Cause, b.Cause), strings.Compare(a.Side, b.Side), strings.Compare(a.Check, b.Check))
	})
	slices.SortFunc(res.Names, func(a, b NameResult) int { return strings.Compare(a.Name, b.Name) })
	slices.SortFunc(res.Findings, func(a, b Finding) int { return cmp.Or(cmp.Compare(b.Severity, a.Severity), cmp.Compare(a.At, b.At)) })
	slices.SortFunc(res.Cells, func(a, b Cell) int {
		return cmp.Or(strings.Compare(a.Fault, b.Fault), strings.Compare(a.Workload, b.Workload))
	})
	return res, nil
}

// visuals is the run's budget of porcupine visualizations.
type visuals struct {
	atomic.Int64
	mu    sync.Mutex
	paths []string
}

func (v *visuals) add(path string) {
	v.mu.Lock()
	v.paths = append(v.paths, path)
	v.mu.Unlock()
}

// nameCheck checks one name.
type nameCheck struct {
	cfg      Config
	run      *history.Run
	fi       *faultIndex // the faults that concern the name
	procLast []int64     // each process's last line
	lines    [][]int64   // each process's lines' times, in order
	name     string
	spec     history.NameSpec
	ops      []*history.Operation // by invocation
	visuals  *visuals

	res      NameResult
	findings []Finding
	overlaps []overlap        // exclusion's explained overlaps
	causes   map[causeKey]int // findings by cause, side and check
	cells    map[string]*Cell // by fault kind
}

// check runs the checks the name's workload calls for.
func (c *nameCheck) check() {
	c.res = NameResult{Name: c.name, Workload: c.spec.Workload, Operations: len(c.ops), ByCheck: map[string]*Counts{}}
	for _, o := range c.ops {
		if o.Kind == history.OpAcquire && o.Outcome == history.OutcomeOK {
			c.res.Acquisitions++
			c.attribute(o.Call, o.Return, func(cell *Cell) { cell.Acquisitions++ })
		}
	}
	secs := c.sections()
	switch c.spec.Workload {
	case history.Semaphore, history.PESemaphore:
		c.permits(secs)
	case history.Latch:
		c.latch()
	case history.Rate:
		c.rate()
	default:
		c.exclusion(secs)
		c.progress(secs)
		c.told(secs)
		c.woken()
	}
	switch c.spec.Workload {
	case history.Fenced, history.Election:
		c.grantTokens()
		c.storeTokens()
		c.register()
	case history.Plain, history.RW:
		c.register()
	case history.Fair:
		c.fairOrder()
	}
	c.liveness()
}

// finding adds a finding on neither side (findingOf).
func (c *nameCheck) finding(cause, check string, at int64, format string, args ...any) {
	c.findingOf("", cause, check, at, format, args...)
}

// findingOf adds a finding on side (the side of the holder whose hold
// broke, or of the waiter; "" for neither: the harness): measured,
// explained by cause, or if there is no cause a violation.
func (c *nameCheck) findingOf(side, cause, check string, at int64, format string, args ...any) {
	sev := Violation
	if cause != "" {
		sev = Measured
	}
	c.add(Finding{Severity: sev, Check: check, Side: side, At: at, Cause: cause, Text: fmt.Sprintf(format, args...)})
}

func (c *nameCheck) side(p int32) string { return c.run.Procs[p].Side }

// add counts f, attributes it to the faults whose span holds it, and keeps
// it (a measured one up to Config.MaxExamples per check).
func (c *nameCheck) add(f Finding) {
	f.Name, f.Workload, f.Since = c.name, c.spec.Workload, time.Duration(f.At-c.run.Start)
	c.res.add(f.Severity)
	bc := c.res.ByCheck[f.Check]
	if bc == nil {
		bc = &Counts{}
		c.res.ByCheck[f.Check] = bc
	}
	bc.add(f.Severity)
	if f.Severity != Unchecked {
		c.causes[causeKey{f.Cause, f.Side, f.Check}]++
	}
	c.attribute(f.At, f.At, func(cell *Cell) { cell.add(f.Severity) })
	if f.Severity != Measured || bc.Measured <= c.cfg.MaxExamples {
		c.findings = append(c.findings, f)
	}
}

// attribute calls fn with the cell of each fault kind whose span (the fault,
// then one lease and Config.Slack) overlaps [from, to], or with the
// NoFault cell if none does.
func (c *nameCheck) attribute(from, to int64, fn func(*Cell)) {
	after := int64(c.spec.Lease() + c.cfg.Slack)
	var seen []string
	c.fi.each(from-after, to, func(f *history.Fault) bool {
		if f.End+after >= from && !slices.Contains(seen, f.Kind) {
			seen = append(seen, f.Kind)
		}
		return true
	})
	if len(seen) == 0 {
		seen = append(seen, NoFault)
	}
	for _, kind := range seen {
		cell := c.cells[kind]
		if cell == nil {
			cell = &Cell{Fault: kind, Workload: c.spec.Workload}
			c.cells[kind] = cell
		}
		fn(cell)
	}
}

// lostBy returns the kind of the first fault for which loses holds whose
// span (the fault, then one lease and Config.Slack) overlaps [from, to], or
// "": what a fault loses, it loses also for a while after it healed
// (clients write to a former master until they learn of the failover, the
// restarted server replays what it kept).
func (c *nameCheck) lostBy(from, to int64, loses func(*history.Fault) bool) string {
	return c.fi.any(from-int64(c.spec.Lease()+c.cfg.Slack), to, loses)
}

func (c *nameCheck) procName(p int32) string { return c.run.Procs[p].Name }

// clock formats t as an offset from the run's start.
func (c *nameCheck) clock(t int64) string { return "+" + dur(t-c.run.Start) }

func dur(ns int64) string { return time.Duration(ns).Round(time.Millisecond).String() }
