package chaos

import (
	"context"
	"testing"
	"time"
)

func TestCheckerUnderFaults(t *testing.T) {
	fresh(t)
	res, err := Run(context.Background(), Config{
		Redis:        srv.Addr,
		Acquisitions: 10000, Names: 4,
		Duration: 40 * time.Second,
		Faults:   true,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%v in %v, faults %v, lock errors %d, unlock retries %d, seed %d", res.Report, res.Elapsed, res.Faults, res.LockErrors, res.UnlockRetries, res.Seed)
	if res.Violations() != 0 {
		t.Fatal(res.Summary())
	}
}
