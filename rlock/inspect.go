package rlock

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/internal/keys"
	"github.com/relock-go/relock/queue"
)

// LockInfo is what Redis knows of one lock, whichever client (Go or Java)
// took it (Client.Inspect), plus this Client's own view of it.
type LockInfo struct {
	Name string
	// Kind is what the keys in Redis show: KindRWMutex when the hash has a
	// mode field (KindFairRWMutex when a fair read-write queue is beside
	// it), KindElection when a leader election's log is there,
	// KindFairMutex when a fair queue is, KindFencedMutex when a fencing
	// token counter is, else KindMutex. Empty when nothing of a
	// lock of that name is in Redis. A fair lock nobody waits for has no
	// queue, so it shows as KindMutex or KindRWMutex; a fenced lock's
	// counter never expires, so a free fenced lock still shows its kind.
	// A semaphore's or latch's kind is KindPermitSemaphore (leases beside
	// the count), KindSemaphore or KindCountDownLatch (the one InspectKind
	// was told, or whose channel alone has waiters listening), else
	// KindCount; a rate limiter's config (a hash of its fields) is
	// KindRateLimiter.
	Kind Kind
	// Held reports that the lock's hash exists.
	Held bool
	// Mode is ModeRead or ModeWrite for a held read-write lock.
	Mode string
	// TTL is the lock's remaining time to live: 0 when it is not held,
	// NoExpiry when its key has no TTL (as Mutex.TTL reports).
	TTL time.Duration
	// Holders are the hash's owners, by owner id (a writer that also reads
	// is there twice: writing, then reading).
	Holders []Holder
	// Queue is a fair lock's queue, head first.
	Queue []QueueEntry
	// Subscribers is how many subscriptions (one per waiting process and
	// kind of channel) listen on the lock's channels: its release channel
	// and, for a fair lock, its waiters' own channels. On a Redis Cluster
	// with classic pub/sub, it is the sum over every node.
	Subscribers int
	// Token is the last fencing token handed out (0 when none).
	Token int64
	// Leader is a leader election's leader (KindElection), nil when none.
	Leader *Leader
	// Count is a semaphore's available permits, or a latch's count (0
	// when the key is absent); 0 for a lock. A permit-expirable
	// semaphore's count leaves out its leased permits, even expired ones,
	// which come back at the next operation on it. A rate limiter's is
	// its permits available now (this Client's, for a rate PerClient:
	// RateClients has every client's).
	Count int64
	// Rate is a rate limiter's rate; nil for the other kinds, and for a
	// limiter that has none.
	Rate *Rate
	// RateClients are, for a rate PerClient, the clients (relock's and
	// Redisson's) that have taken permits of the limiter and whose keys
	// are still in Redis, by client id, each with its permits available
	// now; nil for the other kinds.
	RateClients []RateClient
	// Permits are a permit-expirable semaphore's leased permits, earliest
	// expiry first.
	Permits []LeasedPermit
	// Local is this Client's holds and waiters of the lock (Activity).
	Local Activity
}

// Holder is one owner in a lock's hash.
type Holder struct {
	// Owner is the owner id, "<client id>:<sequence>" for relock
	// ("<client UUID>:<thread id>" for Redisson); a writer's without the
	// ":write" of its field.
	Owner string
	// Client is the client id part of Owner.
	Client string
	// Label is the label of that Client (WithClientName); nil when it has
	// none, as a Redisson client.
	Label *ClientLabel
	Count int    // hold count
	Mode  string // ModeRead or ModeWrite in a read-write lock
	// TTL is a reader's own remaining lease in a read-write lock (the
	// longest of its read acquisitions', negative when one has no
	// expiry); 0 otherwise.
	TTL time.Duration
}

// QueueEntry is one waiter in a fair lock's queue.
type QueueEntry struct {
	Owner string // owner id
	// Client is the client id part of Owner, and Label that Client's label
	// (nil when it has none).
	Client string
	Label  *ClientLabel
	Mode   string // ModeRead or ModeWrite in a fair read-write lock
	// Deadline is when the waiter is evicted unless it refreshes its place
	// (the queue's ZSET score: Redis server time); zero when it has none.
	Deadline time.Time
	// Relock reports a relock waiter (it may be granted the lock
	// directly); false for a Redisson one. Every waiter of a fair
	// read-write lock is relock's: Redisson has none.
	Relock bool
}

