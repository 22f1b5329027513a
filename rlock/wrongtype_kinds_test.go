package rlock

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/internal/keys"
)

// foreignValues are keys no lock, semaphore or latch is stored as: each
// sets one at key.
var foreignValues = map[string]func(ctx context.Context, rdb redis.Cmdable, key string) error{
	"string": func(ctx context.Context, rdb redis.Cmdable, k string) error { return rdb.Set(ctx, k, "hello", 0).Err() },
	"list":   func(ctx context.Context, rdb redis.Cmdable, k string) error { return rdb.RPush(ctx, k, "a", "b").Err() },
	"set":    func(ctx context.Context, rdb redis.Cmdable, k string) error { return rdb.SAdd(ctx, k, "a", "b").Err() },
	"zset": func(ctx context.Context, rdb redis.Cmdable, k string) error {
		return rdb.ZAdd(ctx, k, redis.Z{Score: 1, Member: "a"}).Err()
	},
	"hash": func(ctx context.Context, rdb redis.Cmdable, k string) error {
		return rdb.HSet(ctx, k, "name", "alice", "visits", "3").Err()
	},
}

// kindOps are every operation of every kind on the object called name,
// each returning its error.
func kindOps(c *Client, name string) map[string]func(ctx context.Context) error {
	sem := c.NewSemaphore(name)
	pe := c.NewPermitExpirableSemaphore(name)
	latch := c.NewCountDownLatch(name)
	permit := &Permit{ID: "0123456789abcdef0123456789abcdef", lost: make(chan struct{})}
	ops := map[string]func(ctx context.Context) error{
		"Semaphore.TrySetPermits":    func(ctx context.Context) error { return second(sem.TrySetPermits(ctx, 3)) },
		"Semaphore.AddPermits":       func(ctx context.Context) error { return sem.AddPermits(ctx, 2) },
		"Semaphore.Acquire":          func(ctx context.Context) error { return sem.Acquire(ctx, 1) },
		"Semaphore.TryAcquire(0)":    func(ctx context.Context) error { return second(sem.TryAcquire(ctx, 1, 0)) },
		"Semaphore.TryAcquire(wait)": func(ctx context.Context) error { return second(sem.TryAcquire(ctx, 1, time.Minute)) },
		"Semaphore.Release":          func(ctx context.Context) error { return sem.Release(ctx, 1) },
		"Semaphore.AvailablePermits": func(ctx context.Context) error { return second(sem.AvailablePermits(ctx)) },
		"Semaphore.Drain":            func(ctx context.Context) error { return second(sem.Drain(ctx)) },
		"Semaphore.Inspect":          func(ctx context.Context) error { return second(sem.Inspect(ctx)) },
		"Semaphore.Delete":           func(ctx context.Context) error { return second(sem.Delete(ctx)) },

		"PermitSemaphore.TrySetPermits":    func(ctx context.Context) error { return second(pe.TrySetPermits(ctx, 3)) },
		"PermitSemaphore.AddPermits":       func(ctx context.Context) error { return pe.AddPermits(ctx, 2) },
		"PermitSemaphore.Acquire":          func(ctx context.Context) error { return second(pe.Acquire(ctx, time.Minute)) },
		"PermitSemaphore.TryAcquire(0)":    func(ctx context.Context) error { return second(pe.TryAcquire(ctx, 0, 0)) },
		"PermitSemaphore.TryAcquire(wait)": func(ctx context.Context) error { return second(pe.TryAcquire(ctx, time.Minute, time.Minute)) },
		"PermitSemaphore.Release":          func(ctx context.Context) error { return pe.Release(ctx, permit.ID) },
		"PermitSemaphore.ReleasePermit":    func(ctx context.Context) error { return pe.ReleasePermit(ctx, permit) },
		"PermitSemaphore.UpdateLeaseTime":  func(ctx context.Context) error { return second(pe.UpdateLeaseTime(ctx, permit.ID, time.Minute)) },
		"PermitSemaphore.Extend":           func(ctx context.Context) error { return second(pe.Extend(ctx, permit, time.Minute)) },
		"PermitSemaphore.AvailablePermits": func(ctx context.Context) error { return second(pe.AvailablePermits(ctx)) },
		"PermitSemaphore.Inspect":          func(ctx context.Context) error { return second(pe.Inspect(ctx)) },
		"PermitSemaphore.SetPermits":       func(ctx context.Context) error { return pe.SetPermits(ctx, 3) },
		"PermitSemaphore.Delete":           func(ctx context.Context) error { return second(pe.Delete(ctx)) },

		"CountDownLatch.TrySetCount":  func(ctx context.Context) error { return second(latch.TrySetCount(ctx, 2)) },
		"CountDownLatch.CountDown":    func(ctx context.Context) error { return latch.CountDown(ctx) },
		"CountDownLatch.Count":        func(ctx context.Context) error { return second(latch.Count(ctx)) },
		"CountDownLatch.Await":        func(ctx context.Context) error { return latch.Await(ctx) },
		"CountDownLatch.AwaitTimeout": func(ctx context.Context) error { return second(latch.AwaitTimeout(ctx, time.Minute)) },
		"CountDownLatch.Delete":       func(ctx context.Context) error { return second(latch.Delete(ctx)) },
		"CountDownLatch.Inspect":      func(ctx context.Context) error { return second(latch.Inspect(ctx)) },

		"Client.ForceUnlock": func(ctx context.Context) error { return second(c.ForceUnlock(ctx, name)) },
		"Client.Inspect":     func(ctx context.Context) error { return second(c.Inspect(ctx, name)) },
	}
	type lockOps interface {
		Lock(context.Context) error
		Unlock(context.Context) error
		ForceUnlock(context.Context) (bool, error)
		IsLocked(context.Context) (bool, error)
		TTL(context.Context) (time.Duration, error)
		HoldCount(context.Context) (int, error)
	}
	type isHeld interface {
		IsHeld(context.Context) (bool, error)
	}
	fenced := c.NewFencedMutex(name)
	for kind, l := range map[string]lockOps{
		"Mutex":       c.NewMutex(name),
		"FairMutex":   c.NewFairMutex(name),
		"RWMutex":     c.NewRWMutex(name),
		"FairRWMutex": c.NewFairRWMutex(name),
	} {
		ops[kind+".Lock"] = l.Lock
		ops[kind+".Unlock"] = l.Unlock
		ops[kind+".ForceUnlock"] = func(ctx context.Context) error { return second(l.ForceUnlock(ctx)) }
		ops[kind+".IsLocked"] = func(ctx context.Context) error { return second(l.IsLocked(ctx)) }
		ops[kind+".TTL"] = func(ctx context.Context) error { return second(l.TTL(ctx)) }
		ops[kind+".HoldCount"] = func(ctx context.Context) error { return second(l.HoldCount(ctx)) }
		if h, ok := l.(isHeld); ok {
			ops[kind+".IsHeld"] = func(ctx context.Context) error { return second(h.IsHeld(ctx)) }
		}
		if t, ok := l.(interface {
			TryLock(context.Context, time.Duration, time.Duration) (bool, error)
		}); ok {
			ops[kind+".TryLock(0)"] = func(ctx context.Context) error { return second(t.TryLock(ctx, 0, 0)) }
			ops[kind+".TryLock(wait)"] = func(ctx context.Context) error { return second(t.TryLock(ctx, time.Minute, 0)) }
		}
		if rw, ok := l.(interface {
			RLock(context.Context) error
			RUnlock(context.Context) error
			RHoldCount(context.Context) (int, error)
			Mode(context.Context) (string, error)
		}); ok {
			ops[kind+".RLock"] = rw.RLock
			ops[kind+".RUnlock"] = rw.RUnlock
			ops[kind+".RHoldCount"] = func(ctx context.Context) error { return second(rw.RHoldCount(ctx)) }
			ops[kind+".Mode"] = func(ctx context.Context) error { return second(rw.Mode(ctx)) }
		}
	}
	ops["FencedMutex.Lock"] = func(ctx context.Context) error { return second(fenced.Lock(ctx)) }
	ops["FencedMutex.TryLock(0)"] = func(ctx context.Context) error { _, _, err := fenced.TryLock(ctx, 0, 0); return err }
	ops["FencedMutex.Unlock"] = fenced.Unlock
	ops["FencedMutex.ForceUnlock"] = func(ctx context.Context) error { return second(fenced.ForceUnlock(ctx)) }
	ops["FencedMutex.IsLocked"] = func(ctx context.Context) error { return second(fenced.IsLocked(ctx)) }
	ops["FencedMutex.IsHeld"] = func(ctx context.Context) error { return second(fenced.IsHeld(ctx)) }
	ops["FencedMutex.HoldCount"] = func(ctx context.Context) error { return second(fenced.HoldCount(ctx)) }
	return ops
}

