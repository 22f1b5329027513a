package main

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
)

// lines is an io.Writer for goroutines that print whole lines.
type lines struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *lines) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

// Each night's job runs once, by one instance at a time, though each
// leader shuts down after its night; and the output tells things in the
// order they happened: each term's steps come after the observer printed
// that term, and the observer printed the end of the term before first.
func TestNightly(t *testing.T) {
	m := miniredis.RunT(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var out lines
	runs, most, err := nightly(ctx, &out, m.Addr(), 4, 3)
	if err != nil {
		t.Fatal(err)
	}
	if runs != 3 || most != 1 {
		t.Fatalf("%d nights ran, at most %d at once; want 3, and 1", runs, most)
	}
	text := out.buf.String()
	if strings.Contains(text, "dies") {
		t.Errorf("a Close is told as a death:\n%s", text)
	}
	last := "" // the observer's last line
	for _, line := range strings.Split(text, "\n") {
		switch {
		case strings.HasPrefix(line, "observer: "):
			if line == last && line != "observer: no leader" {
				continue // a value proclaimed again
			}
			if line != "observer: no leader" && last != "observer: no leader" {
				t.Errorf("%q follows %q: the end of the term before is not told first:\n%s", line, last, text)
			}
			last = line
		case strings.Contains(line, "nightly job step"):
			var i, step, term int
			if _, err := fmt.Sscanf(line, "instance %d: nightly job step %d (term %d)", &i, &step, &term); err != nil {
				t.Fatalf("%q: %v", line, err)
			}
			if want := fmt.Sprintf("observer: instance-%d leads (term %d)", i, term); last != want {
				t.Errorf("%q comes when the observer last told %q, want %q:\n%s", line, last, want, text)
			}
		}
	}
}