// Inspect reads what Redis holds of the lock called name: its holders,
// TTL, fair queue, subscribers and fencing token, and adds this Client's
// own holds and waiters of it. It changes nothing. It takes two round
// trips (three for a read-write lock with readers, whose leases are read
// once their owners are known): one pipeline of reads in the lock's hash
// slot, then the subscriber count, which on a Redis Cluster with classic
// pub/sub asks every node, concurrently; and one more, when the lock has
// holders or waiters, for their Clients' labels (WithClientName). A key of that
// name that is not a lock (not a hash, or a hash whose fields are not
// owners' hold counts) is an error wrapping ErrWrongType.
//
// A semaphore's or a latch's count (a string of an integer) is reported
// with its Count, and a permit-expirable semaphore's leases as Permits:
// KindPermitSemaphore when leases are beside the count; KindSemaphore or
// KindCountDownLatch while waiters listen on that kind's channel alone;
// else KindCount, since Redis does not tell a Semaphore from a
// CountDownLatch, nor either from any counter (InspectKind does, told by
// the caller). A rate limiter's config is reported with its Rate and
// Count; for a rate per client, RateClients, which Inspect finds by SCAN
// of the keyspace of the server holding the limiter's slot (never KEYS),
// and reads in one round trip per client.
func (c *Client) Inspect(ctx context.Context, name string) (LockInfo, error) {
	return c.inspect(ctx, name, "")
}

// inspect is Inspect, of a semaphore's or latch's kind when asked is one.
func (c *Client) inspect(ctx context.Context, name string, asked Kind) (LockInfo, error) {
	const op = "inspect"
	if err := c.usableName(name); err != nil {
		return LockInfo{}, opError(op, name, err)
	}
	pipe := c.rdb.Pipeline()
	s := look(ctx, pipe, name)
	pttl := pipe.Do(ctx, "pttl", name)
	fairEntries := pipe.LRange(ctx, keys.Queue(name), 0, -1)
	fairDeadlines := pipe.ZRangeWithScores(ctx, keys.Timeout(name), 0, -1)
	fairRelock := pipe.HKeys(ctx, keys.FairWaiters(name))
	rwEntries := pipe.LRange(ctx, keys.RWQueue(name), 0, -1)
	rwDeadlines := pipe.ZRangeWithScores(ctx, keys.RWTimeout(name), 0, -1)
	token := pipe.Get(ctx, keys.Token(name))
	cs := lookCount(ctx, pipe, name)
	read := exec(ctx, pipe)
	if asked.Counting() || s.typ.Val() == "string" || s.rateLimiter() {
		return c.inspectCounting(ctx, LockInfo{Name: name, TTL: millis(pttl)}, s, cs, asked, read)
	}
	kind, hash, err := s.result("lock or a count", read)
	if err != nil {
		return LockInfo{}, opError(op, name, err)
	}

	info := LockInfo{Name: name, Kind: kind, Held: len(hash) > 0, Mode: hash[modeField], TTL: millis(pttl)}
	if info.Token, err = token.Int64(); err != nil && !errors.Is(err, redis.Nil) {
		return LockInfo{}, opError(op, name, fmt.Errorf("reading the fencing token: %w", err))
	}
	info.Holders, info.Leader = holdersOf(hash), s.leader(hash)
	if err := c.readerTTLs(ctx, name, info.Holders); err != nil {
		return LockInfo{}, opError(op, name, err)
	}

	channels := []string{keys.Channel(name)}
	switch kind {
	case KindFairMutex, KindElection:
		channels = append(channels, electionChannels(kind, name)...)
		relock := make(map[string]bool)
		for _, owner := range fairRelock.Val() {
			relock[owner] = true
		}
		info.Queue = queueEntries(fairEntries.Val(), fairDeadlines.Val(), func(e *QueueEntry) {
			e.Relock = relock[e.Owner]
			channels = append(channels, keys.WaiterChannel(name, e.Owner))
		})
	case KindFairRWMutex:
		q := queue.NewRW(c.rdb, name, c.opts.fairWaitTimeout, c.queuePublish)
		channels = []string{keys.RWChannel(name)}
		info.Queue = queueEntries(rwEntries.Val(), rwDeadlines.Val(), func(e *QueueEntry) {
			channels = append(channels, q.Channel(e.Owner))
			e.Relock = true
			e.Mode = ModeRead
			if owner, ok := strings.CutSuffix(e.Owner, writeSuffix); ok {
				e.Owner, e.Mode = owner, ModeWrite
			}
		})
	case KindRWMutex:
		channels = []string{keys.RWChannel(name)}
	case "":
		// Waiters of either kind may be between a release and their retry.
		channels = append(channels, keys.RWChannel(name))
	}
	return c.inspected(ctx, info, channels)
}

