package history

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

// Run is a run directory read back: its manifest, and every process's
// operations paired and merged in time order.
type Run struct {
	Dir      string
	Manifest Manifest
	Procs    []Proc      // Operation.Proc indexes it
	Names    []string    // Operation.Name indexes it
	Ops      []Operation // every operation but the nemesis's, by Call
	Faults   []Fault     // by Start
	// Start and End bound the run: the manifest's started and ended where
	// it has them, else the first and last t of the histories. LastT is
	// the last t of any line (the final reads come after End).
	Start, End, LastT int64
	// Leftovers is what the lock services held after the run
	// (LeftoversFile); HasLeftovers reports whether the run listed it.
	Leftovers    []Leftover
	HasLeftovers bool
}

// Spec returns the manifest's spec of the name Operation.Name indexes.
func (r *Run) Spec(name int32) NameSpec { return r.Manifest.Names[r.Names[name]] }

// Load reads the run in dir: ManifestFile, LeftoversFile if there is one,
// and every *.jsonl file, one per process, read in parallel. Invocations
// are paired with their completions by process and id. It fails, naming the file and the line's operation,
// on an event it cannot place: an unknown type, op or mode; a completion
// without its invocation, or a second one, or one before its invocation
// (all processes share one clock: one that goes back voids the run); a
// process in two files; a name missing from the manifest, or under
// another workload than its spec's.
func Load(dir string) (*Run, error) {
	m, err := ReadManifest(dir)
	if err != nil {
		return nil, err
	}
	paths, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if err != nil {
		return nil, err
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("history: no history file (*.jsonl) in %s", dir)
	}
	files := make([]*fileLoad, len(paths))
	errs := make([]error, len(paths))
	var wg sync.WaitGroup
	for i, p := range paths {
		wg.Add(1)
		go func() {
			defer wg.Done()
			files[i], errs[i] = loadFile(p)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	r, err := merge(dir, m, files)
	if err != nil {
		return nil, err
	}
	r.Leftovers, r.HasLeftovers, err = readLeftovers(dir)
	return r, err
}

// fileLoad is one file's operations, with process and name indexes of its
// own until merge renumbers them.
type fileLoad struct {
	path   string
	procs  []Proc
	names  []string
	work   []string // the workload line by line's name, by local name index
	ops    []Operation
	faults []Fault
	first  int64
	last   int64
}

func loadFile(path string) (*fileLoad, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fl := &fileLoad{path: path}
	procIdx, nameIdx := map[string]int32{}, map[string]int32{}
	type key struct {
		proc string
		id   int64
	}
	open := map[key]int{}   // invoked, index in ops
	faults := map[key]int{} // invoked, index in faults
	done := completed{}     // completed
	err = Scan(f, func(e Event) error {
		where := func(format string, args ...any) error {
			return fmt.Errorf("history: %s: %s %s id %d: %s", path, e.Process, e.Op, e.ID, fmt.Sprintf(format, args...))
		}
		if e.Process == "" {
			return where("no process")
		}
		if fl.first == 0 || e.T < fl.first {
			fl.first = e.T
		}
		fl.last = max(fl.last, e.T)
		k := key{e.Process, e.ID}
		kind, ok := parseKind(e.Op)
		if !ok {
			return where("unknown op %q", e.Op)
		}
		if e.Type == Invoke {
			if _, dup := open[k]; dup || done.has(k.proc, k.id) {
				return where("invoked twice")
			}
			if _, dup := faults[k]; dup {
				return where("invoked twice")
			}
			if kind == OpFault {
				faults[k] = len(fl.faults)
				fl.faults = append(fl.faults, Fault{Kind: e.Fault, Target: e.Target, Start: e.T})
				return nil
			}
			p, ok := procIdx[e.Process]
			if !ok {
				p = int32(len(fl.procs))
				procIdx[e.Process] = p
				fl.procs = append(fl.procs, Proc{Name: e.Process, Side: e.Side})
			} else if fl.procs[p].Side != e.Side {
				return where("side %q, earlier %q", e.Side, fl.procs[p].Side)
			}
			mode, ok := parseMode(e.Mode)
			if !ok {
				return where("unknown mode %q", e.Mode)
			}
			n, ok := nameIdx[e.Name]
			if !ok {
				n = int32(len(fl.names))
				nameIdx[e.Name] = n
				fl.names = append(fl.names, e.Name)
				fl.work = append(fl.work, e.Workload)
			} else if fl.work[n] != e.Workload {
				return where("workload %q, earlier %q for name %q", e.Workload, fl.work[n], e.Name)
			}
			open[k] = len(fl.ops)
			fl.ops = append(fl.ops, Operation{Call: e.T, Value: e.Value, Token: e.Token, ID: e.ID, Proc: p, Name: n, Kind: kind, Mode: mode})
			return nil
		}
		var out Outcome
		switch e.Type {
		case OK:
			out = OutcomeOK
		case Fail:
			out = OutcomeFail
		case Info:
			out = OutcomeInfo
		default:
			return where("unknown type %q", e.Type)
		}
		if i, ok := faults[k]; ok {
			delete(faults, k)
			done.add(k.proc, k.id)
			// A fault whose healing was not confirmed (info) may go on
			// having effects: see Run's loading, below.
			fl.faults[i].End, fl.faults[i].Healed = e.T, e.Type != Info
			return nil
		}
		i, ok := open[k]
		if !ok {
			if done.has(k.proc, k.id) {
				return where("completed twice")
			}
			return where("completed, never invoked")
		}
		delete(open, k)
		done.add(k.proc, k.id)
		o := &fl.ops[i]
		if e.T < o.Call {
			return where("completed %v before it was invoked: the host's clock went back", time.Duration(o.Call-e.T))
		}
		o.Return, o.Outcome = e.T, out
		if o.Kind == OpRead || o.Value == 0 {
			o.Value = e.Value
		}
		if o.Token == 0 {
			o.Token = e.Token
		}
		o.Count = e.Count
		return nil
	})
	return fl, err
}

// merge renumbers the files' processes and names into one Run, sorts its
// operations and faults, and checks the names against the manifest.
func merge(dir string, m Manifest, files []*fileLoad) (*Run, error) {
	r := &Run{Dir: dir, Manifest: m}
	procIdx, nameIdx := map[string]int32{}, map[string]int32{}
	procFile := map[string]string{}
	total := 0
	for _, fl := range files {
		total += len(fl.ops)
	}
	r.Ops = make([]Operation, 0, total)
	for _, fl := range files {
		if fl.first != 0 && (r.Start == 0 || fl.first < r.Start) {
			r.Start = fl.first
		}
		r.LastT = max(r.LastT, fl.last)
		procMap := make([]int32, len(fl.procs))
		for i, p := range fl.procs {
			if other, dup := procFile[p.Name]; dup {
				return nil, fmt.Errorf("history: process %q writes to two files, %s and %s", p.Name, other, fl.path)
			}
			procFile[p.Name] = fl.path
			procMap[i] = int32(len(r.Procs))
			procIdx[p.Name] = procMap[i]
			r.Procs = append(r.Procs, p)
		}
		nameMap := make([]int32, len(fl.names))
		for i, n := range fl.names {
			spec, ok := m.Names[n]
			if !ok {
				return nil, fmt.Errorf("history: %s: name %q is not in the manifest", fl.path, n)
			}
			if spec.Workload != fl.work[i] {
				return nil, fmt.Errorf("history: %s: name %q is a %s in the history, a %s in the manifest", fl.path, n, fl.work[i], spec.Workload)
			}
			j, ok := nameIdx[n]
			if !ok {
				j = int32(len(r.Names))
				nameIdx[n] = j
				r.Names = append(r.Names, n)
			}
			nameMap[i] = j
		}
		for _, o := range fl.ops {
			o.Proc, o.Name = procMap[o.Proc], nameMap[o.Name]
			r.Ops = append(r.Ops, o)
		}
		r.Faults = append(r.Faults, fl.faults...)
	}
	if !m.Started.IsZero() {
		r.Start = m.Started.UnixNano()
	}
	r.End = r.LastT
	if !m.Ended.IsZero() {
		r.End = m.Ended.UnixNano()
	}
	slices.SortFunc(r.Ops, func(a, b Operation) int {
		return cmp.Or(cmp.Compare(a.Call, b.Call), cmp.Compare(a.Proc, b.Proc), cmp.Compare(a.ID, b.ID))
	})
	slices.SortFunc(r.Faults, func(a, b Fault) int {
		return cmp.Or(cmp.Compare(a.Start, b.Start), strings.Compare(a.Kind, b.Kind), strings.Compare(a.Target, b.Target))
	})
	// A fault not known to have healed (never completed, or completed
	// with info: a failover the Sentinels had not finished when the
	// nemesis stopped waiting) lasts until the next fault on its target
	// begins, or the run ends.
	for i := range r.Faults {
		f := &r.Faults[i]
		if f.Healed {
			continue
		}
		end := r.End
		for _, next := range r.Faults[i+1:] {
			if next.Target == f.Target && next.Start >= f.End {
				end = next.Start
				break
			}
		}
		f.End = max(end, f.End, f.Start)
	}
	return r, nil
}

// ProcIndex returns the index in r.Procs of the process named name.
func (r *Run) ProcIndex(name string) (int32, bool) {
	for i, p := range r.Procs {
		if p.Name == name {
			return int32(i), true
		}
	}
	return 0, false
}

// completed is the set of operations completed, by process and id: a bit
// per id for the dense ids writers give (from 1 up), a map for others. A
// file of an hour's run completes millions.
type completed map[string]*idSet

type idSet struct {
	bits   []uint64
	sparse map[int64]bool
}

// denseIDs bounds the ids kept as bits.
const denseIDs = 1 << 28

func (c completed) add(proc string, id int64) {
	s := c[proc]
	if s == nil {
		s = &idSet{}
		c[proc] = s
	}
	if id < 0 || id >= denseIDs {
		if s.sparse == nil {
			s.sparse = map[int64]bool{}
		}
		s.sparse[id] = true
		return
	}
	for int(id/64) >= len(s.bits) {
		s.bits = append(s.bits, 0)
	}
	s.bits[id/64] |= 1 << (id % 64)
}

func (c completed) has(proc string, id int64) bool {
	s := c[proc]
	switch {
	case s == nil:
		return false
	case id < 0 || id >= denseIDs:
		return s.sparse[id]
	}
	return int(id/64) < len(s.bits) && s.bits[id/64]&(1<<(id%64)) != 0
}