// contents is the type, value and TTL of key, as text.
func contents(ctx context.Context, t *testing.T, rdb redis.Cmdable, key string) string {
	t.Helper()
	typ := rdb.Type(ctx, key).Val()
	var v any
	var err error
	switch typ {
	case "string":
		v, err = rdb.Get(ctx, key).Result()
	case "list":
		v, err = rdb.LRange(ctx, key, 0, -1).Result()
	case "set":
		var m []string
		m, err = rdb.SMembers(ctx, key).Result()
		sort.Strings(m)
		v = m
	case "zset":
		v, err = rdb.ZRangeWithScores(ctx, key, 0, -1).Result()
	case "hash":
		v, err = rdb.HGetAll(ctx, key).Result()
	}
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%s %v ttl %v", typ, v, rdb.PTTL(ctx, key).Val())
}

// heldText is the text of every ErrWrongType of an operation op (a key
// of kindOps) on a key of Redis type typ: what the key holds, in the one
// wording of every kind and method.
func heldText(op, typ string) string {
	want, natural := "lock", "hash"
	switch kind, _, _ := strings.Cut(op, "."); {
	case kind == "Semaphore" || kind == "PermitSemaphore" || kind == "CountDownLatch":
		want, natural = "count", "string"
	case op == "Client.Inspect" && typ == "string":
		want, natural = "count", "string"
	case op == "Client.Inspect" && typ != "hash":
		want = "lock or a count"
	}
	if typ == natural {
		return ErrWrongType.Error() + ": it is a " + typ + " that is not a " + want
	}
	return ErrWrongType.Error() + ": it is a " + typ + ", not a " + want
}

