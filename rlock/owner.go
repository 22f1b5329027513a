package rlock

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/internal/keys"
	"github.com/relock-go/relock/scripts"
)

// owner is one owner of a lock, as every kind of lock handle (Mutex,
// FairMutex, FencedMutex) keeps it: its identity and its local view of its
// hold. The handles embed it, so its exported methods are theirs.
type owner struct {
	c       *Client
	name    string
	id      string // "<client id>:<seq>": the lock hash's field
	channel string // the lock's unlock channel
	nameErr error  // why name cannot be used with this Client, if it cannot

	// mu serialises this owner's commands that change the lock, so that the
	// local view (hold, count) follows Redis in the same order.
	mu       sync.Mutex
	hold     *hold  // current hold; nil when not held
	count    int    // acquisitions not yet released, as seen by this owner
	releases uint64 // release requests made, numbering their latches
	// releaseScript releases one hold, in the handle's kind of lock.
	releaseScript releaseFunc
	// retryLatch is the latch of an Unlock that failed without an answer,
	// reused by the next Unlock, which retries it, unless an acquisition
	// came between.
	retryLatch string
}

// init sets the owner up for a new handle whose release script is release
// (nil: the reentrant lock's, owner.release).
func (o *owner) init(c *Client, name string, release releaseFunc) {
	o.c, o.name, o.id, o.channel = c, name, c.ids.Next(), keys.Channel(name)
	if _, cluster := c.rdb.(*redis.ClusterClient); cluster && keys.Slot(o.channel) != keys.Slot(name) {
		// Redisson's naming rule gives such a name's auxiliary keys another
		// slot, and a script cannot touch keys of two slots.
		o.nameErr = fmt.Errorf("%w: it has braces but no hash tag, so on Redis Cluster its channel and keys would land in another slot than the lock", ErrInvalidName)
	}
	o.releaseScript = release
	if release == nil {
		o.releaseScript = o.release
	}
}

// Name is the lock's name, which is also its Redis key.
func (o *owner) Name() string { return o.name }

// Owner is this owner's id, "<client id>:<sequence>": the lock hash's field.
func (o *owner) Owner() string { return o.id }

// usable returns the cause every operation reports for an owner that
// cannot be used: a bad name or a closed Client.
func (o *owner) usable() error {
	switch {
	case o.name == "":
		return fmt.Errorf("%w: the name is empty", ErrInvalidName)
	case o.nameErr != nil:
		return o.nameErr
	case o.c.closed():
		return ErrClosed
	}
	return nil
}

// HoldCount is how many times this owner holds the lock: 0 when it does not.
func (o *owner) HoldCount(ctx context.Context) (int, error) {
	if err := o.usable(); err != nil {
		return 0, opError("hold count", o.name, err)
	}
	n, err := o.c.rdb.HGet(ctx, o.name, o.id).Int()
	if errors.Is(err, redis.Nil) {
		return 0, nil
	}
	return n, opError("hold count", o.name, err)
}

// IsLocked reports whether any owner holds the lock.
func (o *owner) IsLocked(ctx context.Context) (bool, error) {
	if err := o.usable(); err != nil {
		return false, opError("is locked", o.name, err)
	}
	n, err := o.c.rdb.Exists(ctx, o.name).Result()
	return n == 1, opError("is locked", o.name, err)
}

// IsHeld reports whether this owner holds the lock.
func (o *owner) IsHeld(ctx context.Context) (bool, error) {
	if err := o.usable(); err != nil {
		return false, opError("is held", o.name, err)
	}
	ok, err := o.c.rdb.HExists(ctx, o.name, o.id).Result()
	return ok, opError("is held", o.name, err)
}