// inspected completes info with the subscribers of channels (and a
// count's kind by them: heardKind), its holders' and waiters' labels, and
// this Client's own holds and waiters.
func (c *Client) inspected(ctx context.Context, info LockInfo, channels []string) (LockInfo, error) {
	const op = "inspect"
	counts, err := c.subscribers(ctx, info.Name, channels)
	if err != nil {
		return LockInfo{}, opError(op, info.Name, fmt.Errorf("counting subscribers: %w", err))
	}
	info.Subscribers, info.Kind = sum(counts), heardKind(info.Name, info.Kind, counts)
	if err := c.labelEntries(ctx, &info); err != nil {
		return LockInfo{}, opError(op, info.Name, err)
	}

	local := c.Activity()
	for _, h := range local.Holds {
		if h.Name == info.Name {
			info.Local.Holds = append(info.Local.Holds, h)
		}
	}
	for _, w := range local.Waiters {
		if w.Name == info.Name {
			info.Local.Waiters = append(info.Local.Waiters, w)
		}
	}
	return info, nil
}

// holdersOf lists the owners in a lock's hash, by owner id; in a
// read-write lock, a "<owner id>:write" field is the writer, and the other
// owners are readers.
func holdersOf(hash map[string]string) []Holder {
	_, rw := hash[modeField]
	var hs []Holder
	for field, value := range hash {
		if field == modeField {
			continue
		}
		h := Holder{Owner: field}
		h.Count, _ = strconv.Atoi(value) // isLockHash checked it
		if rw {
			h.Mode = ModeRead
			if owner, ok := strings.CutSuffix(field, writeSuffix); ok {
				h.Owner, h.Mode = owner, ModeWrite
			}
		}
		h.Client = clientOf(h.Owner)
		hs = append(hs, h)
	}
	slices.SortFunc(hs, func(x, y Holder) int {
		// ModeWrite sorts before ModeRead.
		return cmp.Or(cmp.Compare(x.Owner, y.Owner), cmp.Compare(y.Mode, x.Mode))
	})
	return hs
}

// readerTTLs sets the TTL of each reader among the holders of the
// read-write lock name: the longest PTTL of its read acquisitions' lease
// keys, ReadTimeouts(name, owner) + ":" + n for n from 1 to its count,
// read in one pipeline (no round trip when there is no reader).
func (c *Client) readerTTLs(ctx context.Context, name string, hs []Holder) error {
	pttls := make([][]*redis.Cmd, len(hs))
	pipe := c.rdb.Pipeline()
	for i, h := range hs {
		if h.Mode != ModeRead {
			continue
		}
		prefix := keys.ReadTimeouts(name, h.Owner) + ":"
		for n := 1; n <= h.Count; n++ {
			pttls[i] = append(pttls[i], pipe.Do(ctx, "pttl", prefix+strconv.Itoa(n)))
		}
	}
	if pipe.Len() == 0 {
		return nil
	}
	if err := exec(ctx, pipe); err != nil {
		return fmt.Errorf("reading the leases of read holds: %w", err)
	}
	for i, cmds := range pttls {
		for _, cmd := range cmds {
			d := millis(cmd)
			if d < 0 {
				hs[i].TTL = d // no expiry: the longest of all
				break
			}
			hs[i].TTL = max(hs[i].TTL, d)
		}
	}
	return nil
}

// millis is the reply of a PTTL sent in a pipeline whose errors were
// checked, as a duration: 0 for a missing key, NoExpiry for a key without
// expiry.
func millis(pttl *redis.Cmd) time.Duration {
	switch ms, _ := pttl.Int64(); ms {
	case -2:
		return 0
	case -1:
		return NoExpiry
	default:
		return time.Duration(ms) * time.Millisecond
	}
}

// queueEntries is a fair queue's entries, head first, each with its
// deadline from deadlines and then completed by each.
func queueEntries(entries []string, deadlines []redis.Z, each func(*QueueEntry)) []QueueEntry {
	at := make(map[string]time.Time, len(deadlines))
	for _, z := range deadlines {
		if member, ok := z.Member.(string); ok {
			at[member] = time.UnixMilli(int64(z.Score))
		}
	}
	q := make([]QueueEntry, 0, len(entries))
	for _, entry := range entries {
		e := QueueEntry{Owner: entry, Deadline: at[entry]}
		each(&e)
		e.Client = clientOf(e.Owner)
		q = append(q, e)
	}
	return q
}
