package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/relock-go/relock/test/testenv"
)

// proofMutation is a mutation the proof must catch: a promise of the
// library broken in its code, and the short proof run (cmd/proof in
// test/proof) that must then find violations (cmd/check exits 1).
type proofMutation struct {
	// Name, What and Edits are as in mutation.
	Name, What string
	Edits      []edit
	// Faults are the fault kinds the short proof injects (cmd/proof
	// -faults): those under which the broken promise shows.
	Faults []string
	// Workloads narrow the workloads that run (nil: every one), so that
	// the machine's time goes to those that show the mutant.
	Workloads []string
	// Duration is how long the faults are injected (the first of each
	// kind is injected even if it takes longer).
	Duration time.Duration
	// Flags are more of cmd/proof's flags, for a fleet that shows the
	// mutant (nil: the defaults).
	Flags []string
	// Seed is the seed of the faults (0: proofSeed), for a mutant that
	// shows under a few draws of its faults only.
	Seed int64
	// Checks are the checks (cmd/check's names) that judge the promise
	// the mutant breaks: it is killed by a violation of one of them, not
	// by a violation of another check alone (which says the run failed,
	// not that the proof saw this promise broken).
	Checks []string
	// Waits names what the proof lacks to catch the mutant (a workload
	// it does not run yet): the mutant is not run and is listed as
	// waiting, its text still checked.
	Waits string
}

func (m proofMutation) name() string { return m.Name }

// proofSeed is the seed of every short proof but those that name their
// own: the same faults at the same moments from one run to the next.
const proofSeed = 1

// checkProofSet reports what is wrong with the proof's mutation table: an
// entry checkEntry refuses, or a mutation without faults, duration or
// checks.
func checkProofSet(ms []proofMutation) error {
	seen := map[string]bool{}
	for _, m := range ms {
		if err := checkEntry(seen, m.Name, m.What, m.Edits); err != nil {
			return err
		}
		if len(m.Faults) == 0 || m.Duration <= 0 || len(m.Checks) == 0 {
			return fmt.Errorf("mutation %s: it needs faults, a duration and its checks", m.Name)
		}
	}
	return nil
}

// proofArgs are cmd/proof's arguments for m's run into dir.
func (m proofMutation) proofArgs(dir string) []string {
	seed := m.Seed
	if seed == 0 {
		seed = proofSeed
	}
	a := []string{"run", "./cmd/proof", "-dir", dir, "-duration", m.Duration.String(),
		"-seed", strconv.FormatInt(seed, 10), "-faults", strings.Join(m.Faults, ",")}
	if len(m.Workloads) > 0 {
		a = append(a, "-workloads", strings.Join(m.Workloads, ","))
	}
	return append(a, m.Flags...)
}

// proofLimit bounds a short proof: its faults, the first round of every
// kind, the fleet's start and stop, and the builds on a loaded machine.
func proofLimit(m proofMutation) time.Duration { return m.Duration + 8*time.Minute }

// proofOutcome is what became of one proof mutant: killed by the checks
// named, survived, broken, or waiting.
type proofOutcome struct {
	m      proofMutation
	v      verdict
	checks []string // the checks with violations
	note   string
	took   time.Duration
}

// violationLine is cmd/check's line of a violation: its check follows.
var violationLine = regexp.MustCompile(`(?m)^VIOLATION (\S+) `)

// runProof applies m to the scratch copy (unless baseline), runs its
// short proof and the checker on it, and restores the copy.
func (r *runner) runProof(m proofMutation, baseline bool) (o proofOutcome) {
	o.m = m
	start := time.Now()
	defer func() { o.took = time.Since(start) }()
	dir := filepath.Join(r.scratch, "proof-runs", m.Name)
	if baseline {
		dir += "-baseline"
	} else {
		restore, err := mutation{Name: m.Name, Edits: m.Edits}.apply(r.scratch)
		if err != nil {
			o.v, o.note = broken, err.Error()
			return o
		}
		defer restoreOrExit(restore)
	}
	switch {
	case m.Waits != "":
		o.v, o.note = notRun, "waits for "+m.Waits
		return o
	case !r.java:
		o.v, o.note = notRun, "needs Java and the Redisson peer's jar (RELOCK_REDISSON_PEER)"
		return o
	}
	ctx, cancel := context.WithTimeout(context.Background(), proofLimit(m))
	defer cancel()
	if out, code := r.inProof(ctx, m.proofArgs(dir)...); code != 0 {
		o.v, o.note = broken, "the proof did not run: "+lastLines(out, 5)
		return o
	}
	out, code := r.inProof(ctx, "run", "./cmd/check", dir)
	o.v, o.checks, o.note = m.judge(out, code)
	return o
}

// judge reads cmd/check's output and exit code on m's short proof: killed
// when it found violations of one of m's checks (checks lists every check
// with violations), survived when it found none of theirs (note says
// why), broken when the checker failed.
func (m proofMutation) judge(out string, code int) (v verdict, checks []string, note string) {
	switch code {
	case 1:
		for _, sm := range violationLine.FindAllStringSubmatch(out, -1) {
			if !slices.Contains(checks, sm[1]) {
				checks = append(checks, sm[1])
			}
		}
		if slices.ContainsFunc(checks, func(c string) bool { return slices.Contains(m.Checks, c) }) {
			return killed, checks, ""
		}
		return survived, checks, "no violation of " + strings.Join(m.Checks, " or ")
	case 0, 3:
		return survived, nil, lastLines(out, 1)
	}
	return broken, nil, "the checker failed: " + lastLines(out, 5)
}