// TTL is the lock's remaining time to live, whoever holds it; 0 when the
// lock is not held.
func (o *owner) TTL(ctx context.Context) (time.Duration, error) {
	if err := o.usable(); err != nil {
		return 0, opError("ttl", o.name, err)
	}
	ms, err := o.c.rdb.Do(ctx, "pttl", o.name).Int64()
	if err != nil || ms < 0 {
		return 0, opError("ttl", o.name, err)
	}
	return time.Duration(ms) * time.Millisecond, nil
}

// holding reports whether this owner believes it holds the lock: then an
// acquisition re-enters it and must not wait behind anyone.
func (o *owner) holding() bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.hold != nil && !o.c.wd.isLost(o.hold)
}

// tryFunc runs one acquire script on rdb with lease, for an owner that has
// holds holds already; it reports whether the lock is now held and, when
// not, the lock's TTL.
type tryFunc func(ctx context.Context, rdb redis.Scripter, lease time.Duration, holds int) (bool, time.Duration, error)

// attemptWith runs one acquisition attempt, try, with the lease the hold
// needs, and records a success in the hold. The call is not cut short by
// ctx: its outcome must be known, or a lock could be taken that nobody
// holds.
func (o *owner) attemptWith(ctx context.Context, lease time.Duration, try tryFunc) (bool, time.Duration, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.c.closed() {
		return false, 0, ErrClosed
	}
	wd := o.c.wd
	if o.hold != nil && wd.isLost(o.hold) {
		o.hold, o.count = nil, 0
	}
	// A reentrant acquisition keeps the lease mode of the hold.
	renew := lease == 0
	if o.hold != nil {
		lease, renew = o.hold.lease, o.hold.renew
	} else if renew {
		lease = o.c.opts.watchdogTimeout
	}
	ctx = context.WithoutCancel(ctx)
	sent := time.Now()
	var ok bool
	var ttl time.Duration
	var err error
	if o.c.opts.replicas > 0 {
		ok, ttl, err = o.tryReplicated(ctx, lease, try)
	} else {
		ok, ttl, err = try(ctx, o.c.rdb, lease, o.count)
	}
	if !ok || err != nil {
		return false, ttl, err
	}
	if o.hold != nil {
		wd.extend(o.hold, sent)
		wd.renewing(o.hold, true)
	} else {
		o.hold = wd.add(o.name, o.id, lease, renew, sent)
	}
	o.count++
	// An Unlock that failed before is not retried by the next one: the
	// owner locked again instead.
	o.retryLatch = ""
	return true, 0, nil
}

// tryReplicated runs try on the lock's master, each script call followed
// on its connection by a WAIT for WithReplicaAck's replicas. Without enough
// acknowledgements of a successful acquisition it releases what it took
// and reports ErrNotReplicated: a failover could lose such an acquisition.
func (o *owner) tryReplicated(ctx context.Context, lease time.Duration, try tryFunc) (bool, time.Duration, error) {
	master, err := o.c.master(ctx, o.name)
	if err != nil {
		return false, 0, err
	}
	want, timeout := o.c.opts.replicas, o.c.opts.replicaTimeout
	r := &replicated{Scripter: master, master: master, replicas: want, timeout: timeout}
	ok, ttl, err := try(ctx, r, lease, o.count)
	if !ok || err != nil {
		return ok, ttl, err
	}
	if r.waitErr == nil && r.acked >= int64(want) {
		return true, 0, nil
	}
	// Undo this acquisition, once, as an Unlock would.
	if _, uerr := o.releaseScript(ctx, lease, o.nextLatch()); uerr != nil {
		return false, 0, errors.Join(ErrNotReplicated, fmt.Errorf("undoing the acquisition: %w", uerr))
	}
	if r.waitErr != nil {
		return false, 0, fmt.Errorf("WAIT: %w", r.waitErr)
	}
	return false, 0, fmt.Errorf("%d of %d replicas acknowledged within %v: %w", r.acked, want, timeout, ErrNotReplicated)
}

