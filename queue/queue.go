package queue

import (
	"context"
	_ "embed"
	"fmt"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/internal/keys"
	"github.com/relock-go/relock/scripts"
)

var (
	//go:embed fair_common.lua
	helpersSrc string
	//go:embed fair_grant.lua
	grantSrc string
	// commonSrc is what every fair script starts with: the helpers, then
	// the grant, which uses them.
	commonSrc = helpersSrc + grantSrc
	//go:embed fair_acquire.lua
	acquireSrc string
	//go:embed fair_leave.lua
	leaveSrc string
	//go:embed fair_release.lua
	releaseSrc string
	//go:embed fair_force_release.lua
	forceReleaseSrc string
	//go:embed fair_renew.lua
	renewSrc string

	// Each script is the lock helpers (scripts.New) and the fair lock's
	// (fair_common.lua, fair_grant.lua) followed by its own text; the text is fixed at
	// build time, never built from input.
	acquire      = scripts.New(commonSrc + acquireSrc)
	leave        = scripts.New(commonSrc + leaveSrc)
	release      = scripts.New(commonSrc + releaseSrc)
	forceRelease = scripts.New(commonSrc + forceReleaseSrc)
	renew        = scripts.New(commonSrc + renewSrc)
)

// NewRenewer returns the watchdog's Renewer of fair locks (each Held names
// the lock and its owner) whose queues have wait as their wait timeout: it
// renews the holds as scripts.HashRenewer does, and keeps the deadline of
// each renewed lock's queue head at least half of wait (or of the lease,
// if longer) away, so that a Redisson head is not purged as stale through
// a long hold (fair_renew.lua). Renewers are compared by identity to
// batch holds: make one per wait timeout.
func NewRenewer(wait time.Duration) scripts.Renewer {
	return scripts.NewRenewer(renew, func(h scripts.Held) []string {
		return []string{h.Key, keys.Queue(h.Key), keys.Timeout(h.Key), keys.FairWaiters(h.Key)}
	}, scripts.Millis(wait))
}

// Queue is the waiting queue of one fair lock. It holds no state of its
// own: everything is in Redis. It is safe for concurrent use.
type Queue struct {
	core // keys: lock, queue, deadlines, unlock channel, relock waiters
}

// core is what the queues of a fair lock and of a fair read-write lock
// share: where the lock lives, its keys, the wait timeout, and how
// wake-ups are published.
type core struct {
	rdb  redis.Scripter
	name string
	keys []string
	wait time.Duration
	pub  func() string // publish command for wake-ups: scripts.Publish or SPublish
}

// New returns the queue of the fair lock called name. wait is the wait
// timeout: the deadline allowance of each place in the queue, as Redisson's
// fairLockWaitTimeout (see the package doc). Wake-ups are published with
// the command pub returns when a script runs: scripts.Publish, or
// scripts.SPublish for sharded pub/sub.
func New(rdb redis.Scripter, name string, wait time.Duration, pub func() string) *Queue {
	ks := []string{name, keys.Queue(name), keys.Timeout(name), keys.Channel(name), keys.FairWaiters(name)}
	return &Queue{newCore(rdb, name, ks, wait, pub)}
}

// newCore is the core of a queue of the lock called name, with its keys.
func newCore(rdb redis.Scripter, name string, ks []string, wait time.Duration, pub func() string) core {
	return core{rdb: rdb, name: name, keys: ks, wait: wait, pub: announcer(rdb, pub)}
}

// announcer is the publish command the queue scripts are given: pub's,
// but Uncounted for classic pub/sub on a Redis Cluster, since PUBLISH
// there counts only the receivers on one node, and a waiter that seems
// unheard may listen on another (fair_common.lua's announce).
func announcer(rdb redis.Scripter, pub func() string) func() string {
	if _, cluster := rdb.(*redis.ClusterClient); !cluster {
		return pub
	}
	return func() string {
		if p := pub(); p != scripts.Publish {
			return p
		}
		return Uncounted(scripts.Publish)
	}
}

// Uncounted is the publish command publish for a queue whose waiters may
// not listen while they wait (they poll, WithSpin): its scripts then never
// take a waiter that nobody heard for dead, and leave dead waiters to
// their deadlines.
func Uncounted(publish string) string { return publish + ":uncounted" }

// Channel is the channel on which owner alone is woken for its turn.
func (q *Queue) Channel(owner string) string { return keys.WaiterChannel(q.name, owner) }

// Heartbeat is the longest a waiter sleeps between attempts: a third of the
// wait timeout, so that the head's deadline never runs out while it lives.
func (q *core) Heartbeat() time.Duration { return max(q.wait/3, time.Millisecond) }

