package pubsub

import "time"

// share keeps the turns that clients take at a channel's hand-offs. Redis
// delivers a release to the subscribers of its channel in subscription
// order, so the client that subscribed first would win nearly every race
// for the lock. Instead the clients take turns, longest waiting first:
// since counts the releases heard since this client's woken waiters last
// won one, and peers is the number of connections subscribed to the
// channel, from PUBSUB NUMSUB, asked at most every peersMaxAge. A client
// that has not won for peers releases retries at once; one that won more
// recently lets the others go first, the more recently the longer
// (yieldDelay). While every client contends, each wins in turn, whatever
// the order of delivery, and a client that just won steps aside. Guarded
// by the shard's mutex.
type share struct {
	since   int
	peers   int
	peersAt time.Time
}

const (
	peersMaxAge = time.Second
	// maxYield is the longest a woken waiter lets other clients go first:
	// far more than the spread of their retries, far less than a lease.
	maxYield = time.Millisecond
)

// released records a release and returns how long the waiter it wakes
// lets other clients go first.
func (s *share) released() time.Duration {
	s.since++
	return s.yieldDelay()
}

// won records that a waiter woken by a release took the lock, and reports
// whether the count of peers is due to be asked again.
func (s *share) won() (askPeers bool) {
	s.since = 0
	if now := time.Now(); now.Sub(s.peersAt) > peersMaxAge {
		s.peersAt = now
		return true
	}
	return false
}

// yieldDelay is how long this client's woken waiter lets other clients go
// first: nothing when it has not won for peers releases (or has no peers),
// maxYield when it won the last one, in steps between.
func (s *share) yieldDelay() time.Duration {
	if s.peers < 2 || s.since >= s.peers {
		return 0
	}
	return maxYield * time.Duration(s.peers-s.since) / time.Duration(s.peers-1)
}