// replicated is a redis.Scripter that sends each script call in one
// pipeline with a WAIT after it, so that both use one connection and WAIT
// counts the replicas that acknowledged that call's writes.
type replicated struct {
	redis.Scripter // the master's client, for SCRIPT LOAD and EXISTS
	master         *redis.Client
	replicas       int
	timeout        time.Duration
	acked          int64 // from the last call's WAIT
	waitErr        error
}

func (r *replicated) EvalSha(ctx context.Context, sha string, keys []string, args ...any) *redis.Cmd {
	return r.withWait(ctx, func(p redis.Pipeliner) *redis.Cmd { return p.EvalSha(ctx, sha, keys, args...) })
}

func (r *replicated) Eval(ctx context.Context, script string, keys []string, args ...any) *redis.Cmd {
	return r.withWait(ctx, func(p redis.Pipeliner) *redis.Cmd { return p.Eval(ctx, script, keys, args...) })
}

func (r *replicated) withWait(ctx context.Context, call func(redis.Pipeliner) *redis.Cmd) *redis.Cmd {
	pipe := r.master.Pipeline()
	cmd := call(pipe)
	wait := pipe.Do(ctx, "wait", r.replicas, r.timeout.Milliseconds())
	_, _ = pipe.Exec(ctx)
	r.acked, r.waitErr = wait.Int64()
	return cmd
}

// acquireWith tries with try, then waits on the lock's channel and retries
// until held, the wait (forever when negative) elapses, or ctx ends.
// Waiters subscribe before they retry, so a release between an attempt and
// the subscription is never missed. When waiters of this Client already
// sleep on the lock, a newcomer does not race them: it takes its turn
// behind them, so that within a Client the lock goes in arrival order and
// an owner that just unlocked does not take it straight back.
func (o *owner) acquireWith(ctx context.Context, wait, lease time.Duration, try tryFunc) (bool, error) {
	deadline, err := o.begin(ctx, wait)
	if err != nil {
		return false, err
	}
	var w waiter
	var sleep time.Duration // before the next attempt
	if wait != 0 && !o.holding() {
		w, sleep = o.c.waitBehind(o.channel)
	}
	if w == nil {
		ok, ttl, err := o.attemptWith(ctx, lease, try)
		if ok || err != nil || wait == 0 {
			return ok, err
		}
		if w, err = o.c.newWaiter(ctx, deadline, o.channel); err != nil || w == nil {
			return false, err
		}
		// A subscriber retries at once: the lock may have been released
		// before the subscription. A spinner has nothing to catch up on.
		if o.c.opts.spin != nil {
			sleep = o.sleepFor(ttl)
		}
	}
	defer func() {
		if w != nil {
			w.close()
		}
	}()
	for {
		if !deadline.IsZero() {
			left := time.Until(deadline)
			if left <= 0 {
				return false, nil
			}
			sleep = min(sleep, left)
		}
		if sleep > 0 {
			err := w.wait(ctx, sleep)
			if errors.Is(err, errMoved) {
				w, err = o.c.rewait(ctx, w, deadline, o.channel)
				if w == nil {
					return false, err
				}
			}
			if err != nil {
				return false, err
			}
			if err := ctx.Err(); err != nil {
				return false, err
			}
		}
		ok, ttl, err := o.attemptWith(ctx, lease, try)
		if ok {
			w.won()
		}
		if ok || err != nil {
			return ok, err
		}
		sleep = o.sleepFor(ttl)
	}
}

// begin checks that an acquisition may start and returns the deadline of
// its wait (zero when it has none).
func (o *owner) begin(ctx context.Context, wait time.Duration) (time.Time, error) {
	if err := o.usable(); err != nil {
		return time.Time{}, err
	}
	if err := ctx.Err(); err != nil {
		return time.Time{}, err
	}
	if _, err := o.c.pubsub(ctx); err != nil {
		return time.Time{}, err
	}
	if wait > 0 {
		return time.Now().Add(wait), nil
	}
	return time.Time{}, nil
}