// scriptDetail is what Redis adds to the error of a script's command:
// the script's SHA1 and line, which an ErrWrongType's text leaves out.
var scriptDetail = regexp.MustCompile(`user_script|[0-9a-f]{40}|script:`)

// Every operation of every kind, on a key of another type or a hash that
// is not a lock, fails at once with ErrWrongType, whose text says what the
// key holds in one wording (heldText), free of the script's SHA1 and line,
// and changes neither the key nor its type.
func TestEveryOperationOnAForeignKeyIsErrWrongType(t *testing.T) {
	rdb := newRedis(t)
	c := newClient(t, rdb)
	ctx := ctxT(t)
	for typ, set := range foreignValues {
		t.Run(typ, func(t *testing.T) {
			key := "foreign:" + typ
			if err := set(ctx, rdb, key); err != nil {
				t.Fatal(err)
			}
			before := contents(ctx, t, rdb, key)
			ops := kindOps(c, key)
			names := make([]string, 0, len(ops))
			for op := range ops {
				names = append(names, op)
			}
			sort.Strings(names)
			for _, op := range names {
				octx, cancel := context.WithTimeout(ctx, 5*time.Second)
				err := ops[op](octx)
				waited := octx.Err() != nil
				cancel()
				switch {
				case waited:
					t.Errorf("%s waited until its ctx ended: %v", op, err)
				case !errors.Is(err, ErrWrongType):
					t.Errorf("%s = %v, want ErrWrongType", op, err)
				case scriptDetail.MatchString(err.Error()):
					t.Errorf("%s: the error names the script: %v", op, err)
				case !strings.HasSuffix(err.Error(), heldText(op, typ)):
					t.Errorf("%s = %v, want it to end %q", op, err, heldText(op, typ))
				}
				if after := contents(ctx, t, rdb, key); after != before {
					t.Errorf("%s changed the key: %s, was %s", op, after, before)
					rdb.Del(ctx, key)
					if err := set(ctx, rdb, key); err != nil {
						t.Fatal(err)
					}
				}
			}
			if got := rdb.Type(ctx, key).Val(); got != typ {
				t.Errorf("the key's type is %s now", got)
			}
			t.Logf("e.g. %v", ops["Semaphore.Acquire"](ctx))
		})
	}
}

