package rlock

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/internal/keys"
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

// Inspect of a limiter per client reads every client's permits from
// Redis, a Redisson client's too, and not the inspecting Client's alone;
// a name holding SCAN's pattern characters is matched as itself.
func TestRateLimiterInspectClients(t *testing.T) {
	ctx := ctxT(t)
	rdb := newRedis(t)
	a, b, inspector := newClient(t, rdb), newClient(t, rdb), newClient(t, rdb)
	const name = `rl:[ab]*?\`
	if err := a.NewRateLimiter(name).SetRate(ctx, Rate{Limit: 10, Interval: time.Minute, PerClient: true}); err != nil {
		t.Fatal(err)
	}
	// A limiter whose keys an unescaped pattern would take for name's.
	if err := a.NewRateLimiter("rl:a").SetRate(ctx, Rate{Limit: 10, Interval: time.Minute, PerClient: true}); err != nil {
		t.Fatal(err)
	}
	for c, n := range map[*Client]int{a: 3, b: 4} {
		for _, l := range []string{name, "rl:a"} {
			if ok, err := c.NewRateLimiter(l).AllowN(ctx, n); !ok || err != nil {
				t.Fatalf("AllowN(%d) = %v, %v", n, ok, err)
			}
		}
	}
	// A Redisson client's keys, as its scripts write them: its count, and
	// its one permit taken, a member of a length byte, that many random
	// bytes and the permits, 4 bytes little-endian.
	const redisson = "5f08c525-76ae-400b-914c-52ca6bdac5d1"
	if err := rdb.Set(ctx, keys.RateClient(keys.RateValue(name), redisson), 9, 0).Err(); err != nil {
		t.Fatal(err)
	}
	taken := redis.Z{Score: float64(time.Now().UnixMilli()), Member: "\x02ab\x01\x00\x00\x00"}
	if err := rdb.ZAdd(ctx, keys.RateClient(keys.RatePermits(name), redisson), taken).Err(); err != nil {
		t.Fatal(err)
	}
	info, err := inspector.Inspect(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	want := []RateClient{{Client: a.ID(), Available: 7}, {Client: b.ID(), Available: 6}, {Client: redisson, Available: 9}}
	slices.SortFunc(want, func(x, y RateClient) int { return strings.Compare(x.Client, y.Client) })
	if !slices.Equal(info.RateClients, want) || info.Count != 10 {
		t.Fatalf("Inspect's clients %+v, count %d; want %+v and the inspector's own 10", info.RateClients, info.Count, want)
	}
	if info, err := inspector.Inspect(ctx, "rl:a"); err != nil || len(info.RateClients) != 2 {
		t.Fatalf("Inspect of rl:a = %+v, %v; want its 2 clients", info.RateClients, err)
	}
}
