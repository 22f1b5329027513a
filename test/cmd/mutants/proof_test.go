package main

import (
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
