package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// The repository's root, from this package's directory.
var root = filepath.Join("..", "..", "..")

// Every mutation of the set is well formed, and the text each edit
// replaces is in the library's code exactly once: when that code changes,
// this test fails, and the mutation is brought up to date rather than
// left to test nothing.
func TestMutationSetMatchesTheCode(t *testing.T) {
	if err := check(mutations); err != nil {
		t.Fatal(err)
	}
	for _, m := range mutations {
		for _, e := range m.Edits {
			src, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(e.File)))
			if err != nil {
				t.Errorf("mutation %s: %v", m.Name, err)
				continue
			}
			if n := strings.Count(string(src), e.Old); n != 1 {
				t.Errorf("mutation %s: the text to replace occurs %d times in %s, want once: %q", m.Name, n, e.File, e.Old)
			}
		}
	}
}

func writeFile(t *testing.T, dir, name, content string) {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readFile(t *testing.T, dir, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A mutation's edits are applied together, two in one file included, and
// its restore puts every file back.
func TestApplyAndRestore(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "a/x.lua", "publish(1)\nreturn 1\n")
	writeFile(t, dir, "b.go", "wake(1)\n")
	m := mutation{Name: "m", Edits: []edit{
		{File: "a/x.lua", Old: "publish(1)\n", New: ""},
		{File: "b.go", Old: "wake(1)", New: "wake(0)"},
		{File: "a/x.lua", Old: "return 1", New: "return 2"},
	}}
	restore, err := m.apply(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, dir, "a/x.lua"); got != "return 2\n" {
		t.Fatalf("mutated a/x.lua = %q", got)
	}
	if got := readFile(t, dir, "b.go"); got != "wake(0)\n" {
		t.Fatalf("mutated b.go = %q", got)
	}
	if err := restore(); err != nil {
		t.Fatal(err)
	}
	if readFile(t, dir, "a/x.lua") != "publish(1)\nreturn 1\n" || readFile(t, dir, "b.go") != "wake(1)\n" {
		t.Fatal("restore did not put the files back")
	}
}

// A mutation whose text is missing, or found twice, fails and changes
// nothing, even where its other edits matched.
func TestApplyRefusesTextNotFoundExactlyOnce(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "x.go", "wake(1)\nwake(1)\n")
	writeFile(t, dir, "y.go", "sleep()\n")
	for _, e := range []edit{
		{File: "x.go", Old: "wake(1)", New: "wake(0)"},
		{File: "x.go", Old: "wake(2)", New: "wake(0)"},
		{File: "z.go", Old: "wake(1)", New: "wake(0)"},
	} {
		m := mutation{Name: "m", Edits: []edit{{File: "y.go", Old: "sleep()", New: "nap()"}, e}}
		if _, err := m.apply(dir); err == nil {
			t.Errorf("apply of %+v succeeded", e)
		}
		if readFile(t, dir, "x.go") != "wake(1)\nwake(1)\n" || readFile(t, dir, "y.go") != "sleep()\n" {
			t.Fatalf("a failed apply of %+v changed the files", e)
		}
	}
}

func TestCheckRejectsAMalformedSet(t *testing.T) {
	good := mutation{Name: "no-publish", What: "w", Edits: []edit{{File: "f", Old: "a", New: "b"}}, Pkgs: []string{"./p/"}, Run: "TestX", Timeout: time.Minute}
	if err := check([]mutation{good}); err != nil {
		t.Fatal(err)
	}
	bad := map[string]func(m *mutation){
		"a name with spaces":   func(m *mutation) { m.Name = "no publish" },
		"no edits":             func(m *mutation) { m.Edits = nil },
		"no packages":          func(m *mutation) { m.Pkgs = nil },
		"no -run pattern":      func(m *mutation) { m.Run = "" },
		"a bad -run pattern":   func(m *mutation) { m.Run = "Test(" },
		"no timeout":           func(m *mutation) { m.Timeout = 0 },
		"an edit of no change": func(m *mutation) { m.Edits = []edit{{File: "f", Old: "a", New: "a"}} },
	}
	for what, spoil := range bad {
		m := good
		spoil(&m)
		if check([]mutation{m}) == nil {
			t.Errorf("check accepted a mutation with %s", what)
		}
	}
	if check([]mutation{good, good}) == nil {
		t.Error("check accepted a name used twice")
	}
}

