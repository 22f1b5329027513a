package scripts

import (
	"context"
	_ "embed"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/internal/keys"
)

var (
	//go:embed leases.lua
	leasesSrc string
	//go:embed pe_acquire.lua
	peAcquireSrc string
	//go:embed pe_release.lua
	peReleaseSrc string
	//go:embed pe_available.lua
	peAvailableSrc string
	//go:embed pe_update.lua
	peUpdateSrc string
	//go:embed pe_set.lua
	peSetSrc string

	peAcquire   = newLeases(peAcquireSrc)
	peRelease   = newLeases(listenersSrc + peReleaseSrc)
	peAvailable = newLeases(peAvailableSrc)
	peUpdate    = newLeases(peUpdateSrc)
	peSet       = newCounting(peSetSrc)
)

// newLeases returns the script src preceded by counting.lua's and
// leases.lua's helpers (expired permits coming back).
func newLeases(src string) *redis.Script { return redis.NewScript(countingSrc + leasesSrc + src) }

// NoExpiry is the expiry Redisson gives a permit that never expires
// (RedissonPermitExpirableSemaphore.nonExpirableTimeout), epoch ms.
const NoExpiry int64 = 922337203685477

// PermitSemaphore is one permit-expirable semaphore, Redisson's
// RPermitExpirableSemaphore: the Semaphore's count and channel, and the
// sorted set {NAME}:timeout of leased permits (id → expiry, epoch ms).
// Expired permits come back to the count whenever one of its scripts
// runs, as in Redisson; nothing runs on its own. Times are epoch
// milliseconds of the caller's clock, as Redisson's are.
type PermitSemaphore struct {
	*Semaphore
	leases string
}

// NewPermitSemaphore returns the permit-expirable semaphore called name.
func NewPermitSemaphore(name string) *PermitSemaphore {
	return &PermitSemaphore{Semaphore: NewSemaphore(name), leases: keys.PermitTimeouts(name)}
}

// Leases is the sorted set of the leased permits.
func (p *PermitSemaphore) Leases() string { return p.leases }

// Acquire leases one permit per id, expiring at expiry (NoExpiry: never),
// if that many are available. A resent request (same ids) finds its ids
// leased and succeeds again. When it fails, next is the earliest expiry
// of a leased permit, when one may come back (zero when none will).
func (p *PermitSemaphore) Acquire(ctx context.Context, rdb redis.Scripter, ids [][]byte, expiry time.Time, never bool, publish string) (ok bool, next time.Time, err error) {
	exp := NoExpiry
	if !never {
		exp = expiry.UnixMilli()
	}
	args := []any{len(ids), exp, time.Now().UnixMilli(), NoExpiry, publish}
	for _, id := range ids {
		args = append(args, id)
	}
	v, err := peAcquire.Run(ctx, rdb, []string{p.name, p.leases, p.channel}, args...).Int64Slice()
	if err != nil || len(v) != 2 {
		return false, time.Time{}, err
	}
	if v[0] == 1 {
		return true, time.Time{}, nil
	}
	if v[1] > 0 {
		next = time.UnixMilli(v[1])
	}
	return false, next, nil
}

// Release releases the permits ids if every one is leased and unexpired,
// announcing how many with publish, and returns how many it released (0:
// none), as request r (see Request), and, if count and a subscriber heard
// the announcement, who listened on the channel.
func (p *PermitSemaphore) Release(ctx context.Context, rdb redis.Scripter, ids [][]byte, publish string, r Request, count bool) (int64, Listeners, error) {
	args := append(append([]any{time.Now().UnixMilli(), publish}, r.args()...), flag(count))
	for _, id := range ids {
		args = append(args, id)
	}
	return counted(peRelease.Run(ctx, rdb, []string{p.name, p.channel, p.leases, r.records(p.name)}, args...))
}

// Available returns the available permits, once expired ones came back.
func (p *PermitSemaphore) Available(ctx context.Context, rdb redis.Scripter, publish string) (int64, error) {
	return peAvailable.Run(ctx, rdb, []string{p.name, p.leases, p.channel}, time.Now().UnixMilli(), publish).Int64()
}

// Update gives the leased permit id the expiry expiry (never: none), and
// reports whether it was leased.
func (p *PermitSemaphore) Update(ctx context.Context, rdb redis.Scripter, id []byte, expiry time.Time, never bool, publish string) (bool, error) {
	exp := NoExpiry
	if !never {
		exp = expiry.UnixMilli()
	}
	v, err := peUpdate.Run(ctx, rdb, []string{p.name, p.leases, p.channel}, id, exp, time.Now().UnixMilli(), publish).Int64()
	return v == 1, err
}

// Set gives the semaphore n permits in all, the leased ones included,
// announcing n with publish unless it had n already, and reports whether
// the count changed.
func (p *PermitSemaphore) Set(ctx context.Context, rdb redis.Scripter, n int, publish string) (bool, error) {
	v, err := peSet.Run(ctx, rdb, []string{p.name, p.channel, p.leases}, n, publish).Int64()
	return v == 1, err
}

// Delete deletes the semaphore's count and leased permits, and reports
// whether it had either.
func (p *PermitSemaphore) Delete(ctx context.Context, rdb redis.Scripter) (bool, error) {
	v, err := semDelete.Run(ctx, rdb, []string{p.name, p.leases}).Int64()
	return v == 1, err
}
