package rlock

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/internal/ownerid"
)

// Client creates locks on one Redis deployment and owns what they share:
// the client id in their owner ids, the pub/sub subscriptions their waiters
// sleep on, and the watchdog that renews their leases. Create one per
// process (per Redis deployment) and Close it when done. A Client is safe
// for concurrent use.
type Client struct {
	rdb  redis.UniversalClient
	opts options
	obs  Observer // the options' observers; nil when none
	ids  *ownerid.Source
	wd   *watchdog
	// label keeps the Client's label in Redis; nil without WithClientName.
	label *labeller
	// waiters lists the acquisitions that wait now (Activity).
	waiters waitList
	// asides are the step-asides after this Client's releases.
	asides stepAsides
	// states are the kinds' states in this Client (see kindState).
	states []any
	// recordTTL is how long a request's outcome is kept for retries of it
	// (its record): longer than rdb can take to give up on a command.
	recordTTL time.Duration
	// resends: rdb resends a command after a network error or a timeout
	// (MaxRetries above 0), so a bare release that fails is sent again,
	// recorded (see owner.unlock).
	resends bool
	// sender sends the acquisition attempts and the releases, batching
	// them when many are in flight.
	sender *sender

	// wire is how releases are announced and heard, once decided: at New,
	// or on a Redis Cluster whose pub/sub kind New was not told, by the
	// first operation that needs it, under that operation's ctx.
	wire   atomic.Pointer[wire]
	wireMu sync.Mutex // serialises deciding wire, Close, and starting background work

	ctx    context.Context // cancelled by Close
	cancel context.CancelFunc
	// background counts the goroutines of goBackground: claims of fair
	// grants, observers of elections, records of terms' ends. Close waits
	// for them.
	background sync.WaitGroup
	once       sync.Once
}

// New returns a Client that keeps its locks in rdb, which may be a single
// node, Sentinel or Cluster client. rdb stays the caller's: Close does not
// close it.
//
// New sends nothing to Redis. On a *redis.ClusterClient without
// WithShardedPubSub(false), whether the servers have sharded pub/sub is
// asked once, by the first operation that publishes or waits, under that
// operation's ctx; if the cluster cannot be reached, that operation fails
// and the next one asks again. With WithShardedPubSub(true), servers
// without it (before Redis 7.0) fail every such operation with an error
// wrapping errors.ErrUnsupported.
func New(rdb redis.UniversalClient, opts ...Option) (*Client, error) {
	if rdb == nil {
		return nil, opError("new client", "", errors.New("nil redis client"))
	}
	o := defaultOptions()
	for _, opt := range opts {
		if opt == nil {
			return nil, opError("new client", "", errors.New("nil Option"))
		}
		if err := opt(&o); err != nil {
			return nil, opError("new client", "", err)
		}
	}
	if o.replicas > 0 {
		switch rdb.(type) {
		case *redis.Client, *redis.ClusterClient:
		default:
			return nil, opError("new client", "", fmt.Errorf("WithReplicaAck needs a *redis.Client or *redis.ClusterClient, not %T", rdb))
		}
	}
	_, cluster := rdb.(*redis.ClusterClient)
	if o.sharded != nil && *o.sharded && !cluster {
		return nil, opError("new client", "", fmt.Errorf("sharded pub/sub needs a *redis.ClusterClient, not %T", rdb))
	}
	ctx, cancel := context.WithCancel(context.Background())
	c := &Client{rdb: rdb, opts: o, obs: o.observer(), ids: ownerid.NewSource(), recordTTL: retryWindow(rdb), resends: resends(rdb), sender: newSender(rdb), ctx: ctx, cancel: cancel}
	if !cluster || (o.sharded != nil && !*o.sharded) {
		c.setWire(false)
	}
	var periodic func(context.Context)
	if c.label = newLabeller(rdb, c.ids.Client(), o.clientName, o.watchdogTimeout); c.label != nil {
		periodic = c.label.refresh
	}
	c.wd = newWatchdog(ctx, rdb, o.watchdogTimeout, c.obs, periodic)
	c.makeStates()
	return c, nil
}

// ID is the random client id that prefixes the owner id of every lock
// owner of this Client (Mutex, FairMutex, ...).
func (c *Client) ID() string { return c.ids.Client() }