// sleepFor is how long a waiter may sleep, unless woken, after an attempt
// that found the lock with time to live ttl.
func (o *owner) sleepFor(ttl time.Duration) time.Duration {
	switch {
	case ttl > 0:
		return ttl
	case ttl == 0:
		return time.Millisecond // expiring within the millisecond
	default:
		// No TTL on the key: not one of ours; check again after a lease.
		return o.c.opts.watchdogTimeout
	}
}

// releaseFunc runs one release script with the hold's lease; latch is the
// key that makes a retry of this release request harmless.
type releaseFunc func(ctx context.Context, lease time.Duration, latch string) (scripts.Release, error)

// nextLatch is the unlock latch key of a new release request. Called with
// mu held.
func (o *owner) nextLatch() string {
	o.releases++
	return keys.UnlockLatch(o.name, o.id+":"+strconv.FormatUint(o.releases, 10))
}

// unlockLatch is the latch of an Unlock request: the one of the previous
// Unlock if that failed without an answer (the caller is retrying it, and
// it may have been applied), else a new one. Called with mu held.
func (o *owner) unlockLatch() string {
	if o.retryLatch == "" {
		o.retryLatch = o.nextLatch()
	}
	return o.retryLatch
}

// unlock releases one acquisition and updates the hold by the outcome. The
// request is made even when ctx has ended (see Client.persist). When the
// last acquisition's release cannot be confirmed, the watchdog stops
// renewing the hold, so the lock expires within its lease (and Lost
// closes then) unless a retried Unlock releases it first.
func (o *owner) unlock(ctx context.Context) error {
	if err := o.usable(); err != nil {
		return opError("unlock", o.name, err)
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	wd := o.c.wd
	lease := o.c.opts.watchdogTimeout
	h := o.hold
	if h != nil {
		lease = h.lease
		wd.releasing(h, true)
		defer wd.releasing(h, false)
	}
	sent := time.Now()
	latch := o.unlockLatch()
	res, err := persist(o.c, ctx, func(ctx context.Context) (scripts.Release, error) {
		return o.releaseScript(ctx, lease, latch)
	})
	if err != nil {
		// Outcome unknown: a retry of this Unlock is the same request.
		if h != nil && o.count <= 1 {
			wd.renewing(h, false)
		}
		return opError("unlock", o.name, err)
	}
	o.retryLatch = ""
	switch res {
	case scripts.StillHeld:
		o.count--
		if h != nil {
			wd.extend(h, sent)
		}
		return nil
	case scripts.Released:
		if h != nil {
			wd.release(h)
		}
		o.hold, o.count = nil, 0
		return nil
	}
	if h != nil {
		// Held as far as this owner knew: the lock was lost meanwhile.
		wd.releasing(h, false)
		wd.lose(h)
	}
	o.hold, o.count = nil, 0
	return opError("unlock", o.name, ErrNotHeld)
}

// release runs the release script of a reentrant lock for one Unlock
// request (not for fair locks, whose queue has its own).
func (o *owner) release(ctx context.Context, lease time.Duration, latch string) (scripts.Release, error) {
	w, err := o.c.pubsub(ctx)
	if err != nil {
		return scripts.NotHeld, err
	}
	return scripts.ReleaseHold(ctx, o.c.rdb, o.name, o.channel, latch, keys.UnlockMessage, o.id, lease, o.c.latchTTL, w.publish)
}

// forceRelease deletes a reentrant lock whoever holds it and wakes a waiter.
func (o *owner) forceRelease(ctx context.Context) (bool, error) {
	if err := o.usable(); err != nil {
		return false, opError("force unlock", o.name, err)
	}
	w, err := o.c.pubsub(ctx)
	if err != nil {
		return false, opError("force unlock", o.name, err)
	}
	ok, err := scripts.ForceRelease(ctx, o.c.rdb, o.name, o.channel, keys.UnlockMessage, w.publish)
	return ok, opError("force unlock", o.name, err)
}
