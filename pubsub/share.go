package pubsub

import "time"

// share keeps the turns that clients take at a channel's hand-offs. Redis
// delivers a release to the subscribers of its channel in subscription
// order, so the client that subscribed first would win nearly every race
// for the lock. part is the part of recent releases that this client's
// woken waiters won (an average that forgets over about 1/shareWeight
// releases); peers is the number of connections subscribed to the channel,
// from PUBSUB NUMSUB, asked at most every peersMaxAge. A client above its
// fair share 1/peers lets the others go first: its woken waiter starts its
// retry a little later (yieldDelay). Guarded by the shard's mutex.
type share struct {
	part    float64
	peers   int
	peersAt time.Time
}

const (
	shareWeight = 1.0 / 16
	peersMaxAge = time.Second
	// maxYield is the longest a woken waiter lets other clients go first:
	// far more than the spread of their retries, far less than a lease.
	maxYield = time.Millisecond
)

// released records a release and returns how long the waiter it wakes
// lets other clients go first.
func (s *share) released() time.Duration {
	s.part *= 1 - shareWeight
	return s.yieldDelay()
}

// won records that a waiter woken by a release took the lock, and reports
// whether the count of peers is due to be asked again.
func (s *share) won() (askPeers bool) {
	s.part += shareWeight
	if now := time.Now(); now.Sub(s.peersAt) > peersMaxAge {
		s.peersAt = now
		return true
	}
	return false
}

// yieldDelay is how long this client's woken waiter lets other clients go
// first: nothing at or below its fair share, up to maxYield far above it.
func (s *share) yieldDelay() time.Duration {
	if s.peers < 2 {
		return 0
	}
	excess := s.part*float64(s.peers) - 1
	if excess <= 0 {
		return 0
	}
	return time.Duration(min(excess, 1) * float64(maxYield))
}
