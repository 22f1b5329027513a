package rlock

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"
)

// WithClientName refuses a name CLIENT SETNAME would not take, or that is
// empty or too long, with an error that names it.
func TestWithClientNameRefusesBadNames(t *testing.T) {
	rdb := newRedis(t)
	for _, name := range []string{"", "a b", "tab\there", "é", "del\x7f", strings.Repeat("x", 65)} {
		c, err := New(rdb, WithClientName(name))
		if err == nil {
			_ = c.Close()
			t.Errorf("WithClientName(%q) accepted", name)
			continue
		}
		if !strings.Contains(err.Error(), "client name") {
			t.Errorf("WithClientName(%q): %v, want an error naming the client name", name, err)
		}
	}
	c := newClient(t, rdb, WithClientName(strings.Repeat("x", 64)))
	if c.Name() != strings.Repeat("x", 64) {
		t.Errorf("Name() = %q", c.Name())
	}
}

// A named Client's label is in Redis while it is open, with the watchdog
// timeout as TTL; Inspect gives it beside the Client's holders and
// waiters, none beside an unnamed Client's; Close deletes it.
func TestClientLabelShownByInspectAndDeletedByClose(t *testing.T) {
	rdb := newRedis(t)
	ctx := ctxT(t)
	const wd = 2 * time.Second
	billing := newClient(t, rdb, WithClientName("billing-worker"), WithWatchdogTimeout(wd))
	report := newClient(t, rdb, WithClientName("report"))
	anon := newClient(t, rdb)
	for _, c := range []*Client{billing, report} {
		key := labelKey(c.ID())
		eventually(t, 5*time.Second, "the label at "+key, func() bool { return rdb.Exists(ctx, key).Val() == 1 })
	}
	if ttl := rdb.PTTL(ctx, labelKey(billing.ID())).Val(); ttl <= 0 || ttl > wd {
		t.Errorf("label TTL %v, want in (0, %v]", ttl, wd)
	}
	if n := rdb.Exists(ctx, labelKey(anon.ID())).Val(); n != 0 {
		t.Errorf("an unnamed Client wrote a label")
	}

	const name = "label:fair"
	holder := billing.NewFairMutex(name)
	if err := holder.Lock(ctx); err != nil {
		t.Fatal(err)
	}
	waiter := report.NewFairMutex(name)
	got := lockAsync(ctx, waiter)
	awaitQueue(t, rdb, name, waiter.Owner())
	other := anon.NewMutex("label:plain")
	if err := other.Lock(ctx); err != nil {
		t.Fatal(err)
	}

	info := mustInspect(t, anon, name)
	host, _ := os.Hostname()
	if len(info.Holders) != 1 || len(info.Queue) != 1 {
		t.Fatalf("Inspect = %+v, want one holder and one waiter", info)
	}
	if l := info.Holders[0].Label; l == nil || l.Name != "billing-worker" || l.Host != host || l.PID != os.Getpid() || l.Started.IsZero() {
		t.Errorf("holder label %+v, want billing-worker on %s, pid %d", l, host, os.Getpid())
	}
	if e := info.Queue[0]; e.Client != report.ID() || e.Label == nil || e.Label.Name != "report" || e.Label.String() != "report@"+host {
		t.Errorf("queue entry %+v, want the report Client's label", e)
	}
	if l := mustInspect(t, anon, "label:plain").Holders[0].Label; l != nil {
		t.Errorf("an unnamed Client's holder has label %+v", l)
	}

	if err := holder.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	awaitLock(t, got, 5*time.Second)
	if err := waiter.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	if err := other.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	_ = billing.Close()
	if n := rdb.Exists(context.Background(), labelKey(billing.ID())).Val(); n != 0 {
		t.Errorf("the label outlived Close")
	}
}
