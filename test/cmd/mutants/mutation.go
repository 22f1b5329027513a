package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

// mutation is one semantic change to the library that the tests must
// notice: a feature taken away or turned wrong, in as few characters as
// that takes, and the tests expected to fail because of it.
type mutation struct {
	// Name is short and unique: it names the mutant in the table and in
	// -only.
	Name string
	// What says what the mutant does, as its table row tells a reader.
	What string
	// Edits are applied together; each Old must occur exactly once in its
	// file, so that a mutation whose code has moved fails loudly instead
	// of silently testing nothing.
	Edits []edit
	// Pkgs are the packages whose tests run (./rlock/), and Run their -run
	// pattern: the tests that should catch the mutant, and not the slow
	// ones that would catch it too.
	Pkgs []string
	Run  string
	// Race runs the tests under the race detector: only for a mutant that
	// shows as a data race.
	Race bool
	// Timeout bounds the tests' run (go test -timeout).
	Timeout time.Duration
	// Java: the killers run the real Redisson peer, so the mutant needs
	// Java and the peer's jar.
	Java bool
}

// edit replaces the one occurrence of Old in File (relative to the
// repository's root) by New.
type edit struct {
	File, Old, New string
}

// apply makes the mutation's edits to the tree at root. It fails, having
// changed nothing, unless every Old occurs exactly once in its file. The
// returned function restores every file it changed.
func (m mutation) apply(root string) (restore func() error, err error) {
	type change struct {
		path string
		was  []byte
	}
	var changes []change
	mutated := map[string][]byte{} // by path, for edits of one file
	for _, e := range m.Edits {
		path := filepath.Join(root, filepath.FromSlash(e.File))
		src, ok := mutated[path]
		if !ok {
			if src, err = os.ReadFile(path); err != nil {
				return nil, fmt.Errorf("mutation %s: %w", m.Name, err)
			}
			changes = append(changes, change{path: path, was: src})
		}
		if n := strings.Count(string(src), e.Old); n != 1 {
			return nil, fmt.Errorf("mutation %s: the text to replace occurs %d times in %s, want exactly once: %q", m.Name, n, e.File, e.Old)
		}
		mutated[path] = []byte(strings.Replace(string(src), e.Old, e.New, 1))
	}
	restore = func() error {
		var first error
		for _, c := range changes {
			if err := os.WriteFile(c.path, c.was, 0o644); err != nil && first == nil {
				first = err
			}
		}
		return first
	}
	for _, c := range changes {
		if err := os.WriteFile(c.path, mutated[c.path], 0o644); err != nil {
			_ = restore()
			return nil, fmt.Errorf("mutation %s: %w", m.Name, err)
		}
	}
	return restore, nil
}

// check reports what is wrong with the table itself: a name used twice or
// not usable with -only, a mutation without edits, packages, -run
// pattern or timeout, an edit that changes nothing, or a -run pattern
// that is not a regular expression.
func check(ms []mutation) error {
	seen := map[string]bool{}
	for _, m := range ms {
		switch {
		case !regexp.MustCompile(`^[a-z0-9-]+$`).MatchString(m.Name):
			return fmt.Errorf("mutation %q: a name is lower-case words joined by dashes", m.Name)
		case seen[m.Name]:
			return fmt.Errorf("mutation %s: named twice", m.Name)
		case m.What == "" || len(m.Edits) == 0 || len(m.Pkgs) == 0 || m.Run == "" || m.Timeout <= 0:
			return fmt.Errorf("mutation %s: it needs what it does, edits, packages, a -run pattern and a timeout", m.Name)
		}
		seen[m.Name] = true
		if _, err := regexp.Compile(m.Run); err != nil {
			return fmt.Errorf("mutation %s: -run %q: %w", m.Name, m.Run, err)
		}
		for _, e := range m.Edits {
			if e.File == "" || e.Old == "" || e.Old == e.New {
				return fmt.Errorf("mutation %s: an edit of %q changes nothing", m.Name, e.File)
			}
		}
	}
	return nil
}

// args are the go command's arguments that run the mutation's tests
// (verbose, so that skips show).
func (m mutation) args() []string {
	a := []string{"test", "-v", "-count=1", "-timeout", m.Timeout.String()}
	if m.Race {
		a = append(a, "-race")
	}
	return append(append(a, "-run", m.Run), m.Pkgs...)
}
