package fleet

import (
	"slices"
	"testing"

	"github.com/relock-go/relock/test/proof/history"
)

// The families of what the new workloads leave: a latch's count and a
// rate limiter's keys are kept (history.KeptFamilies), a lock's hash of
// the same run is not.
func TestFamilyOfTheWorkloadsKeys(t *testing.T) {
	for _, tc := range []struct {
		key, typ, family string
		kept             bool
	}{
		{"proof:single:latch:1:12", "string", "latch count", true},
		{"proof:ack:rate:3", "hash", "rate limiter", true},
		{"{proof:ack:rate:3}:value", "string", "rate limiter's permits", true},
		{"{proof:ack:rate:3}:permits", "zset", "rate limiter's permits", true},
		{"{proof:ack:rate:3}:ledger", "string", "rate limiter's permits", true},
		{"proof:single:plain:0", "hash", "lock", false},
		{"{proof:ack:rate:3}:other", "string", "", false},
	} {
		got := family(tc.key, tc.typ)
		if got != tc.family || slices.Contains(history.KeptFamilies, got) != tc.kept {
			t.Errorf("family(%q, %q) = %q (kept %v), want %q (kept %v)", tc.key, tc.typ, got,
				slices.Contains(history.KeptFamilies, got), tc.family, tc.kept)
		}
	}
}
