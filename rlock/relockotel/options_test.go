package relockotel

import (
	"testing"

	"go.opentelemetry.io/otel/attribute"

	"github.com/relock-go/relock/test/testkit"
)

func TestOptions(t *testing.T) {
	t.Run("lock name and attributes", func(t *testing.T) {
		service := attribute.String("service.role", "billing")
		h := newHarness(t, []Option{WithLockNameAttribute(), WithAttributes(service)})
		ctx := testkit.Ctx(t, within)
		m := h.client.NewMutex("otel:named")
		if err := m.Lock(ctx); err != nil {
			t.Fatal(err)
		}
		if err := m.Unlock(ctx); err != nil {
			t.Fatal(err)
		}
		h.wantSum(t, "relock.lock.acquisitions", 1, AttrLockName.String("otel:named"), service, acquired)
		h.wantSum(t, "relock.lock.holds.active", 0, AttrLockName.String("otel:named"), service)
		for _, s := range h.spans.Ended() {
			if v, ok := attr(s, service.Key); !ok || v != service.Value {
				t.Errorf("%s span lacks %s", s.Name(), service.Key)
			}
		}
	})
	t.Run("without spans", func(t *testing.T) {
		h := newHarness(t, []Option{WithoutSpans()})
		ctx := testkit.Ctx(t, within)
		m := h.client.NewMutex("otel:nospans")
		if err := m.Lock(ctx); err != nil {
			t.Fatal(err)
		}
		if err := m.Unlock(ctx); err != nil {
			t.Fatal(err)
		}
		if n := len(h.spans.Ended()); n != 0 {
			t.Errorf("%d spans", n)
		}
		h.wantSum(t, "relock.lock.acquisitions", 1, acquired)
		h.wantSum(t, "relock.lock.holds.active", 0)
	})
	t.Run("without metrics", func(t *testing.T) {
		h := newHarness(t, []Option{WithoutMetrics()})
		ctx := testkit.Ctx(t, within)
		m := h.client.NewMutex("otel:nometrics")
		if err := m.Lock(ctx); err != nil {
			t.Fatal(err)
		}
		if err := m.Unlock(ctx); err != nil {
			t.Fatal(err)
		}
		if ms := h.metrics(t); len(ms) != 0 {
			t.Errorf("%d metrics", len(ms))
		}
		if len(h.ended(SpanLock)) != 1 || len(h.ended(SpanUnlock)) != 1 {
			t.Errorf("spans: %d %s, %d %s", len(h.ended(SpanLock)), SpanLock, len(h.ended(SpanUnlock)), SpanUnlock)
		}
		// The hold is tracked for the link even without metrics.
		if links := h.ended(SpanUnlock)[0].Links(); len(links) != 1 {
			t.Errorf("%s span has %d links, want 1", SpanUnlock, len(links))
		}
	})
}
