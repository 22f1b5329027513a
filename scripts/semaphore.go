package scripts

import (
	"context"
	_ "embed"

	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/internal/keys"
)

var (
	//go:embed sem_acquire.lua
	semAcquireSrc string
	//go:embed sem_release.lua
	semReleaseSrc string
	//go:embed sem_set.lua
	semSetSrc string
	//go:embed sem_drain.lua
	semDrainSrc string
	//go:embed sem_delete.lua
	semDeleteSrc string

	semAcquire = newCounting(semAcquireSrc)
	semRelease = newCounting(listenersSrc + semReleaseSrc)
	semSet     = newCounting(semSetSrc)
	semDrain   = newCounting(semDrainSrc)
	semDelete  = newCounting(semDeleteSrc)
)

// Semaphore is one counting semaphore, Redisson's RSemaphore: a string key
// NAME holding the available permits, and the channel redisson_sc:{NAME}
// that announces releases. The same count serves a permit-expirable
// semaphore (PermitSemaphore). It holds no state and is safe for
// concurrent use.
type Semaphore struct{ count }

// NewSemaphore returns the semaphore called name.
func NewSemaphore(name string) *Semaphore {
	return &Semaphore{count{name: name, channel: keys.SemaphoreChannel(name)}}
}

// Acquire takes n permits if available, as request r (see Request). It
// returns the permits left, or -1 when there were fewer than n (nothing
// changed).
func (s *Semaphore) Acquire(ctx context.Context, rdb redis.Scripter, n int, r Request) (int64, error) {
	return semAcquire.Run(ctx, rdb, []string{s.name, r.records(s.name)}, append([]any{n}, r.args()...)...).Int64()
}

// Release adds n permits (n may be negative: fewer permits) and announces
// the new count with publish, as request r. It returns the count after
// the request, the one the request made even when resent, and, if count
// and a subscriber heard the announcement, who listened on the channel.
func (s *Semaphore) Release(ctx context.Context, rdb redis.Scripter, n int, publish string, r Request, count bool) (int64, Listeners, error) {
	return counted(semRelease.Run(ctx, rdb, []string{s.name, s.channel, r.records(s.name)}, append(append([]any{n, publish}, r.args()...), flag(count))...))
}

// TrySet sets the permits to n if the semaphore has no count yet, and
// reports whether it did.
func (s *Semaphore) TrySet(ctx context.Context, rdb redis.Scripter, n int, publish string) (bool, error) {
	return s.done(ctx, rdb, semSet, n, publish)
}

// Drain takes every available permit, as request r, and returns how many
// it took.
func (s *Semaphore) Drain(ctx context.Context, rdb redis.Scripter, r Request) (int64, error) {
	return semDrain.Run(ctx, rdb, []string{s.name, r.records(s.name)}, r.args()...).Int64()
}

// Delete deletes the semaphore's count, and reports whether it had one.
func (s *Semaphore) Delete(ctx context.Context, rdb redis.Scripter) (bool, error) {
	v, err := semDelete.Run(ctx, rdb, []string{s.name}).Int64()
	return v == 1, err
}