// restoreOrExit restores the scratch copy, or ends the program: every
// later mutant would run on a copy mutated twice.
func restoreOrExit(restore func() error) {
	if err := restore(); err != nil {
		fmt.Fprintln(os.Stderr, "mutants: cannot restore the scratch copy:", err)
		os.Exit(2)
	}
}

// inProof runs go with args in the scratch copy's proof module, and
// returns its output and exit code (-1: it could not run, or ctx ended).
func (r *runner) inProof(ctx context.Context, args ...string) (string, int) {
	cmd := exec.CommandContext(ctx, r.goCmd, args...)
	cmd.Dir, cmd.Env = filepath.Join(r.scratch, "test", "proof"), r.env
	cmd.WaitDelay = 30 * time.Second
	out, err := cmd.CombinedOutput()
	if r.verbose {
		fmt.Printf("$ go %s\n%s\n", strings.Join(args, " "), out)
	}
	var exit *exec.ExitError
	switch {
	case ctx.Err() != nil:
		return string(out) + "\nkilled: " + ctx.Err().Error(), -1
	case errors.As(err, &exit):
		return string(out), exit.ExitCode()
	case err != nil:
		return string(out) + "\n" + err.Error(), -1
	}
	return string(out), 0
}

// lastLines returns the last n lines of out, joined by " / ".
func lastLines(out string, n int) string {
	lines := strings.Split(strings.TrimSpace(out), "\n")
	return strings.Join(lines[max(len(lines)-n, 0):], " / ")
}

// reportProof prints the table of proof outcomes and reports whether the
// set passed: every mutant killed; one waiting for a workload, or not run
// for lack of Java outside CI, is listed and does not fail it.
func reportProof(w *os.File, outcomes []proofOutcome, total time.Duration) bool {
	ok := true
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "\nPROOF MUTATION\tRESULT\tTIME\tVIOLATIONS OF / WHY")
	for _, o := range outcomes {
		switch {
		case o.v == survived, o.v == broken:
			ok = false
		case o.v == notRun && o.m.Waits == "":
			ok = ok && !testenv.InCI()
		}
		why := strings.Join(append(slices.Clone(o.checks), o.note), " ")
		fmt.Fprintf(tw, "%s\t%v\t%v\t%s\n", o.m.Name, o.v, o.took.Round(time.Second), why)
	}
	_ = tw.Flush()
	verdict := "every mutant that ran failed the proof"
	if !ok {
		verdict = "FAILED: a mutant passed the proof, is broken, or could not run under CI"
	}
	fmt.Fprintf(w, "\nmutants: %d proof mutations in %v: %s\n", len(outcomes), total.Round(time.Second), verdict)
	return ok
}

// proofMain runs the proof's mutation set (-proof) and exits.
func proofMain(only string, list, baseline bool, goCmd string, keep, verbose bool) {
	if err := checkProofSet(proofMutations); err != nil {
		fmt.Fprintln(os.Stderr, "mutants:", err)
		os.Exit(2)
	}
	selected, err := choose(proofMutations, only)
	if err != nil {
		fmt.Fprintln(os.Stderr, "mutants:", err)
		os.Exit(2)
	}
	if list {
		for _, m := range selected {
			fmt.Printf("%s: %s\n", m.Name, m.What)
			for _, e := range m.Edits {
				fmt.Printf("    %s: %q -> %q\n", e.File, e.Old, e.New)
			}
			fmt.Printf("    (in test/proof) go %s\n", strings.Join(m.proofArgs("DIR"), " "))
		}
		return
	}
	r, err := newRunner(goCmd, keep, verbose)
	if err != nil {
		fmt.Fprintln(os.Stderr, "mutants:", err)
		os.Exit(2)
	}
	for _, m := range selected {
		restore, err := mutation{Name: m.Name, Edits: m.Edits}.apply(r.scratch)
		if err != nil {
			r.close()
			fmt.Fprintln(os.Stderr, "mutants:", err)
			os.Exit(2)
		}
		restoreOrExit(restore)
	}
	if baseline {
		for _, m := range selected {
			o := r.runProof(m, true)
			fmt.Printf("baseline of %s: %v\n", m.Name, o.took.Round(time.Second))
			if o.v != survived && o.v != notRun {
				fmt.Printf("  the unmutated proof fails it, or does not run: %v %s\n", o.v, strings.Join(append(o.checks, o.note), " "))
				r.close()
				os.Exit(1)
			}
		}
	}
	start := time.Now()
	var outcomes []proofOutcome
	for i, m := range selected {
		o := r.runProof(m, false)
		fmt.Printf("[%d/%d] %s: %s (%v) %s\n", i+1, len(selected), m.Name, o.v, o.took.Round(time.Second), strings.Join(append(o.checks, o.note), " "))
		outcomes = append(outcomes, o)
	}
	ok := reportProof(os.Stdout, outcomes, time.Since(start))
	r.close()
	if !ok {
		os.Exit(1)
	}
}
