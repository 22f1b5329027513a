package scripts

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/internal/keys"
)

// Lock is one reentrant lock, Redisson's RLock (or RFencedLock): its keys,
// and the scripts that change it. It holds no state and is safe for
// concurrent use.
type Lock struct {
	lock [1]string // lock hash
	// The other keys are made once, on first use: a handle made to wait,
	// as most of many waiters' are, may never take or release the lock.
	once    sync.Once
	fenced  []string // lock hash, token counter
	release []string // lock hash, unlock channel (the record is added per call)
	// releaseKeys is release as command arguments: a bare release builds
	// its command without copying them.
	releaseKeys []any
}

// NewLock returns the reentrant lock called name.
func NewLock(name string) *Lock { return &Lock{lock: [1]string{name}} }

// withKeys returns l with its fenced and release keys made.
func (l *Lock) withKeys() *Lock {
	l.once.Do(func() {
		name := l.lock[0]
		channel := keys.Channel(name)
		l.fenced = []string{name, keys.Token(name)}
		l.release = []string{name, channel}
		l.releaseKeys = []any{name, channel}
	})
	return l
}

// Acquired is the outcome of one acquisition attempt.
type Acquired struct {
	// OK reports that the owner holds the lock now.
	OK bool
	// TTL is, when it does not, the lock's remaining time to live
	// (negative when Redis reports none).
	TTL time.Duration
	// Token is a fenced acquisition's token.
	Token int64
}

// Acquire takes or re-enters the lock for owner, with the given lease;
// count is owner's hold count before, as it knows it, so that a retried
// request is not counted twice.
func (l *Lock) Acquire(ctx context.Context, rdb redis.Scripter, owner string, lease time.Duration, count int) (Acquired, error) {
	n, err := acquire.Run(ctx, rdb, l.lock[:], Millis(lease), owner, count).Int64()
	switch {
	case err != nil:
		return Acquired{}, err
	case n > 0:
		return Acquired{OK: true}, nil
	}
	return Acquired{TTL: time.Duration(-n-2) * time.Millisecond}, nil
}

// AcquireFenced is Acquire for a fenced lock: each acquisition also takes
// the next token from the lock's counter, which it returns. last is the
// token of owner's latest acquisition (0: none), so that a field of
// owner's that a failover left behind (its release lost) is not taken for
// a retry: the acquisition gets a new token, never last again.
func (l *Lock) AcquireFenced(ctx context.Context, rdb redis.Scripter, owner string, lease time.Duration, count int, last int64) (Acquired, error) {
	vals, err := acquireFenced.Run(ctx, rdb, l.withKeys().fenced, Millis(lease), owner, count, last).Int64Slice()
	a, err := acquired(vals, err)
	if a.OK {
		a.Token = vals[1]
	}
	return a, err
}

// acquired reads an acquire script's reply, {1, n} or {0, ttl}.
func acquired(vals []int64, err error) (Acquired, error) {
	switch {
	case err != nil:
		return Acquired{}, err
	case len(vals) != 2:
		return Acquired{}, fmt.Errorf("unexpected acquire reply %v", vals)
	case vals[0] == 1:
		return Acquired{OK: true}, nil
	}
	return Acquired{TTL: time.Duration(vals[1]) * time.Millisecond}, nil
}

// Unlock is one release request.
type Unlock struct {
	Owner string
	Lease time.Duration // re-armed while acquisitions remain
	// Record is the key that records the outcome of the owner's latest
	// request (keys.Records: Redisson's unlock latch), so that a retry is
	// applied once; it is kept RecordTTL after each request, longer than a
	// retry can come.
	Record    string
	RecordTTL time.Duration
	// Seq numbers the request among its owner's (its record's) release
	// requests; a retry has the same.
	Seq uint64
	// HoldCount is the owner's hold count before the release, as it
	// knows it (0: it knows none): while Redis has that count, no run of
	// the request has applied it.
	HoldCount int
	Publish   string // Publish, or SPublish for sharded pub/sub
	// Next, when set, is the owner the lock passes to if this request
	// releases the last acquisition (Release reports HandedOff then),
	// with the lease NextLease. Only Lock.Release honours it.
	Next      string
	NextLease time.Duration
	// Count asks the script to count the channel's listeners if the
	// release is heard or passes the lock on (Reply.Listeners).
	Count bool
	// Bare, honoured by Lock.Release for the last acquisition (HoldCount
	// 1, no Next), first sends a small script (release_bare.lua) that
	// go-redis is told not to resend (Cmder.NoRetry) and that writes no
	// record, saving a key write and most of the arguments; when it finds
	// other than the one acquisition, the full request follows at once.
	// Only the first send of a request may be bare: a resend of it must
	// not be, and a resend that finds NotHeld may follow a bare send that
	// released the lock.
	Bare bool
}

// Release releases one acquisition of u.Owner. While others remain the
// lease is re-armed; the last release deletes the lock and publishes the
// unlock message on its channel, or, when u.Next is set, passes the lock to that
// owner. The outcome is kept at u.Record, so a retry of this request (same
// record and number) is not applied twice.
//
// Asked to (u.Count), a release heard by a subscriber of the channel, or
// passed on, replies who listened on the channel then (Reply.Listeners).
func (l *Lock) Release(ctx context.Context, rdb Runner, u Unlock) (Reply, error) {
	if u.Bare && u.HoldCount == 1 && u.Next == "" {
		scripts := releaseBare
		if u.Publish == SPublish {
			scripts = releaseBareSPub
		}
		bare := scripts[0]
		if u.Count {
			bare = scripts[1]
		}
		args := make([]any, 0, 6)
		args = append(args, "evalsha", bare.hash, 2)
		args = append(args, l.withKeys().releaseKeys...)
		args = append(args, u.Owner)
		n, ls, err := counted(runOnce(ctx, rdb, bare.src, args))
		if err != nil || n != -1 {
			return reply(n, ls, err)
		}
		// Not the one acquisition it knew of: the full request tells why.
	}
	return reply(counted(release.Run(ctx, rdb, append(l.withKeys().release[:2:2], u.Record), keys.UnlockMessage, Millis(u.Lease), u.Owner, u.Publish, Millis(u.RecordTTL), u.Next, Millis(u.NextLease), u.Seq, u.HoldCount, flag(u.Count))))
}

// Outcome reads a release script's reply: nil, 0, 1, 2 or 3.
func Outcome(n int64, err error) (Release, error) {
	switch {
	case errors.Is(err, redis.Nil):
		return NotHeld, nil
	case err != nil:
		return NotHeld, err
	case n == 0:
		return StillHeld, nil
	case n == 2:
		return HandedOff, nil
	case n == 3:
		return Heard, nil
	}
	return Released, nil
}

// ForceRelease deletes the lock whoever holds it and, if there was one,
// publishes the unlock message with publish. It reports whether a lock
// was deleted.
func (l *Lock) ForceRelease(ctx context.Context, rdb redis.Scripter, publish string) (bool, error) {
	n, err := forceRelease.Run(ctx, rdb, l.withKeys().release, keys.UnlockMessage, publish).Int64()
	return n == 1, err
}

// State is the PTTL in milliseconds of the lock called name, of any kind:
// -2 when no owner holds it, -1 when it never expires. A key there that is
// not a lock in Redisson's layout is a WRONGTYPE error.
func State(ctx context.Context, rdb redis.Scripter, name string) (int64, error) {
	return state.Run(ctx, rdb, []string{name}).Int64()
}
