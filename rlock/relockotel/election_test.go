package relockotel

import (
	"testing"

	"go.opentelemetry.io/otel/codes"

	"github.com/relock-go/relock/rlock"
	"github.com/relock-go/relock/test/testkit"
)

// A term is a relock.Campaign span when it begins and a relock.Term span
// when it ends; the election metrics count terms and their lengths by how
// they ended.
func TestElectionTerms(t *testing.T) {
	h := newHarness(t, nil)
	ctx := testkit.Ctx(t, within)
	e := h.client.NewElection("otel:election")
	term, err := e.Campaign(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	electionKind := AttrLockKind.String(string(rlock.KindElection))
	h.wantSum(t, "relock.election.leaders.active", 1, electionKind)
	if err := term.Proclaim(ctx, "b"); err != nil {
		t.Fatal(err)
	}
	if err := term.Resign(ctx); err != nil {
		t.Fatal(err)
	}
	second, err := e.Campaign(ctx, "c")
	if err != nil {
		t.Fatal(err)
	}
	_ = h.client.Close() // ends the second term

	h.wantSum(t, "relock.election.terms", 2, electionKind)
	h.wantSum(t, "relock.election.proclamations", 1, electionKind)
	h.wantSum(t, "relock.election.leaders.active", 0, electionKind)
	for _, outcome := range []string{OutcomeResigned, OutcomeClosed} {
		if n := h.count(t, "relock.election.term.duration", electionKind, AttrOutcome.String(outcome)); n != 1 {
			t.Errorf("relock.election.term.duration has %d %s measurements, want 1", n, outcome)
		}
	}
	campaigns, terms := h.ended(SpanCampaign), h.ended(SpanTerm)
	if len(campaigns) != 2 || len(terms) != 2 {
		t.Fatalf("%d %s and %d %s spans, want 2 of each", len(campaigns), SpanCampaign, len(terms), SpanTerm)
	}
	for i, want := range []int64{term.Token(), second.Token()} {
		if v, _ := attr(campaigns[i], AttrTermToken); v.AsInt64() != want {
			t.Errorf("%s span %d has token %v, want %d", SpanCampaign, i, v.Emit(), want)
		}
		if v, _ := attr(terms[i], AttrTermToken); v.AsInt64() != want {
			t.Errorf("%s span %d has token %v, want %d", SpanTerm, i, v.Emit(), want)
		}
	}
	if terms[0].Status().Code == codes.Error || terms[1].Status().Code != codes.Error {
		t.Errorf("%s spans' statuses %v, %v; want a resignation's unset and a closed term's error", SpanTerm, terms[0].Status(), terms[1].Status())
	}
	if !terms[0].StartTime().Before(terms[0].EndTime()) {
		t.Errorf("%s span from %v to %v", SpanTerm, terms[0].StartTime(), terms[0].EndTime())
	}
}
