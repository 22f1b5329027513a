package testenv

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestMain(m *testing.M) { os.Exit(Main(m.Run)) }

// recorder is a testing.TB that records how a test ended instead of
// ending it.
type recorder struct {
	testing.TB
	fatal, skip string
}

func (r *recorder) Helper()      {}
func (r *recorder) Name() string { return "TestNeedsJava" }
func (r *recorder) Fatalf(format string, args ...any) {
	r.fatal = fmt.Sprintf(format, args...)
}
func (r *recorder) Skipf(format string, args ...any) {
	r.skip = fmt.Sprintf(format, args...)
}

// Outside CI a test without what it needs skips, and says so in the skip
// log: the test, what is missing and how to run it.
func TestUnavailableSkipsLoudlyOutsideCI(t *testing.T) {
	log := filepath.Join(t.TempDir(), "skips")
	t.Setenv(SkipLogEnv, log)
	for _, ci := range []string{"", "false", "0"} {
		t.Setenv("CI", ci)
		r := &recorder{TB: t}
		Unavailable(r, "no java on the PATH", "make interop")
		if r.fatal != "" || !strings.Contains(r.skip, "no java on the PATH") {
			t.Fatalf("CI=%q: fatal %q, skip %q; want a skip saying why", ci, r.fatal, r.skip)
		}
	}
	b, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	want := "no java on the PATH\tmake interop\tTestNeedsJava\n"
	if string(b) != strings.Repeat(want, 3) {
		t.Fatalf("skip log:\n%s\nwant three times:\n%s", b, want)
	}
}

// Under CI the same test fails, and logs no skip.
func TestUnavailableFailsUnderCI(t *testing.T) {
	log := filepath.Join(t.TempDir(), "skips")
	t.Setenv(SkipLogEnv, log)
	for _, ci := range []string{"true", "1"} {
		t.Setenv("CI", ci)
		r := &recorder{TB: t}
		Unavailable(r, "chromium not found", "make browser")
		if r.skip != "" || !strings.Contains(r.fatal, "must run under CI: chromium not found") {
			t.Fatalf("CI=%q: fatal %q, skip %q; want a failure", ci, r.fatal, r.skip)
		}
	}
	if _, err := os.Stat(log); !os.IsNotExist(err) {
		t.Fatalf("skip log written under CI (stat: %v)", err)
	}
}
