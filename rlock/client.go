package rlock

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/internal/ownerid"
	"github.com/relock-go/relock/pubsub"
	"github.com/relock-go/relock/scripts"
)

// Client creates locks on one Redis deployment and owns what they share:
// the client id in their owner ids, the pub/sub subscriptions their waiters
// sleep on, and the watchdog that renews their leases. Create one per
// process (per Redis deployment) and Close it when done. A Client is safe
// for concurrent use.
type Client struct {
	rdb  redis.UniversalClient
	opts options
	ids  *ownerid.Source
	hub  *pubsub.Hub // nil in spin mode
	wd   *watchdog
	// latchTTL is how long a release outcome is kept for retries of its
	// request: longer than rdb can take to give up on a command.
	latchTTL time.Duration
	// publish is the command that announces a release: scripts.Publish, or
	// scripts.SPublish with sharded pub/sub.
	publish string

	ctx    context.Context // cancelled by Close
	cancel context.CancelFunc
	once   sync.Once
}

// New returns a Client that keeps its locks in rdb, which may be a single
// node, Sentinel or Cluster client. rdb stays the caller's: Close does not
// close it.
func New(rdb redis.UniversalClient, opts ...Option) (*Client, error) {
	if rdb == nil {
		return nil, errors.New("rlock: nil redis client")
	}
	o := defaultOptions()
	for _, opt := range opts {
		if opt == nil {
			return nil, errors.New("rlock: nil Option")
		}
		if err := opt(&o); err != nil {
			return nil, err
		}
	}
	if o.replicas > 0 {
		switch rdb.(type) {
		case *redis.Client, *redis.ClusterClient:
		default:
			return nil, fmt.Errorf("rlock: WithReplicaAck needs a *redis.Client or *redis.ClusterClient, not %T", rdb)
		}
	}
	sharded, err := useSharded(rdb, o.sharded)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	c := &Client{rdb: rdb, opts: o, ids: ownerid.NewSource(), latchTTL: retryWindow(rdb), publish: scripts.Publish, ctx: ctx, cancel: cancel}
	if sharded {
		c.publish = scripts.SPublish
	}
	if o.spin == nil {
		c.hub = pubsub.New(rdb, pubsub.Options{Connections: o.subConns, HealthCheck: o.healthCheck, Sharded: sharded})
	}
	c.wd = newWatchdog(ctx, rdb, o.watchdogTimeout)
	return c, nil
}

// ID is the random client id that prefixes the owner id of every Mutex of
// this Client.
func (c *Client) ID() string { return c.ids.Client() }

// Close stops the Client: the watchdog stops renewing (so locks it kept
// expire within their lease, and their Lost channels are closed), waiters
// return ErrClosed, and every later operation returns ErrClosed. Close does
// not unlock anything and does not close the Redis client. When Close
// returns, no goroutine of the Client is left. Closing twice is a no-op.
func (c *Client) Close() error {
	c.once.Do(func() {
		c.cancel()
		if c.hub != nil {
			_ = c.hub.Close()
		}
		c.wd.close()
	})
	return nil
}

// useSharded decides whether a Client on rdb uses sharded pub/sub: as
// asked, or by default on a Redis Cluster whose servers know SPUBLISH.
func useSharded(rdb redis.UniversalClient, asked *bool) (bool, error) {
	cc, cluster := rdb.(*redis.ClusterClient)
	if asked != nil {
		if *asked && !cluster {
			return false, fmt.Errorf("rlock: sharded pub/sub needs a *redis.ClusterClient, not %T", rdb)
		}
		return *asked, nil
	}
	if !cluster {
		return false, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	info, err := cc.Do(ctx, "command", "info", "spublish").Slice()
	if err != nil {
		return false, fmt.Errorf("rlock: asking the cluster whether it has sharded pub/sub: %w", err)
	}
	return len(info) == 1 && info[0] != nil, nil
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

// master returns the client of the master that holds key.
func (c *Client) master(ctx context.Context, key string) (*redis.Client, error) {
	switch rdb := c.rdb.(type) {
	case *redis.Client:
		return rdb, nil
	case *redis.ClusterClient:
		return rdb.MasterForKey(ctx, key)
	}
	return nil, fmt.Errorf("rlock: no master client for %q in %T", key, c.rdb)
}

// closed reports whether Close has been called.
func (c *Client) closed() bool { return c.ctx.Err() != nil }
