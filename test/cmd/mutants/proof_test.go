package main

import (
	"slices"
	"testing"
	"time"
)

// Every proof mutation is well formed, and the text each edit replaces is
// in the library's code exactly once, waiting ones included: when that
// code changes, this test fails, and the mutation is brought up to date.
func TestProofMutationSetMatchesTheCode(t *testing.T) {
	if err := checkProofSet(proofMutations); err != nil {
		t.Fatal(err)
	}
	for _, m := range proofMutations {
		restore, err := mutation{Name: m.Name, Edits: m.Edits}.apply(copyOf(t, m.Edits))
		if err != nil {
			t.Error(err)
			continue
		}
		if err := restore(); err != nil {
			t.Fatal(err)
		}
	}
}

// copyOf copies the files edits change to a scratch directory, which it
// returns.
func copyOf(t *testing.T, edits []edit) string {
	t.Helper()
	dir := t.TempDir()
	var files []string
	for _, e := range edits {
		files = append(files, e.File)
	}
	if err := copyTree(root, dir, files); err != nil {
		t.Fatal(err)
	}
	return dir
}

// The proof's table refuses what would test nothing.
func TestProofSetRefusesIncompleteMutations(t *testing.T) {
	ok := proofMutation{Name: "m", What: "w", Edits: []edit{{File: "f", Old: "a", New: "b"}}, Faults: []string{"reset"}, Duration: time.Second, Checks: []string{"told"}}
	if err := checkProofSet([]proofMutation{ok}); err != nil {
		t.Fatalf("a complete mutation refused: %v", err)
	}
	for name, m := range map[string]proofMutation{
		"no faults":        {Name: "m", What: "w", Edits: ok.Edits, Duration: time.Second, Checks: ok.Checks},
		"no duration":      {Name: "m", What: "w", Edits: ok.Edits, Faults: ok.Faults, Checks: ok.Checks},
		"no checks":        {Name: "m", What: "w", Edits: ok.Edits, Faults: ok.Faults, Duration: time.Second},
		"an empty edit":    {Name: "m", What: "w", Edits: []edit{{File: "f", Old: "a", New: "a"}}, Faults: ok.Faults, Duration: time.Second, Checks: ok.Checks},
		"a name with caps": {Name: "M", What: "w", Edits: ok.Edits, Faults: ok.Faults, Duration: time.Second, Checks: ok.Checks},
	} {
		if checkProofSet([]proofMutation{m}) == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if checkProofSet([]proofMutation{ok, ok}) == nil {
		t.Error("a name used twice: accepted")
	}
}

// A short proof kills its mutant only with violations of the mutant's
// own checks.
func TestProofVerdictCountsOnlyTheMutantsChecks(t *testing.T) {
	m := proofMutation{Checks: []string{"told", "exclusion"}}
	const violated = "VIOLATED: 10 operations\n\nVIOLATION liveness n (plain) at +1s: late\nVIOLATION exclusion n (plain) at +2s: together\n2 violations, 0 unchecked, 0 measured\n"
	for _, tc := range []struct {
		name   string
		m      proofMutation
		out    string
		code   int
		want   verdict
		checks []string
	}{
		{"a violation of its check", m, violated, 1, killed, []string{"liveness", "exclusion"}},
		{"violations of other checks alone", proofMutation{Checks: []string{"permits"}}, violated, 1, survived, []string{"liveness", "exclusion"}},
		{"proven", m, "proven: 10 operations\n0 violations, 0 unchecked, 3 measured\n", 0, survived, nil},
		{"unchecked", m, "not proven\n0 violations, 1 unchecked\n", 3, survived, nil},
		{"the checker failed", m, "check: history: bad line\n", 2, broken, nil},
	} {
		v, checks, note := tc.m.judge(tc.out, tc.code)
		if v != tc.want || !slices.Equal(checks, tc.checks) {
			t.Errorf("%s: %v %q (%s), want %v %q", tc.name, v, checks, note, tc.want, tc.checks)
		}
	}
}