func TestArgs(t *testing.T) {
	m := mutation{Pkgs: []string{"./rlock/", "./pubsub/"}, Run: "TestA|TestB", Timeout: 90 * time.Second, Race: true}
	want := []string{"test", "-v", "-count=1", "-timeout", "1m30s", "-race", "-run", "TestA|TestB", "./rlock/", "./pubsub/"}
	if got := m.args(); !slices.Equal(got, want) {
		t.Fatalf("args = %q, want %q", got, want)
	}
}

func TestJudge(t *testing.T) {
	for _, tc := range []struct {
		what    string
		out     string
		failed  bool
		v       verdict
		killers []string
	}{
		{"every test passed", "=== RUN   TestA\n--- PASS: TestA (0.01s)\nPASS\nok  \tgithub.com/relock-go/relock/pubsub\t0.1s\n", false, survived, nil},
		{"tests failed in two packages, one in a subtest",
			"=== RUN   TestA\n--- FAIL: TestA (1.00s)\n    --- FAIL: TestA/Mutex (0.50s)\n    --- PASS: TestA/Fair (0.50s)\n--- FAIL: TestB (0.2s)\nFAIL\nFAIL\tgithub.com/relock-go/relock/rlock\t3.1s\n" +
				"--- FAIL: TestC (0.1s)\nFAIL\nFAIL\tgithub.com/relock-go/relock/pubsub\t0.4s\nFAIL\n",
			true, killed, []string{"rlock TestA/Mutex", "rlock TestB", "pubsub TestC"}},
		{"a test timed out",
			"=== RUN   TestSlow\n=== RUN   TestSlow/sub\npanic: test timed out after 1m0s\n\trunning tests:\n\t\tTestSlow (1m0s)\n\t\tTestSlow/sub (1m0s)\n\ngoroutine 1 [running]:\nFAIL\tgithub.com/relock-go/relock/rlock\t60.2s\n",
			true, killed, []string{"rlock TestSlow/sub (timed out)"}},
		{"the package failed after its tests passed",
			"--- PASS: TestA (0.01s)\nPASS\ngoleak: found unexpected goroutines\nFAIL\tgithub.com/relock-go/relock/queue\t0.3s\n",
			true, killed, []string{"queue (the package failed)"}},
		{"it does not build", "# github.com/relock-go/relock/rlock\nrlock/x.go:3:1: syntax error\nFAIL\tgithub.com/relock-go/relock/rlock [build failed]\n", true, broken, nil},
		{"the pattern matched no test", "testing: warning: no tests to run\nPASS\nok  \tgithub.com/relock-go/relock/rlock\t0.1s [no tests to run]\n", false, broken, nil},
	} {
		v, killers, _ := judge(tc.out, tc.failed)
		if v != tc.v || !slices.Equal(killers, tc.killers) {
			t.Errorf("%s: judge = %v, %q; want %v, %q", tc.what, v, killers, tc.v, tc.killers)
		}
	}
	v, _, note := judge("=== RUN   TestJava\n--- SKIP: TestJava (0.00s)\nok  \tgithub.com/relock-go/relock/test/interop\t0.1s\n", false)
	if v != survived || !strings.Contains(note, "TestJava") {
		t.Errorf("a survivor whose test skipped: %v, %q; want its note to name the test", v, note)
	}
}

func TestChoose(t *testing.T) {
	ms := []mutation{{Name: "release-no-publish"}, {Name: "fair-grant-tail"}, {Name: "sem-release-adds-nothing"}}
	got, err := choose(ms, "fair|sem")
	if err != nil || len(got) != 2 || got[0].Name != "fair-grant-tail" {
		t.Fatalf("choose = %v, %v", got, err)
	}
	if _, err := choose(ms, "watchdog"); err == nil {
		t.Fatal("choose of no mutation succeeded")
	}
}

// The scratch copy holds the working tree's tracked files, changes and
// new files not yet committed included, and no ignored file.
func TestScratchCopy(t *testing.T) {
	if _, err := os.Stat(filepath.Join(root, ".git")); err != nil {
		t.Skip("not a git checkout")
	}
	files, err := trackedFiles(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"go.mod", "rlock/client.go", "scripts/release.lua", "test/cmd/mutants/mutations.go"} {
		if !slices.Contains(files, want) {
			t.Errorf("the scratch copy lacks %s", want)
		}
	}
	dst := t.TempDir()
	if err := copyTree(root, dst, []string{"go.mod", "scripts/release.lua"}); err != nil {
		t.Fatal(err)
	}
	if readFile(t, dst, "scripts/release.lua") != readFile(t, root, "scripts/release.lua") {
		t.Fatal("the copy differs from the working tree's file")
	}
}