// Name is the name WithClientName gave the Client, or "".
func (c *Client) Name() string { return c.opts.clientName }

// Close stops the Client: the watchdog stops renewing (so locks it kept
// expire within their lease, and their Lost channels are closed), waiters
// return ErrClosed, and every later operation returns ErrClosed. It
// deletes the Client's label (WithClientName), waiting at most the unlock
// timeout for Redis. Close unlocks nothing but the locks of its leader
// elections' terms: it ends them first (their Lost channels close), and
// releases their locks, so that the next candidates are elected at once.
// It does not close the Redis client. When Close
// returns, no goroutine of the Client is left. Closing twice is a no-op.
func (c *Client) Close() error {
	c.once.Do(func() {
		c.closeStates()
		c.wireMu.Lock()
		c.cancel()
		c.wireMu.Unlock()
		if w := c.wire.Load(); w != nil && w.hub != nil {
			_ = w.hub.Close()
		}
		c.background.Wait()
		c.wd.close()
		if c.label != nil {
			c.label.remove(c.opts.unlockTimeout)
		}
	})
	return nil
}

// retryWindow bounds how long rdb may keep retrying one command: every
// attempt's write and read timeouts, plus the backoffs between attempts,
// with go-redis's defaults where an option is unset. It is at least 10s,
// and 30s for a client whose options it cannot see or that sets no
// timeouts.
func retryWindow(rdb redis.UniversalClient) time.Duration {
	var retries int
	var read, write, backoff time.Duration
	switch c := rdb.(type) {
	case *redis.Client:
		o := c.Options()
		retries, read, write, backoff = o.MaxRetries, o.ReadTimeout, o.WriteTimeout, o.MaxRetryBackoff
	case *redis.ClusterClient:
		o := c.Options()
		retries, read, write, backoff = o.MaxRetries, o.ReadTimeout, o.WriteTimeout, o.MaxRetryBackoff
	default:
		return 30 * time.Second
	}
	if read < 0 || write < 0 {
		return 30 * time.Second // no timeouts: a command may take any time
	}
	const defaultTimeout, defaultBackoff = 3 * time.Second, 512 * time.Millisecond
	if read == 0 {
		read = defaultTimeout
	}
	if write == 0 {
		write = read
	}
	if backoff <= 0 {
		backoff = defaultBackoff
	}
	retries = max(retries, 0)
	return max(10*time.Second, time.Duration(retries+1)*(read+write)+time.Duration(retries)*backoff)
}

// resends reports whether rdb resends a command whose reply did not come
// (go-redis's MaxRetries, 3 unless set; -1 turns resending off), taking
// clients it cannot tell to resend.
func resends(rdb redis.UniversalClient) bool {
	switch c := rdb.(type) {
	case *redis.Client:
		return c.Options().MaxRetries > 0
	case *redis.ClusterClient:
		return c.Options().MaxRetries > 0
	}
	return true
}

// master returns the client of the master that holds key.
func (c *Client) master(ctx context.Context, key string) (*redis.Client, error) {
	switch rdb := c.rdb.(type) {
	case *redis.Client:
		return rdb, nil
	case *redis.ClusterClient:
		return rdb.MasterForKey(ctx, key)
	}
	return nil, fmt.Errorf("no master client for %q in %T", key, c.rdb)
}

// closed reports whether Close has been called.
func (c *Client) closed() bool { return c.ctx.Err() != nil }

// persist makes a release request that the caller asked for even when its
// ctx has ended: req runs with ctx, and if ctx had ended before or ends
// while it runs, once more detached from ctx, bounded by the Client's
// unlock timeout. req must be safe to repeat (a recorded release is). The
// Client's pub/sub is decided first, under the same ctx: a release
// publishes.
func persist[T any](c *Client, ctx context.Context, req func(context.Context) (T, error)) (T, error) {
	send := func(ctx context.Context) (T, error) {
		if _, err := c.pubsub(ctx); err != nil {
			var none T
			return none, err
		}
		return req(ctx)
	}
	if ctx.Err() == nil {
		v, err := send(ctx)
		if err == nil || ctx.Err() == nil {
			return v, err
		}
	}
	dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), c.opts.unlockTimeout)
	defer cancel()
	return send(dctx)
}
