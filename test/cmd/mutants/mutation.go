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

func (m mutation) name() string { return m.Name }

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

// check reports what is wrong with the table itself: an entry checkEntry
// refuses, a mutation without packages, -run pattern or timeout, or a
// -run pattern that is not a regular expression.
func check(ms []mutation) error {
	seen := map[string]bool{}
	for _, m := range ms {
		if err := checkEntry(seen, m.Name, m.What, m.Edits); err != nil {
			return err
		}
		if len(m.Pkgs) == 0 || m.Run == "" || m.Timeout <= 0 {
			return fmt.Errorf("mutation %s: it needs packages, a -run pattern and a timeout", m.Name)
		}
		if _, err := regexp.Compile(m.Run); err != nil {
			return fmt.Errorf("mutation %s: -run %q: %w", m.Name, m.Run, err)
		}
	}
	return nil
}

// checkEntry reports what is wrong with one entry of a mutation table (the
// tests' or the proof's): a name not usable with -only, or used before
// (seen, to which it adds the name), no text of what it does, no edits,
// or an edit that changes nothing.
func checkEntry(seen map[string]bool, name, what string, edits []edit) error {
	switch {
	case !regexp.MustCompile(`^[a-z0-9-]+$`).MatchString(name):
		return fmt.Errorf("mutation %q: a name is lower-case words joined by dashes", name)
	case seen[name]:
		return fmt.Errorf("mutation %s: named twice", name)
	case what == "" || len(edits) == 0:
		return fmt.Errorf("mutation %s: it needs what it does and edits", name)
	}
	seen[name] = true
	for _, e := range edits {
		if e.File == "" || e.Old == "" || e.Old == e.New {
			return fmt.Errorf("mutation %s: an edit of %q changes nothing", name, e.File)
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
