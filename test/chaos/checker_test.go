package chaos

import (
	"context"
	"testing"
	"time"
)

func TestMutualExclusionUnderSwitchingFaults(t *testing.T) {
	fresh(t)
	// Tens of thousands of acquisitions in all: this one run of ten
	// thousand, and the soak command (make soak) for longer runs.
	res, err := Run(context.Background(), Config{
		Redis:            srv.Addr,
		Clients:          4,
		WorkersPerClient: 3,
		Names:            6,
		LongEvery:        200,
		Acquisitions:     10000,
		Duration:         40 * time.Second,
		Faults:           true,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%v in %v; faults %v; lock errors %d, unlock retries %d; seed %d",
		res.Report, res.Elapsed.Round(time.Millisecond), res.Faults, res.LockErrors, res.UnlockRetries, res.Seed)
	if res.Violations() != 0 {
		t.Fatal(res.Summary())
	}
	if res.Acquisitions() < 5000 {
		t.Fatalf("only %d acquisitions in %v: the workload stalled", res.Acquisitions(), res.Elapsed)
	}
	if len(res.Faults) < 3 {
		t.Fatalf("faults %v: too few kinds injected to mean anything", res.Faults)
	}
}

func TestCheckerFindsViolations(t *testing.T) {
	// The checker itself, on histories written by hand: each case must be
	// caught, and a clean history must pass.
	type sec struct {
		owner        string
		token        int64
		start, valid int64
	}
	for _, tc := range []struct {
		name string
		secs []sec
		want func(Report) int
	}{
		{"disjoint sections, growing tokens", []sec{{"a", 1, 1, 3}, {"b", 2, 4, 6}, {"a", 3, 7, 7}}, Report.Violations},
		{"overlap", []sec{{"a", 1, 1, 5}, {"b", 2, 4, 6}}, func(r Report) int { return r.Overlaps - 1 }},
		{"token regression", []sec{{"a", 2, 1, 3}, {"b", 1, 4, 6}}, func(r Report) int { return r.TokenRegressions - 1 }},
		{"duplicate token", []sec{{"a", 1, 1, 3}, {"b", 1, 4, 6}}, func(r Report) int { return r.DuplicateTokens - 1 }},
		{"lost section may overlap", []sec{{"a", 1, 1, 2}, {"b", 2, 3, 6}, {"a", 3, 0, 0}}, Report.Violations},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := &History{}
			for _, s := range tc.secs {
				h.sections = append(h.sections, Section{Name: "n", Owner: s.owner, Token: s.token, Start: s.start, Valid: s.valid, Lost: s.valid == 0})
			}
			if r := h.Check(); tc.want(r) != 0 {
				t.Fatalf("Check = %s", r.Summary())
			}
		})
	}
}
