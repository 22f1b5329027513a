package rlock

import (
	"errors"
	"slices"
	"testing"
	"time"
)

// Inspect tells a rate limiter's config from a lock's hash: its kind, rate
// and permits available now; RateLimiters lists limiters and Locks does
// not.
func TestRateLimiterInspectAndList(t *testing.T) {
	ctx := ctxT(t)
	c := newClient(t, newRedis(t))
	l := c.NewRateLimiter("rl:inspect")
	r := Rate{Limit: 5, Interval: time.Minute, PerClient: true, KeepAlive: time.Hour}
	setRate(t, l, r)
	l.AllowN(ctx, 2)
	for _, inspect := range []func() (LockInfo, error){
		func() (LockInfo, error) { return c.Inspect(ctx, "rl:inspect") },
		func() (LockInfo, error) { return l.Inspect(ctx) },
	} {
		info, err := inspect()
		if err != nil || info.Kind != KindRateLimiter || info.Rate == nil || *info.Rate != r || info.Count != 3 || info.TTL <= 59*time.Minute {
			t.Fatalf("Inspect = %+v, %v; want a rate limiter of %+v with 3 available, kept an hour", info, err, r)
		}
	}
	if info, err := c.InspectKind(ctx, "rl:none", KindRateLimiter); err != nil || info.Kind != KindRateLimiter || info.Rate != nil || info.Count != 0 {
		t.Fatalf("InspectKind of no limiter = %+v, %v; want its kind, no rate", info, err)
	}
	m := c.NewMutex("rl:lock")
	if err := m.Lock(ctx); err != nil {
		t.Fatal(err)
	}
	defer m.Unlock(ctx)
	if _, err := c.InspectKind(ctx, "rl:lock", KindRateLimiter); !errors.Is(err, ErrWrongType) {
		t.Fatalf("InspectKind of a lock as a rate limiter: %v; want ErrWrongType", err)
	}
	if names, err := c.RateLimiters(ctx, "rl:*"); !slices.Equal(names, []string{"rl:inspect"}) || err != nil {
		t.Fatalf("RateLimiters = %v, %v", names, err)
	}
	if names, err := c.Locks(ctx, "rl:*"); !slices.Equal(names, []string{"rl:lock"}) || err != nil {
		t.Fatalf("Locks = %v, %v", names, err)
	}
}
