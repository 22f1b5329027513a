package rlock

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/pubsub"
	"github.com/relock-go/relock/queue"
	"github.com/relock-go/relock/scripts"
)

// wire is the pub/sub of a Client: the command that announces a release,
// and the Hub its waiters sleep on.
type wire struct {
	// publish is scripts.Publish, or scripts.SPublish with sharded pub/sub.
	publish  string
	hub      *pubsub.Hub // nil in spin mode
	sleepers sleepers    // on hub, or spinning
}

// setWire decides the Client's pub/sub. Called once, before or with wireMu
// held.
func (c *Client) setWire(sharded bool) {
	w := &wire{publish: scripts.Publish}
	if sharded {
		w.publish = scripts.SPublish
	}
	if c.opts.spin == nil {
		po := pubsub.Options{Connections: c.opts.subConns, HealthCheck: c.opts.healthCheck, Sharded: sharded}
		if obs := c.obs; obs != nil {
			po.OnReplace = func(channels int, why error) {
				obs.ObserveLock(Event{Type: EventSubscriptionReplaced, Time: time.Now(), Count: channels, Err: why})
			}
		}
		w.hub = pubsub.New(c.rdb, po)
		w.sleepers = hubSleepers{w.hub}
	} else {
		w.sleepers = spinSleepers{backoff: c.opts.spin, closed: c.ctx.Done()}
	}
	c.wire.Store(w)
}

// errNoShardedPubSub is the cause of every operation that publishes or
// waits, of a Client told to use sharded pub/sub on servers without it.
var errNoShardedPubSub = fmt.Errorf("%w: sharded pub/sub (WithShardedPubSub(true)) needs Redis 7.0 or later: this server has no SPUBLISH", errors.ErrUnsupported)

// begin checks that an operation may start: the Client is open, ctx has
// not ended, and the Client's pub/sub is decided. Every operation that
// publishes or waits begins here, or sends its requests through persist;
// after that, publishCommand, sleepers and hears read the decision.
func (c *Client) begin(ctx context.Context) error {
	if c.closed() {
		return ErrClosed
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	_, err := c.pubsub(ctx)
	return err
}

// pubsub returns the Client's pub/sub, deciding it first on a Redis
// Cluster (see New): with WithShardedPubSub(true), only once the servers
// are known to have sharded pub/sub. It fails with ErrClosed once the
// Client is closed. Only begin and persist call it.
func (c *Client) pubsub(ctx context.Context) (*wire, error) {
	if w := c.wire.Load(); w != nil {
		return w, nil
	}
	c.wireMu.Lock()
	defer c.wireMu.Unlock()
	if c.closed() {
		return nil, ErrClosed
	}
	if w := c.wire.Load(); w != nil {
		return w, nil
	}
	info, err := c.rdb.Do(ctx, "command", "info", "spublish").Slice()
	if err != nil {
		return nil, fmt.Errorf("asking the cluster whether it has sharded pub/sub: %w", err)
	}
	sharded := len(info) == 1 && info[0] != nil
	if !sharded && c.opts.sharded != nil {
		return nil, errNoShardedPubSub
	}
	c.setWire(sharded)
	return c.wire.Load(), nil
}

// sleepers is how the Client's waiters sleep; its pub/sub must be decided.
func (c *Client) sleepers() sleepers { return c.wire.Load().sleepers }

// hears reports whether the Client's waiters hear releases, on pub/sub
// subscriptions, rather than spin (WithSpin); its pub/sub must be decided.
func (c *Client) hears() bool { return c.wire.Load().hub != nil }

// publishCommand is the command that announces a release, once the
// Client's pub/sub is decided (every operation that publishes decides it
// first); classic PUBLISH before.
func (c *Client) publishCommand() string {
	if w := c.wire.Load(); w != nil {
		return w.publish
	}
	return scripts.Publish
}

// classicCluster reports whether the Client announces releases with
// classic PUBLISH on a Redis Cluster, which counts the receivers connected
// to one node only.
func (c *Client) classicCluster() bool {
	_, cluster := c.rdb.(*redis.ClusterClient)
	return cluster && c.publishCommand() == scripts.Publish
}

// queuePublish is the publish command of the Client's fair queues:
// Uncounted when its waiters spin instead of listening, so that the queue
// scripts do not take them for dead.
func (c *Client) queuePublish() string {
	if c.opts.spin != nil {
		return queue.Uncounted(c.publishCommand())
	}
	return c.publishCommand()
}

// stepAside is how long this Client lets the waiters of other clients on
// channel go first after a release or a win, and whether clients other
// than relock's listen there and take their turns (pubsub.Hub.StepAside):
// 0 when none listens, or in spin mode.
func (c *Client) stepAside(channel string) (time.Duration, bool) {
	if w := c.wire.Load(); w != nil && w.hub != nil {
		return w.hub.StepAside(channel)
	}
	return 0, false
}

// countDue reports whether a release on channel is to count its
// listeners (pubsub.Hub.CountDue): not in spin mode, nor on a Redis
// Cluster with classic pub/sub, where a script counts one node's.
func (c *Client) countDue(channel string) bool {
	w := c.wire.Load()
	return w != nil && w.hub != nil && !c.classicCluster() && w.hub.CountDue(channel)
}

// listenersAt tells the Hub who listened on channel when a release of
// this Client was heard or passed on, as its script counted them
// (pubsub.Hub.Counted), and returns stepAside's answer with them. A
// script on a Redis Cluster with classic pub/sub counts one node's
// subscribers: those counts, and a reply that counted nobody, change
// nothing.
func (c *Client) listenersAt(channel string, ls scripts.Listeners) (time.Duration, bool) {
	w := c.wire.Load()
	if ls.Subscribers == 0 || w == nil || w.hub == nil || c.classicCluster() {
		return c.stepAside(channel)
	}
	return w.hub.Counted(channel, ls.Subscribers, ls.Relock)
}
