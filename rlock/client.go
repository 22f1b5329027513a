package rlock

import (
	"context"
	"errors"
	"sync"

	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/internal/ownerid"
	"github.com/relock-go/relock/pubsub"
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
	ctx, cancel := context.WithCancel(context.Background())
	c := &Client{rdb: rdb, opts: o, ids: ownerid.NewSource(), ctx: ctx, cancel: cancel}
	if o.spin == nil {
		c.hub = pubsub.New(rdb, pubsub.Options{Connections: o.subConns, HealthCheck: o.healthCheck})
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

// closed reports whether Close has been called.
func (c *Client) closed() bool { return c.ctx.Err() != nil }
