package main

import (
	"regexp"
	"slices"
	"strings"
)

// verdict is what became of a mutant.
type verdict int

const (
	// killed: at least one test failed.
	killed verdict = iota
	// survived: every test passed with the feature gone.
	survived
	// broken: the mutant says nothing about the tests: its text was not
	// found, it does not build, or its -run pattern matched no test.
	broken
	// notRun: the machine lacks what its tests need (Java).
	notRun
)

func (v verdict) String() string {
	return [...]string{"killed", "SURVIVED", "BROKEN", "not run"}[v]
}

var (
	failLine    = regexp.MustCompile(`^\s*--- FAIL: (\S+)`)
	skipLine    = regexp.MustCompile(`^\s*--- SKIP: (\S+)`)
	timedOut    = regexp.MustCompile(`^panic: test timed out after`)
	runningTest = regexp.MustCompile(`^\t+(Test\S*) \(`)
	pkgEnd      = regexp.MustCompile(`^(FAIL|ok)\s+(\S+)`)
	noTests     = regexp.MustCompile(`^ok\s+(\S+)\s.*\[no tests to run\]`)
	buildFailed = regexp.MustCompile(`^FAIL\s+\S+ \[(build|setup) failed\]|^# \S+`)
)

// module is the library's module path, which judge drops from package
// names.
const module = "github.com/relock-go/relock/"

// judge reads the output of a mutant's go test -v run, and whether the
// run failed. A kill is named by the tests that failed (the deepest
// subtest of each), each after its package; a package that failed
// without naming a test (its TestMain's check, for example) is named
// itself. The run says nothing, and the mutant is broken, when a package
// did not build or its -run pattern matched none of its tests. A note on
// a survivor names the tests that skipped.
func judge(out string, failed bool) (v verdict, killers []string, note string) {
	var pending, slow, skipped []string
	inTimeout := false
	for _, line := range strings.Split(out, "\n") {
		switch {
		case buildFailed.MatchString(line):
			return broken, nil, "does not build: " + firstLines(out, 6)
		case noTests.MatchString(line):
			return broken, nil, "the -run pattern matches no test in " + strings.TrimPrefix(noTests.FindStringSubmatch(line)[1], module)
		case failLine.MatchString(line):
			pending = append(pending, failLine.FindStringSubmatch(line)[1])
		case skipLine.MatchString(line):
			skipped = append(skipped, skipLine.FindStringSubmatch(line)[1])
		case timedOut.MatchString(line):
			inTimeout = true
		case inTimeout && runningTest.MatchString(line):
			slow = append(slow, runningTest.FindStringSubmatch(line)[1])
		case pkgEnd.MatchString(line):
			m := pkgEnd.FindStringSubmatch(line)
			pkg := strings.TrimPrefix(m[2], module)
			names := deepest(pending)
			for _, n := range deepest(slow) {
				names = append(names, n+" (timed out)")
			}
			if m[1] == "FAIL" && len(names) == 0 {
				names = []string{"(the package failed)"}
			}
			for _, n := range names {
				killers = append(killers, pkg+" "+n)
			}
			pending, slow, inTimeout = nil, nil, false
		}
	}
	if !failed {
		if len(skipped) > 0 {
			note = "skipped: " + strings.Join(skipped, ", ")
		}
		return survived, nil, note
	}
	if len(killers) == 0 {
		return broken, nil, "go test failed without a failing test or package: " + firstLines(out, 6)
	}
	return killed, killers, ""
}

// deepest drops duplicates, and each test whose subtest is listed too:
// the subtest says more.
func deepest(names []string) []string {
	var out []string
	for _, n := range names {
		if slices.Contains(out, n) {
			continue
		}
		parent := slices.ContainsFunc(names, func(o string) bool { return strings.HasPrefix(o, n+"/") })
		if !parent {
			out = append(out, n)
		}
	}
	return out
}

// firstLines is the first n non-empty lines of s, joined by " | ".
func firstLines(s string, n int) string {
	var lines []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
			if len(lines) == n {
				break
			}
		}
	}
	return strings.Join(lines, " | ")
}
