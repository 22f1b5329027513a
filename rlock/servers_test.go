package rlock

import (
	"context"
	"testing"
)

// skipUnlessSharded skips a test of sharded pub/sub (sharded true) on a
// server that has none: Redis before 7.0, which has no SPUBLISH.
func skipUnlessSharded(t *testing.T, sharded bool) {
	t.Helper()
	if !sharded {
		return
	}
	info, err := srv.Client(t).Do(context.Background(), "command", "info", "spublish").Slice()
	if err == nil && len(info) == 1 && info[0] == nil {
		t.Skipf("%s has no sharded pub/sub (SPUBLISH)", srv.Version())
	}
}