// Attempt is the outcome of one acquisition attempt.
type Attempt struct {
	// Acquired reports that the owner now holds the lock.
	Acquired bool
	// Position is the owner's 0-based place in the queue (0: the head), or
	// -1 when it is not queued.
	Position int
	// TTL is the lock's remaining time to live when another owner holds
	// it: zero when the lock is free, negative when it never expires.
	TTL time.Duration
}

type mode string

const (
	try   mode = "try"
	join  mode = "join"
	stay  mode = "stay"
	claim mode = "claim"
)

// TryAcquire takes or re-enters the lock for owner if it can right now:
// the lock is free and nobody waits, or owner is the head of the queue, or
// owner holds it already (count is its hold count before, as it knows it,
// so that a retried request is not counted twice). It never queues the
// owner. The script runs on rdb: the queue's client, or one connection of
// it when the caller must wait for replicas on that connection.
func (q *Queue) TryAcquire(ctx context.Context, rdb redis.Scripter, owner string, lease time.Duration, count int) (Attempt, error) {
	return q.attempt(ctx, rdb, owner, lease, count, try, "")
}

func (q *Queue) attempt(ctx context.Context, rdb redis.Scripter, owner string, lease time.Duration, count int, m mode, wait string) (Attempt, error) {
	vals, err := acquire.Run(ctx, rdb, q.keys, scripts.Millis(lease), owner, scripts.Millis(q.wait), string(m),
		keys.UnlockMessage, q.pub(), count, wait).Int64Slice()
	if err != nil {
		return Attempt{}, err
	}
	if len(vals) == 1 && vals[0] == 1 {
		return Attempt{Acquired: true, Position: -1}, nil
	}
	if len(vals) != 3 {
		return Attempt{}, fmt.Errorf("unexpected fair acquire reply %v", vals)
	}
	return Attempt{Position: int(vals[2]), TTL: pttl(vals[1])}, nil
}

// pttl is an Attempt's TTL for a PTTL reply: zero when the lock is free
// (-2), negative when it never expires (-1).
func pttl(ms int64) time.Duration {
	switch {
	case ms >= 0:
		return time.Duration(ms) * time.Millisecond
	case ms == -1:
		return -1
	}
	return 0
}

// Release releases one acquisition of u.Owner, re-arming u.Lease while
// others remain; the last release deletes the lock and passes the turn to the
// head of the queue: a relock waiter is granted the lock in the same
// script, a Redisson waiter is woken. When the lock is gone (expired,
// force-unlocked) it reports NotHeld and still passes the turn on. The
// outcome is kept at u.Record, so a retry of this request (same record and
// number) is not applied twice. The reply's Granted and Grant name the
// relock waiter the release granted the lock to, if any (not on a
// retry's reply), and the grant message that wait was told (Place.Grant),
// so that a wait of the same process can be told at once.
func (q *Queue) Release(ctx context.Context, u scripts.Unlock) (scripts.Reply, error) {
	v, err := release.Run(ctx, q.rdb, append(q.keys[:5:5], u.Record), keys.UnlockMessage, scripts.Millis(u.Lease), u.Owner, q.pub(), scripts.Millis(u.RecordTTL), scripts.Millis(q.wait), u.Seq, u.HoldCount).Result()
	var granted, grant string
	if a, ok := v.([]any); ok && len(a) == 3 {
		v = a[0]
		granted, _ = a[1].(string)
		grant, _ = a[2].(string)
	}
	n, ok := v.(int64)
	if err == nil && !ok {
		return scripts.Reply{Outcome: scripts.NotHeld}, fmt.Errorf("unexpected fair release reply %v", v)
	}
	r, err := scripts.Outcome(n, err)
	return scripts.Reply{Outcome: r, Granted: granted, Grant: grant}, err
}

// ForceRelease deletes the lock whoever holds it and passes the turn on;
// it reports whether there was a lock. The queue stays as it is.
func (q *Queue) ForceRelease(ctx context.Context) (bool, error) {
	n, err := forceRelease.Run(ctx, q.rdb, q.keys, keys.UnlockMessage, q.pub(), scripts.Millis(q.wait)).Int64()
	if err != nil {
		return false, err
	}
	return n == 1, nil
}

// Place returns a Place for owner; nothing changes in Redis until its
// first Attempt.
func (q *Queue) Place(owner string) *Place {
	return &Place{q: q, owner: owner, id: strconv.FormatUint(waits.Add(1), 10)}
}

// waits numbers the Waiters of the process: with the owner id, which is
// unique, a Place's number tells its grant messages from those of the
// owner's earlier waits.
var waits atomic.Uint64

// leave takes owner out of the queue (see Place.Leave).
func (q *Queue) leave(ctx context.Context, owner string) error {
	return leave.Run(ctx, q.rdb, q.keys, owner, scripts.Millis(q.wait), keys.UnlockMessage, q.pub()).Err()
}
