package main

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/relock-go/relock/rlock"
)

// documented are the files whose code blocks show relock command lines,
// from the repository's root.
var documented = []string{"README.md", "docs/operations.md"}

// TestDocumentedCommandLines runs every relock command line of the
// documentation's code blocks as written, on a server holding the locks
// they name, and wants exit status 0: the address is that of the test's
// server (in place of the one written, or added after the line), a watch
// stops after a moment, and a prompt is answered yes. What follows a pipe
// or a redirection is left out.
func TestDocumentedCommandLines(t *testing.T) {
	var lines []string
	for _, doc := range documented {
		text, err := os.ReadFile(filepath.Join("..", "..", doc))
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range commandLines(string(text)) {
			lines = append(lines, doc+": "+line)
		}
	}
	if len(lines) < 5 {
		t.Fatalf("found %d relock command lines in %s, want them all:\n%s", len(lines), documented, strings.Join(lines, "\n"))
	}
	for _, line := range lines {
		doc, cmdline, _ := strings.Cut(line, ": ")
		t.Run(cmdline, func(t *testing.T) {
			words, err := shellWords(cmdline)
			if err != nil {
				t.Fatalf("%s: %v", doc, err)
			}
			s := fresh(t)
			documentedState(t, s)
			r := runCmd(t, relockCmd(t, asTested(words[1:])...), "y\n")
			r.want(t, 0, nil, nil)
		})
	}
}

// documentedState makes the locks and counting objects the documented
// command lines name: held locks, semaphores with permits, a rate
// limiter.
func documentedState(t *testing.T, s server) {
	c := s.client()
	for _, name := range []string{"orders:42", "jobs"} {
		lock(t, c.NewMutex(name))
	}
	for _, name := range []string{"pool", "reports"} {
		if _, err := c.NewSemaphore(name).TrySetPermits(context.Background(), 3); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.NewRateLimiter("payments:calls").SetRate(context.Background(), rlock.Rate{Limit: 100, Interval: time.Second}); err != nil {
		t.Fatal(err)
	}
}

// asTested is the arguments of a documented command line as the test
// runs them: on the test's server, a watch bounded in time.
func asTested(args []string) []string {
	out := slices.Clone(args)
	if i := slices.Index(out, "--addr"); i >= 0 && i+1 < len(out) {
		out[i+1] = srv.Addr
	} else {
		out = append(out, "--addr", srv.Addr)
	}
	if (slices.Contains(out, "watch") || slices.Contains(out, "--watch")) && !slices.Contains(out, "--for") {
		out = append(out, "--for", "300ms")
	}
	return out
}

// commandLines returns the relock command lines of the fenced code
// blocks of a Markdown text, without a shell prompt, comments, or what
// follows a pipe or a redirection.
func commandLines(text string) []string {
	var lines []string
	inBlock := false
	for _, line := range strings.Split(text, "\n") {
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "```") {
			inBlock = !inBlock
			continue
		}
		trimmed = strings.TrimPrefix(trimmed, "$ ")
		if !inBlock || !strings.HasPrefix(trimmed, "relock ") {
			continue
		}
		lines = append(lines, strings.TrimSpace(cutShell(trimmed)))
	}
	return lines
}

// cutShell cuts a shell line at its first comment, pipe or redirection
// outside quotes.
func cutShell(line string) string {
	var quote rune
	for i, r := range line {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			}
		case r == '\'' || r == '"':
			quote = r
		case r == '#' || r == '|' || r == '>':
			return line[:i]
		}
	}
	return line
}

// shellWords splits a shell command line into words, removing single and
// double quotes (no escapes, variables or globs: the documentation uses
// none).
func shellWords(line string) ([]string, error) {
	var words []string
	var word strings.Builder
	var quote rune
	inWord := false
	for _, r := range line {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			word.WriteRune(r)
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ' || r == '\t':
			if inWord {
				words = append(words, word.String())
				word.Reset()
				inWord = false
			}
		default:
			word.WriteRune(r)
			inWord = true
		}
	}
	if quote != 0 {
		return nil, errUnclosedQuote
	}
	if inWord {
		words = append(words, word.String())
	}
	return words, nil
}

// errUnclosedQuote is shellWords' error for a line with a quote left open.
var errUnclosedQuote = usageError{"a quote is not closed"}

// TestShellWords splits command lines as a shell does.
func TestShellWords(t *testing.T) {
	for line, want := range map[string][]string{
		`relock list 'orders:*'`:          {"relock", "list", "orders:*"},
		`relock  inspect "a b"  x`:        {"relock", "inspect", "a b", "x"},
		`relock inspect jobs # who holds`: {"relock", "inspect", "jobs"},
		`relock watch --json x >> f.json`: {"relock", "watch", "--json", "x"},
	} {
		got, err := shellWords(strings.TrimSpace(cutShell(line)))
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("shellWords(%q) = %q, %v; want %q", line, got, err, want)
		}
	}
}
