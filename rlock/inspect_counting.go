package rlock

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/internal/keys"
	"github.com/relock-go/relock/scripts"
)

// LeasedPermit is one leased permit of a PermitExpirableSemaphore, as
// Inspect reads it from the semaphore's sorted set of leases.
type LeasedPermit struct {
	// ID is the permit's id, as Permit.ID and Redisson give it.
	ID string
	// Expiry is when its lease ends, by the clock of the client that
	// leased or extended it; zero when it never does. A permit whose
	// expiry passed is still leased in Redis until the next operation on
	// the semaphore (any client's) gives it back.
	Expiry time.Time
}

// InspectKind is Inspect of the object called name, which the caller
// knows to be of kind k. It is how a Semaphore and a CountDownLatch are
// told apart, since Redis keeps both as a string of an integer: given
// KindSemaphore or KindCountDownLatch it reports that kind (with its
// count, 0 when the key is absent), except that a semaphore with leased
// permits beside it is reported as KindPermitSemaphore; given
// KindPermitSemaphore, its leases too. A lock's hash (or any other value)
// at name is then an error wrapping ErrWrongType. Given a lock's kind it
// is Inspect, whose keys tell the kind of a lock. Given KindRateLimiter,
// the limiter's rate and its permits available now (a hash that is no
// limiter's config, or any other value, is an error wrapping
// ErrWrongType); Inspect tells a limiter's config by itself. Given
// anything else, it returns an error wrapping ErrInvalidKind. The
// handles' Inspect (Semaphore.Inspect, RateLimiter.Inspect, ...) call it.
func (c *Client) InspectKind(ctx context.Context, name string, k Kind) (LockInfo, error) {
	switch {
	case k == KindCount:
	case k.Counting():
		return c.inspect(ctx, name, k)
	case slices.Contains([]Kind{KindMutex, KindFencedMutex, KindFairMutex, KindRWMutex, KindFairRWMutex, KindElection}, k):
		return c.inspect(ctx, name, "")
	}
	return LockInfo{}, opError("inspect", name, fmt.Errorf("%w: %q", ErrInvalidKind, k))
}

// ErrInvalidKind is the cause of InspectKind given a kind that is not one
// of the Kind constants (KindCount is not one either: it is what Inspect
// reports when it cannot tell).
var ErrInvalidKind = errors.New("invalid kind")

// Inspect reads the semaphore's count, and subscribers (InspectKind).
func (s *Semaphore) Inspect(ctx context.Context) (LockInfo, error) {
	return s.c.InspectKind(ctx, s.name, KindSemaphore)
}

// Inspect reads the semaphore's count, leased permits and subscribers
// (InspectKind).
func (s *PermitExpirableSemaphore) Inspect(ctx context.Context) (LockInfo, error) {
	return s.c.InspectKind(ctx, s.name, KindPermitSemaphore)
}

// Inspect reads the latch's count and subscribers (InspectKind).
func (l *CountDownLatch) Inspect(ctx context.Context) (LockInfo, error) {
	return l.c.InspectKind(ctx, l.name, KindCountDownLatch)
}

// countSight is the reads of a counting object queued in Inspect's first
// pipeline, beside a lock's: they never fail for a lock's keys.
type countSight struct {
	leases *redis.ZSliceCmd // the permit leases, earliest expiry first
}

// lookCount queues in pipe the reads of the counting object name.
func lookCount(ctx context.Context, pipe redis.Pipeliner, name string) countSight {
	return countSight{leases: pipe.ZRangeWithScores(ctx, keys.PermitTimeouts(name), 0, -1)}
}

// inspectCount completes info, the Inspect of the object name whose first
// pipeline s and cs read (its outcome err), as a semaphore's or a latch's:
// asked is the kind the caller said ("" when none). typ is the type of the
// key at name.
func (c *Client) inspectCount(ctx context.Context, info LockInfo, s *sight, cs countSight, asked Kind, err error) (LockInfo, error) {
	name := info.Name
	switch typ := s.typ.Val(); {
	case s.typ.Err() != nil:
		return LockInfo{}, s.typ.Err()
	case typ == "none" && err != nil:
		return LockInfo{}, err
	case typ != "none" && typ != "string":
		return LockInfo{}, wrongKind(typ, "count")
	}
	// A string's reads of a lock's hash failed with WRONGTYPE; the reads
	// of the object's own keys did not.
	if err := cs.leases.Err(); err != nil && !isWrongType(err) {
		return LockInfo{}, err
	}
	count, err := readCount(ctx, c.rdb, "inspect", name)
	if err != nil {
		return LockInfo{}, err
	}
	info.Count = count
	for _, z := range cs.leases.Val() {
		id, _ := z.Member.(string)
		p := LeasedPermit{ID: hex.EncodeToString([]byte(id))}
		if ms := int64(z.Score); ms != scripts.NoExpiry {
			p.Expiry = time.UnixMilli(ms)
		}
		info.Permits = append(info.Permits, p)
	}
	info.Kind = asked
	switch {
	case asked == KindCountDownLatch:
	case len(info.Permits) > 0:
		info.Kind = KindPermitSemaphore
	case asked == "":
		info.Kind = KindCount
	}
	return info, nil
}

// heardKind is the kind of the object name that Inspect found of kind k,
// once it counted the subscribers of its channels (counts, by channel):
// KindCount, a count Redis does not tell apart, is KindSemaphore or
// KindCountDownLatch while waiters listen on that kind's channel and on no
// other's; any other k stays k.
func heardKind(name string, k Kind, counts map[string]int64) Kind {
	if k != KindCount {
		return k
	}
	switch sem, latch := counts[keys.SemaphoreChannel(name)], counts[keys.LatchChannel(name)]; {
	case sem > 0 && latch == 0:
		return KindSemaphore
	case latch > 0 && sem == 0:
		return KindCountDownLatch
	}
	return KindCount
}

// countChannels are the channels of the counting object name of kind k.
func countChannels(name string, k Kind) []string {
	switch k {
	case KindRateLimiter:
		return nil // nothing announces a limiter's permits
	case KindCountDownLatch:
		return []string{keys.LatchChannel(name)}
	case KindCount:
		return []string{keys.SemaphoreChannel(name), keys.LatchChannel(name)}
	}
	return []string{keys.SemaphoreChannel(name)}
}
