package scripts

import (
	_ "embed"

	"context"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/internal/keys"
)

var (
	//go:embed counting.lua
	countingSrc string
	//go:embed sem_acquire.lua
	semAcquireSrc string
	//go:embed sem_release.lua
	semReleaseSrc string
	//go:embed sem_set.lua
	semSetSrc string
	//go:embed sem_drain.lua
	semDrainSrc string

	semAcquire = newCounting(semAcquireSrc)
	semRelease = newCounting(semReleaseSrc)
	semSet     = redis.NewScript(semSetSrc)
	semDrain   = newCounting(semDrainSrc)
)

// newCounting returns the script src preceded by counting.lua's helpers
// (a request's latch).
func newCounting(src string) *redis.Script { return redis.NewScript(countingSrc + src) }

// Semaphore is one counting semaphore, Redisson's RSemaphore: a string key
// NAME holding the available permits, and the channel redisson_sc:{NAME}
// that announces releases. The same count serves a permit-expirable
// semaphore (PermitSemaphore). It holds no state and is safe for
// concurrent use.
type Semaphore struct {
	name, channel string
}

// NewSemaphore returns the semaphore called name.
func NewSemaphore(name string) *Semaphore {
	return &Semaphore{name: name, channel: keys.SemaphoreChannel(name)}
}

// Channel is where the semaphore's releases are announced.
func (s *Semaphore) Channel() string { return s.channel }

// latch is the key of request's latch.
func (s *Semaphore) latch(request string) string { return keys.UnlockLatch(s.name, request) }

// Acquire takes n permits if available, as request (an id never used
// before, reused only to resend the same request); latchTTL is how long
// its outcome is kept for a resend. It returns the permits left, or -1
// when there were fewer than n (nothing changed).
func (s *Semaphore) Acquire(ctx context.Context, rdb redis.Scripter, n int, request string, latchTTL time.Duration) (int64, error) {
	return semAcquire.Run(ctx, rdb, []string{s.name, s.latch(request)}, n, Millis(latchTTL)).Int64()
}

// Release adds n permits (n may be negative: fewer permits) and announces
// the new count with publish, as request (see Acquire). It returns the
// count after the request, the one the request made even when resent.
func (s *Semaphore) Release(ctx context.Context, rdb redis.Scripter, n int, publish, request string, latchTTL time.Duration) (int64, error) {
	return semRelease.Run(ctx, rdb, []string{s.name, s.channel, s.latch(request)}, n, publish, Millis(latchTTL)).Int64()
}

// TrySet sets the permits to n if the semaphore has no count yet, and
// reports whether it did.
func (s *Semaphore) TrySet(ctx context.Context, rdb redis.Scripter, n int, publish string) (bool, error) {
	v, err := semSet.Run(ctx, rdb, []string{s.name, s.channel}, n, publish).Int64()
	return v == 1, err
}

// Drain takes every available permit, as request (see Acquire), and
// returns how many it took.
func (s *Semaphore) Drain(ctx context.Context, rdb redis.Scripter, request string, latchTTL time.Duration) (int64, error) {
	return semDrain.Run(ctx, rdb, []string{s.name, s.latch(request)}, Millis(latchTTL)).Int64()
}
