package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/relock-go/relock/rlock"
)

// unlockResult is what unlock prints with --json.
type unlockResult struct {
	Name    string `json:"name"`
	Deleted bool   `json:"deleted"`
	// Holders are the lock's holders as they were just before it was
	// deleted.
	Holders []holderView `json:"holders"`
}

// runUnlock force-unlocks the lock args[0] (Client.ForceUnlock): it names
// its holders and asks on stdin first, unless --yes. A refusal returns
// errRefused; so does a lock that changed hands while the prompt waited,
// since the operator agreed to delete another holder's. A lock that is not
// held is reported, not an error; a semaphore, a latch, a rate limiter or
// a count is an error that says so, and is left alone.
func runUnlock(ctx context.Context, s *session, args []string) error {
	name := args[0]
	v, err := s.view(ctx, name)
	if err != nil {
		return err
	}
	if k := rlock.Kind(v.Kind); k.Counting() {
		return fmt.Errorf("%q is a %s, not a lock: it has no holder to unlock (relock inspect shows it)", name, kindText(k))
	}
	if !v.Held {
		return s.unlocked(v, false)
	}
	if !s.o.yes {
		ok, err := confirm(s.e.stdin, s.e.stderr, fmt.Sprintf("force-unlock %q held by %s? [y/N] ", name, holdersText(v.Holders)))
		if err != nil {
			return err
		}
		if !ok {
			fmt.Fprintln(s.e.stderr, "not unlocked")
			return errRefused
		}
		again, err := s.view(ctx, name)
		if err != nil {
			return err
		}
		if !again.Held {
			return s.unlocked(again, false)
		}
		if !slices.Equal(owners(v.Holders), owners(again.Holders)) {
			fmt.Fprintf(s.e.stderr, "%q changed hands while the prompt waited (now held by %s): not unlocked\n", name, holdersText(again.Holders))
			return errRefused
		}
	}
	rctx, cancel := s.request(ctx)
	defer cancel()
	deleted, err := s.locks.ForceUnlock(rctx, name)
	if err != nil {
		return err
	}
	return s.unlocked(v, deleted)
}

// unlocked prints the outcome of an unlock of the lock v shows.
func (s *session) unlocked(v lockView, deleted bool) error {
	if s.o.json {
		return writeJSON(s.e.stdout, unlockResult{Name: v.Name, Deleted: deleted, Holders: v.Holders})
	}
	switch {
	case deleted:
		fmt.Fprintf(s.e.stdout, "deleted lock %q, held by %s\n", v.Name, holdersText(v.Holders))
	case v.Held:
		fmt.Fprintf(s.e.stdout, "no lock named %q: released meanwhile\n", v.Name)
	default:
		fmt.Fprintf(s.e.stdout, "no lock named %q is held\n", v.Name)
	}
	return nil
}

// confirm writes prompt to w and reports whether the line read from r
// answers yes ("y" or "yes", in any case). End of input is a no.
func confirm(r io.Reader, w io.Writer, prompt string) (bool, error) {
	fmt.Fprint(w, prompt)
	line, err := bufio.NewReader(r).ReadString('\n')
	if err != nil && err != io.EOF {
		return false, fmt.Errorf("reading the answer: %w", err)
	}
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return true, nil
	}
	return false, nil
}

// holdersText names the holders and their hold counts.
func holdersText(hs []holderView) string {
	parts := make([]string, len(hs))
	for i, h := range hs {
		mode := ""
		if h.Mode != "" {
			mode = h.Mode + ", "
		}
		if h.Label != nil {
			mode = labelText(h.Label) + ", " + mode
		}
		parts[i] = fmt.Sprintf("%s (%scount %d)", h.Owner, mode, h.Count)
	}
	return strings.Join(parts, ", ")
}

// owners returns the holders' owner ids and modes, sorted.
func owners(hs []holderView) []string {
	ids := make([]string, len(hs))
	for i, h := range hs {
		ids[i] = h.Owner + " " + h.Mode
	}
	slices.Sort(ids)
	return ids
}