// The auxiliary keys of the counting objects are checked too: a foreign
// value at a permit-expirable semaphore's lease set, or at a Client's
// request records, fails the operation with ErrWrongType and changes
// nothing.
func TestForeignAuxiliaryKeyIsErrWrongType(t *testing.T) {
	rdb := newRedis(t)
	c := newClient(t, rdb)
	ctx := ctxT(t)
	pe := c.NewPermitExpirableSemaphore("aux")
	if _, err := pe.TrySetPermits(ctx, 2); err != nil {
		t.Fatal(err)
	}
	leases := pe.s.Leases()
	if err := rdb.Set(ctx, leases, "hello", 0).Err(); err != nil {
		t.Fatal(err)
	}
	for op, f := range map[string]func() error{
		"Acquire":          func() error { return second(pe.TryAcquire(ctx, 0, time.Minute)) },
		"AvailablePermits": func() error { return second(pe.AvailablePermits(ctx)) },
		"UpdateLeaseTime":  func() error { return second(pe.UpdateLeaseTime(ctx, "0123456789abcdef0123456789abcdef", time.Minute)) },
		"Release":          func() error { return pe.Release(ctx, "0123456789abcdef0123456789abcdef") },
		"SetPermits":       func() error { return pe.SetPermits(ctx, 5) },
		"Delete":           func() error { return second(pe.Delete(ctx)) },
	} {
		want := ErrWrongType.Error() + ": " + leases + " is a string, not a zset"
		if err := f(); !errors.Is(err, ErrWrongType) || !strings.HasSuffix(err.Error(), want) {
			t.Errorf("%s with a string at %s = %v, want ErrWrongType ending %q", op, leases, err, want)
		}
	}
	if n, _ := rdb.Get(ctx, "aux").Int(); n != 2 || rdb.Get(ctx, leases).Val() != "hello" {
		t.Errorf("count %d, leases %q: changed", n, rdb.Get(ctx, leases).Val())
	}

	sem := c.NewSemaphore("sem")
	if _, err := sem.TrySetPermits(ctx, 2); err != nil {
		t.Fatal(err)
	}
	req, end := sem.request()
	end()
	records := keys.Records("sem", req.Client)
	if err := rdb.Set(ctx, records, "hello", 0).Err(); err != nil {
		t.Fatal(err)
	}
	for op, f := range map[string]func() error{
		"Acquire": func() error { return second(sem.TryAcquire(ctx, 1, 0)) },
		"Release": func() error { return sem.Release(ctx, 1) },
		"Drain":   func() error { return second(sem.Drain(ctx)) },
	} {
		want := ErrWrongType.Error() + ": " + records + " is a string, not a hash"
		if err := f(); !errors.Is(err, ErrWrongType) || !strings.HasSuffix(err.Error(), want) {
			t.Errorf("%s with a string at the request records = %v, want ErrWrongType ending %q", op, err, want)
		}
	}
	if n, _ := rdb.Get(ctx, "sem").Int(); n != 2 || rdb.Get(ctx, records).Val() != "hello" {
		t.Errorf("count %d, records %q: changed", n, rdb.Get(ctx, records).Val())
	}
}
