package main

import (
	"flag"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/relock-go/relock/rlock"
)

// TestUsage checks the exit statuses and messages of command lines that
// run nothing.
func TestUsage(t *testing.T) {
	fresh(t)
	for _, tc := range []struct {
		args           []string
		code           int
		stdout, stderr []string
	}{
		{nil, 2, nil, []string{"Usage:"}},
		{[]string{"help", "frobnicate"}, 2, nil, []string{`unknown command "frobnicate"`}},
		{[]string{"frobnicate"}, 2, nil, []string{`relock: unknown command "frobnicate"`, "Usage:"}},
		{[]string{"help"}, 0, []string{"Usage:", "Examples:", "relock watch"}, nil},
		{[]string{"--help"}, 0, []string{"Usage:"}, nil},
		{[]string{"help", "watch"}, 0, []string{"usage: relock watch [flags] NAME", "--count N"}, nil},
		{[]string{"help", "inspect"}, 0, []string{"usage: relock inspect [flags] NAME", "  --addr HOST:PORT", "  --json"}, nil},
		{[]string{"version"}, 0, []string{"relock " + rlock.Version + " (go"}, nil},
		{[]string{"version", "x"}, 2, nil, []string{"too many arguments"}},
		{[]string{"version", "--json"}, 0, []string{`"version": "` + rlock.Version + `"`, `"go": "go`}, nil},
		{[]string{"--json", "--addr", "127.0.0.1:1", "version"}, 0, []string{`"version": "` + rlock.Version + `"`}, nil},
		{[]string{"--json"}, 2, nil, []string{"no command after the flags"}},
		{[]string{"--kind", "semaphore", "inspect", "x"}, 2, nil, []string{"not defined: --kind"}},
		{[]string{"--addr", "a:1,b:2", "inspect", "x"}, 2, nil, []string{"need --cluster or --sentinel-master"}},
		{[]string{"watch", "-h"}, 0, []string{"usage: relock watch [flags] NAME"}, nil},
		{[]string{"inspect"}, 2, nil, []string{"relock inspect: missing NAME"}},
		{[]string{"inspect", "a", "b"}, 2, nil, []string{"too many arguments"}},
		{[]string{"list", "--bogus"}, 2, nil, []string{"flag provided but not defined: --bogus"}},
		{[]string{"inspect", "--count", "2", "x"}, 2, nil, []string{"not defined: --count"}},
		{[]string{"unlock", "x"}, 2, nil, []string{"unlock needs --force"}},
		{[]string{"inspect", "--addr", "a:1,b:2", "x"}, 2, nil, []string{"need --cluster or --sentinel-master"}},
		{[]string{"watch", "--count", "-1", "x"}, 2, nil, []string{"cannot be negative"}},
	} {
		r := runCmd(t, relockCmd(t, tc.args...), "")
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) { r.want(t, tc.code, tc.stdout, tc.stderr) })
	}
	for _, args := range [][]string{{"help"}, {"help", "inspect"}, {"help", "list"}, {"help", "watch"}, {"help", "unlock"}} {
		r := runCmd(t, relockCmd(t, args...), "")
		for _, line := range strings.Split(r.stdout, "\n") {
			if strings.HasPrefix(strings.TrimSpace(line), "-") && !strings.HasPrefix(strings.TrimSpace(line), "--") {
				t.Errorf("relock %s names a flag with one dash: %q", strings.Join(args, " "), line)
			}
		}
	}
	relock(t, "", "inspect", "--", "-dash").want(t, 0, []string{`no lock named "-dash"`}, nil)
}

// TestParseInterspersed finds flags among and after the arguments, and
// none after "--".
func TestParseInterspersed(t *testing.T) {
	for _, tc := range []struct {
		args, pos []string
		json      bool
	}{
		{[]string{"a", "--json"}, []string{"a"}, true},
		{[]string{"--json", "a", "b"}, []string{"a", "b"}, true},
		{[]string{"a", "--", "--json"}, []string{"a", "--json"}, false},
		{[]string{"a", "-", "b"}, []string{"a", "-", "b"}, false},
	} {
		fs := flag.NewFlagSet("test", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		json := fs.Bool("json", false, "")
		pos, err := parseInterspersed(fs, tc.args)
		if err != nil || !slices.Equal(pos, tc.pos) || *json != tc.json {
			t.Errorf("parseInterspersed(%q) = %q, json %v, %v; want %q, json %v", tc.args, pos, *json, err, tc.pos, tc.json)
		}
	}
}

// TestHelpNamesEveryKind wants relock's help and every command's name the
// rate limiter beside the locks, semaphores and latches, and --kind take
// it.
func TestHelpNamesEveryKind(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"help"}, {"help", "inspect"}, {"help", "list"}, {"help", "watch"}, {"help", "unlock"}, {"help", "leader"}} {
		r := runCmd(t, relockCmd(t, args...), "")
		r.want(t, 0, []string{"rate limiter"}, nil)
	}
	for _, args := range [][]string{{"help"}, {"help", "inspect"}, {"help", "watch"}} {
		r := runCmd(t, relockCmd(t, args...), "")
		r.want(t, 0, []string{"rate-limiter"}, nil)
	}
}
