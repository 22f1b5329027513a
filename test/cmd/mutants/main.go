// Command mutants runs relock's mutation set: a fixed list of semantic
// mutations of the library (the unlock message not published, the fair
// queue granting its tail, the watchdog never renewing, ...), each of
// which at least one test must catch. It copies the repository's tracked
// files as they are in the working tree to a scratch directory, applies
// one mutation at a time there, runs the go test command of that
// mutation's packages and -run pattern, and records the tests that
// failed. It prints a table of each mutation, what became of it and the
// tests that killed it, and exits non-zero when a mutant survived (every
// test passed with its feature gone) or is broken (its text to replace is
// not found exactly once, it does not build, or its -run pattern matches
// no test), and, under CI, when one could not run.
//
// A mutation whose killers run the real Redisson peer needs Java and the
// peer's jar (RELOCK_REDISSON_PEER, or ../shared/interop/redisson-peer.jar
// beside the checkout); without them it is reported "not run".
//
//	go run ./test/cmd/mutants                    # every mutation (make mutants)
//	go run ./test/cmd/mutants -only 'fair|sem'   # those whose names match
//	go run ./test/cmd/mutants -list              # the table of mutations
//	go run ./test/cmd/mutants -proof             # the proof's set (make proof-mutants)
//
// With -proof it runs the proof's mutation set instead (proofMutations):
// each mutant breaks a promise of docs/guarantees.md, and a short proof
// (test/proof's cmd/proof, under the faults that show it) followed by its
// checker must find violations; -only, -list and -baseline (each
// mutation's short proof first run unmutated: it must find no violation
// of the mutation's checks) apply to that set.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/relock-go/relock/test/testenv"
)

// outcome is what became of one mutant.
type outcome struct {
	m       mutation
	v       verdict
	killers []string
	note    string
	took    time.Duration
}

func main() {
	only := flag.String("only", "", "run only the mutations whose names match this regular expression")
	list := flag.Bool("list", false, "print the mutations, their packages and -run patterns, and exit")
	keep := flag.Bool("keep", false, "keep the scratch copy of the repository (its path is printed)")
	baseline := flag.Bool("baseline", false, "first run each mutation's tests on the unmutated copy: they must pass")
	goCmd := flag.String("go", "go", "the go command")
	run := flag.String("run", "", "run these tests (a -run pattern) instead of each mutation's own, to see what they catch")
	verbose := flag.Bool("v", false, "print the output of every go test run")
	proof := flag.Bool("proof", false, "run the proof's mutation set instead: a short proof on each mutant must find violations")
	flag.Parse()
	if *proof {
		proofMain(*only, *list, *baseline, *goCmd, *keep, *verbose)
		return
	}
	if err := check(mutations); err != nil {
		fmt.Fprintln(os.Stderr, "mutants:", err)
		os.Exit(2)
	}
	selected, err := choose(mutations, *only)
	if err != nil {
		fmt.Fprintln(os.Stderr, "mutants:", err)
		os.Exit(2)
	}
	if *run != "" {
		for i := range selected {
			selected[i].Run = *run
		}
	}
	if *list {
		printList(selected)
		return
	}
	r, err := newRunner(*goCmd, *keep, *verbose)
	if err != nil {
		fmt.Fprintln(os.Stderr, "mutants:", err)
		os.Exit(2)
	}
	defer r.close()
	if *baseline && !r.baseline(selected) {
		os.Exit(1)
	}
	start := time.Now()
	var outcomes []outcome
	for i, m := range selected {
		o := r.run(m)
		fmt.Printf("[%d/%d] %s: %s (%v)%s\n", i+1, len(selected), m.Name, o.v, o.took.Round(time.Second), describe(o))
		outcomes = append(outcomes, o)
	}
	ok := report(os.Stdout, outcomes, time.Since(start))
	r.close()
	if !ok {
		os.Exit(1)
	}
}

