package fleet

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/rlock"
	"github.com/relock-go/relock/test/proof/history"
	"github.com/relock-go/relock/test/proof/store"
)

// leftoverWait is how long the run waits, after its processes stopped,
// before it lists the leftovers: longer than a lease, a permit's lease and
// a fair wait timeout, so that what a killed process held or waited for
// has expired or can be evicted. (A key with a TTL, an unlock's latch for
// one, expires on its own: listed with its TTL, it is no leftover.)
func (f *fleet) leftoverWait() time.Duration {
	return max(f.cfg.Lease, f.cfg.FairWait, f.cfg.PermitLease) + time.Second
}

// leftovers waits out leftoverWait, looks at every object once more as its
// next user would (a permit-expirable semaphore's count, which gives back
// the permits whose lease ended; a fair lock's TryLock, an election's too,
// which evicts the waiters whose deadline passed), and writes every key
// each lock service still holds to history.LeftoversFile.
func (f *fleet) leftovers(ctx context.Context) error {
	sleep(ctx, f.leftoverWait())
	var out []history.Leftover
	for _, ns := range f.cfg.Namespaces {
		if ns == store.Cluster {
			continue // its keys are spread over three masters: not listed
		}
		rdb, err := f.direct(ctx, ns)
		if err != nil {
			return err
		}
		err = f.lookOnce(ctx, rdb, ns)
		if err == nil {
			out, err = listKeys(ctx, rdb, ns, out)
		}
		_ = rdb.Close()
		if err != nil {
			return err
		}
	}
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(f.cfg.Dir, history.LeftoversFile), append(b, '\n'), 0o644)
}

// direct returns a client of namespace ns's lock service (its master),
// not through any proxy.
func (f *fleet) direct(ctx context.Context, ns string) (*redis.Client, error) {
	if ns == store.Single {
		return redis.NewClient(&redis.Options{Addr: f.svc.single.Addr}), nil
	}
	addr, err := f.svc.sentinels[ns].MasterAddr(ctx)
	if err != nil {
		return nil, err
	}
	return redis.NewClient(&redis.Options{Addr: addr}), nil
}

// lookOnce makes one operation on each permit-expirable semaphore, fair
// lock and election (whose candidates queue at a fair lock) of namespace
// ns, as their next user would.
func (f *fleet) lookOnce(ctx context.Context, rdb *redis.Client, ns string) error {
	c, err := rlock.New(rdb, rlock.WithFairWaitTimeout(f.cfg.FairWait))
	if err != nil {
		return err
	}
	defer c.Close()
	for _, o := range f.names() {
		if o.namespace != ns {
			continue
		}
		switch o.workload {
		case store.PESemaphore:
			if _, err := c.NewPermitExpirableSemaphore(o.object).AvailablePermits(ctx); err != nil {
				return err
			}
		case store.Fair, store.Election:
			m := c.NewFairMutex(o.object) // an election's term is its fair lock
			if err := tryOnce(ctx, m.TryLock, m.Unlock); err != nil {
				return err
			}
		case store.FairRW:
			rw := c.NewFairRWMutex(o.object)
			if err := tryOnce(ctx, rw.TryLock, rw.Unlock); err != nil {
				return err
			}
		}
	}
	return nil
}

// tryOnce takes a lock with tryLock without waiting, and lets it go with
// unlock if it got it.
func tryOnce(ctx context.Context, tryLock func(context.Context, time.Duration, time.Duration) (bool, error), unlock func(context.Context) error) error {
	ok, err := tryLock(ctx, 0, 0)
	if err != nil || !ok {
		return err
	}
	return unlock(ctx)
}

// listKeys appends every key of rdb to out.
func listKeys(ctx context.Context, rdb *redis.Client, ns string, out []history.Leftover) ([]history.Leftover, error) {
	var keys []string
	iter := rdb.Scan(ctx, 0, "*", 1000).Iterator()
	for iter.Next(ctx) {
		keys = append(keys, iter.Val())
	}
	if err := iter.Err(); err != nil {
		return out, err
	}
	slices.Sort(keys)
	for _, k := range keys {
		typ, err := rdb.Type(ctx, k).Result()
		if err != nil {
			return out, err
		}
		if typ == "none" { // expired since the scan
			continue
		}
		ttl, err := rdb.PTTL(ctx, k).Result()
		if err != nil {
			return out, err
		}
		ms := int64(-1)
		if ttl >= 0 {
			ms = ttl.Milliseconds()
		}
		out = append(out, history.Leftover{Service: ns, Key: k, Type: typ, TTLMS: ms, Family: family(k, typ)})
	}
	return out, nil
}

// family names the family of key (of type typ) in relock's Redis layout,
// or "" when it belongs to none.
func family(key, typ string) string {
	prefixes := []struct{ prefix, typ, family string }{
		{"redisson_lock_token:{", "string", "token counter"},
		{"relock_election:{", "hash", "election record"},
		{"relock_election_log:{", "stream", "election log"},
		{"redisson_unlock_latch:{", "", "unlock latch"},
		{"redisson_lock_queue:{", "list", "fair queue"},
		{"redisson_lock_timeout:{", "zset", "fair deadlines"},
		{"relock_lock_waiters:{", "hash", "fair relock waiters"},
		{"relock_rwlock_queue:{", "list", "fair read-write queue"},
		{"relock_rwlock_timeout:{", "zset", "fair read-write deadlines"},
	}
	for _, p := range prefixes {
		if strings.HasPrefix(key, p.prefix) && (p.typ == "" || p.typ == typ) {
			return p.family
		}
	}
	rate := ":" + store.Rate + ":"
	switch {
	case strings.HasPrefix(key, "proof:") && strings.Contains(key, ":"+store.Latch+":") && typ == "string":
		return "latch count"
	case strings.HasPrefix(key, "proof:") && strings.Contains(key, rate) && typ == "hash":
		return "rate limiter"
	case strings.HasPrefix(key, "{proof:") && strings.Contains(key, rate) &&
		(strings.HasSuffix(key, "}:value") && typ == "string" || strings.HasSuffix(key, "}:permits") && typ == "zset" ||
			strings.HasSuffix(key, "}:ledger") && typ == "string"):
		return "rate limiter's permits"
	case strings.HasPrefix(key, "proof:") && typ == "string":
		return "semaphore count"
	case strings.HasPrefix(key, "{proof:") && strings.HasSuffix(key, "}:timeout") && typ == "zset":
		return "leased permits"
	case strings.HasPrefix(key, "{proof:") && strings.Contains(key, ":rwlock_timeout:"):
		return "read hold lease"
	case strings.HasPrefix(key, "proof:") && typ == "hash":
		return "lock"
	}
	return ""
}
