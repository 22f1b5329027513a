// Package pubsub shares Redis subscriptions among the lock waiters of one
// process and wakes them when a lock is released. A waiter, here, is a
// lock waiter of the process while it listens: the holder of one
// Subscription.
//
// # Design
//
// A Hub owns a small, fixed number of subscription connections (one by
// default); each channel lives on one of them, chosen by hashing its name.
// Every Subscription of a channel joins that channel's entry, which is
// reference counted: the first sends SUBSCRIBE, the last one to leave
// sends UNSUBSCRIBE. Subscribe returns only after the server confirmed the
// subscription, so a release published after Subscribe returns is never
// missed; a lock waiter therefore subscribes first and retries its acquire
// attempt after.
//
// An entry is a counting semaphore with a FIFO list of sleeping waiters, as
// in Redisson's LockPubSub and golang.org/x/sync/semaphore. Message "0"
// (one lock released) wakes the longest-sleeping waiter, or leaves a permit
// for a waiter that is busy with an attempt and not asleep yet; message "1"
// wakes them all, except on a semaphore's channel while clients other than
// relock's listen there: a message is a count of permits, and "1" wakes
// one waiter, in turn with them, as a release does. Permits never
// outnumber the entry's waiters, so unlock messages that nobody needed
// cannot turn into a burst of useless retries.
// A waiter sleeps at most as long as it asks (the lock's TTL, or its
// remaining wait): a lost message costs at most that, never a hang. A
// waiter can also be woken alone (Poke), by news that comes another way:
// its process passed it the lock.
//
// Clients take turns at the releases they all hear: Redis delivers a
// release in subscription order, so the first subscriber would win every
// race. A client that won one of the channel's last N releases (N its
// subscribers) lets the others retry first, the more recently it won the
// longer: up to a millisecond among relock Clients, and while other
// clients listen (Redisson's, whose threads take a few milliseconds to
// retry) up to a step that adapts to them, from 4 to 64 ms (share.go). To
// tell them apart, every subscription comes with one to a presence marker
// beside its channel (keys.Presence), on which nothing is published: the
// channel's subscribers that are not relock Clients are its NUMSUB minus
// the marker's. The release scripts count both whenever a release is
// heard or passed on within a client, and the client hands the counts in
// (Hub.Counted), so that it knows a Redisson waiter from its first
// contended release; failing that, PUBSUB NUMSUB is asked after a win,
// at most every second.
//
// # Failures
//
// Each connection has a reader goroutine that receives messages and
// confirmations, and a writer goroutine that sends SUBSCRIBE and
// UNSUBSCRIBE in order, one outstanding command per channel at a time.
// A silent connection is pinged; one that stays silent, or fails, is
// replaced by a new one (after a short backoff when failures repeat) that
// subscribes every channel still wanted, in commands of a thousand
// channels. Once the server confirms a channel, its waiters are woken to
// retry, since releases published while the connection was down were
// lost, each after a random delay below a spread that grows with the
// channels resubscribed (20 µs each, at most a health-check interval), so
// that a hundred thousand waiters do not retry at once.
//
// A SUBSCRIBE the server refuses for want of permission (an ACL, NOPERM)
// does not break the connection: the commands in flight are known in
// order, the refused one of several channels is asked again a channel at
// a time, and a channel refused alone fails its waiters (ErrRefused, with
// the server's error); a refused probe channel (below) leaves the
// connection with pings alone.
//
// With classic pub/sub, a probe (a number) is published on a channel of
// the connection's own every health-check interval, through the command
// client and in the background: one publish however many channels the
// connection carries. A probe not heard back, or a subscription not
// confirmed, counts as late after one interval in which the connection
// stayed silent, or after ten while messages keep coming (the reader may
// be working through a backlog that the answer is queued behind); the
// connection is then replaced.
//
// # Where is what
//
//	hub.go           Hub: its connections (shards), Subscribe, JoinBehind, Stats
//	subscription.go  Subscription: one waiter's Wait, Poke, Won, TakeGrant and Close
//	entry.go         entry: one channel on one connection
//	wakeups.go       wakeups: a channel's wake-up queue, its invariants
//	share.go         share: turns taken with other clients at hand-offs;
//	                 Hub.StepAside, CountDue and Counted
//	share_kept.go    a dropped channel's share, kept for a moment
//	shard.go         shard: one connection's channels and its writer
//	shard_read.go    its reader: messages, health checks, replacement
//	shard_refused.go the commands in flight, and subscriptions an ACL refuses
//	shard_peers.go   counting a channel's subscribers (PUBSUB NUMSUB)
//	routing.go       router: the master of a channel in sharded mode
package pubsub