// choose returns the mutations whose names match the regular expression
// only (all of them when it is empty), and fails when none does.
func choose[M interface{ name() string }](ms []M, only string) ([]M, error) {
	re, err := regexp.Compile(only)
	if err != nil {
		return nil, fmt.Errorf("-only: %w", err)
	}
	var out []M
	for _, m := range ms {
		if re.MatchString(m.name()) {
			out = append(out, m)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no mutation matches -only %q", only)
	}
	return out, nil
}

// runner runs mutants in a scratch copy of the repository.
type runner struct {
	goCmd   string
	scratch string
	keep    bool
	verbose bool
	env     []string
	// java: Java and the Redisson peer's jar are there.
	java bool
}

// newRunner copies the repository to a scratch directory.
func newRunner(goCmd string, keep, verbose bool) (*runner, error) {
	root, err := repoRoot()
	if err != nil {
		return nil, err
	}
	files, err := trackedFiles(root)
	if err != nil {
		return nil, err
	}
	scratch, err := os.MkdirTemp("", "relock-mutants-")
	if err != nil {
		return nil, err
	}
	if err := copyTree(root, scratch, files); err != nil {
		_ = os.RemoveAll(scratch)
		return nil, err
	}
	if keep {
		fmt.Println("mutants: scratch copy in", scratch)
	}
	r := &runner{goCmd: goCmd, scratch: scratch, keep: keep, verbose: verbose, env: os.Environ()}
	if jar, ok := peerJar(root); ok {
		r.java = true
		r.env = append(r.env, "RELOCK_REDISSON_PEER="+jar)
	}
	return r, nil
}

// peerJar finds the Redisson peer's jar as make interop does, and reports
// whether it and Java are there.
func peerJar(root string) (string, bool) {
	jar := os.Getenv("RELOCK_REDISSON_PEER")
	if jar == "" {
		jar = filepath.Join(filepath.Dir(root), "shared", "interop", "redisson-peer.jar")
	}
	jar, err := filepath.Abs(jar)
	if err != nil {
		return "", false
	}
	if _, err := os.Stat(jar); err != nil {
		return "", false
	}
	if _, err := exec.LookPath("java"); err != nil {
		return "", false
	}
	return jar, true
}

func (r *runner) close() {
	if !r.keep && r.scratch != "" {
		_ = os.RemoveAll(r.scratch)
		r.scratch = ""
	}
}

// goTest runs go with args in the scratch copy, bounded by limit, and
// returns its output and whether it failed.
func (r *runner) goTest(args []string, limit time.Duration) (string, bool) {
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, r.goCmd, args...)
	cmd.Dir, cmd.Env = r.scratch, r.env
	cmd.WaitDelay = 10 * time.Second
	out, err := cmd.CombinedOutput()
	if r.verbose {
		fmt.Printf("$ go %s\n%s\n", strings.Join(args, " "), out)
	}
	if ctx.Err() != nil {
		return string(out) + fmt.Sprintf("\ngo test killed after %v\n", limit), true
	}
	return string(out), err != nil
}

// runLimit bounds a go test run of m: its tests' timeout, and time to
// build the test binaries on a loaded machine.
func runLimit(m mutation) time.Duration { return m.Timeout + 3*time.Minute }

// baseline runs every mutation's tests on the unmutated copy, and reports
// whether they all passed: a test that fails anyway kills nothing.
func (r *runner) baseline(ms []mutation) bool {
	ok := true
	for _, m := range ms {
		if m.Java && !r.java {
			continue
		}
		start := time.Now()
		out, failed := r.goTest(m.args(), runLimit(m))
		v, killers, note := judge(out, failed)
		fmt.Printf("baseline of %s: %v\n", m.Name, time.Since(start).Round(time.Second))
		if v != survived {
			ok = false
			fmt.Printf("  the tests fail without the mutation: %s%s\n", strings.Join(killers, ", "), note)
		}
	}
	return ok
}

// run applies m to the scratch copy, runs its tests and restores the copy.
func (r *runner) run(m mutation) outcome {
	o := outcome{m: m}
	start := time.Now()
	defer func() { o.took = time.Since(start) }()
	if m.Java && !r.java {
		o.v, o.note = notRun, "needs Java and the Redisson peer's jar (RELOCK_REDISSON_PEER)"
		return o
	}
	restore, err := m.apply(r.scratch)
	if err != nil {
		o.v, o.note = broken, err.Error()
		return o
	}
	out, failed := r.goTest(m.args(), runLimit(m))
	if err := restore(); err != nil {
		fmt.Fprintln(os.Stderr, "mutants: cannot restore the scratch copy:", err)
		os.Exit(2)
	}
	o.v, o.killers, o.note = judge(out, failed)
	o.took = time.Since(start)
	return o
}

// describe is the end of an outcome's progress line.
func describe(o outcome) string {
	switch {
	case len(o.killers) > 0:
		return ": " + strings.Join(o.killers, ", ")
	case o.note != "":
		return ": " + o.note
	}
	return ""
}

// report prints the table of outcomes and reports whether the set passed:
// every mutant killed, or not run for lack of Java outside CI.
func report(w *os.File, outcomes []outcome, total time.Duration) bool {
	ok, skipped := true, 0
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "\nMUTATION\tRESULT\tTIME\tKILLED BY / WHY")
	for _, o := range outcomes {
		switch o.v {
		case survived, broken:
			ok = false
		case notRun:
			ok = ok && !testenv.InCI()
			skipped++
		}
		fmt.Fprintf(tw, "%s\t%v\t%v\t%s\n", o.m.Name, o.v, o.took.Round(time.Second), strings.TrimPrefix(describe(o), ": "))
	}
	_ = tw.Flush()
	verdict := "every mutant was killed"
	if skipped > 0 {
		verdict = fmt.Sprintf("every mutant that ran was killed; %d not run (see WHY)", skipped)
	}
	if !ok {
		verdict = "FAILED: a mutant survived, is broken, or could not run under CI"
	}
	fmt.Fprintf(w, "\nmutants: %d mutations in %v: %s\n", len(outcomes), total.Round(time.Second), verdict)
	return ok
}

// printList prints each mutation, what it does, and the tests that run.
func printList(ms []mutation) {
	for _, m := range ms {
		fmt.Printf("%s: %s\n", m.Name, m.What)
		for _, e := range m.Edits {
			fmt.Printf("    %s: %q -> %q\n", e.File, e.Old, e.New)
		}
		fmt.Printf("    go %s\n", strings.Join(m.args(), " "))
	}
}
