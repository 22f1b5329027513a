package chaos

import (
	"os"
	"testing"
)

// skipKnownBug skips a test that fails because of the library bug it
// describes, unless CHAOS_KNOWN_BUGS=1 asks to run it (to check a fix).
// Remove the call once the bug is fixed.
func skipKnownBug(t *testing.T, bug string) {
	t.Helper()
	if os.Getenv("CHAOS_KNOWN_BUGS") != "1" {
		t.Skip("known bug: " + bug)
	}
}
