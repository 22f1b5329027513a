package pubsub

import "time"

// keptShare is the share of a channel whose entry was dropped (its last
// waiter left and the server confirmed its UNSUBSCRIBE), kept for
// keepShare in case a waiter of this client listens again: the Clients'
// turns with a Redisson client outlast the churn of a channel whose
// waiters come and go, as a semaphore's do (only the head of a Client's
// line listens, and the next head subscribes anew) or a lock's taken by a
// lone goroutine. Only a share with clients other than relock's counted
// is kept: among relock Clients a new entry starts afresh, as it always
// did. Guarded by the shard's mutex.
type keptShare struct {
	share
	at time.Time // when it was kept
}

const (
	// keepShare is how long a dropped entry's share is kept: about as
	// long as its counts are trusted (peersMaxAge).
	keepShare = time.Second
	// keptShares is how many kept shares a shard holds before it drops
	// the expired ones.
	keptShares = 64
)

// keep keeps e's share, if worth keeping, as e is dropped. Called with mu
// held.
func (s *shard) keep(e *entry) {
	if e.share.foreign == 0 {
		return
	}
	now := time.Now()
	if s.kept == nil {
		s.kept = make(map[string]keptShare)
	}
	if len(s.kept) >= keptShares {
		for ch, k := range s.kept {
			if now.Sub(k.at) > keepShare {
				delete(s.kept, ch)
			}
		}
	}
	s.kept[e.channel] = keptShare{share: e.share, at: now}
}

// keptFor returns the share kept for channel if one was kept less than
// keepShare ago (a new share if not), and forgets it. Called with mu held.
func (s *shard) keptFor(channel string) share {
	k, ok := s.kept[channel]
	if !ok {
		return share{}
	}
	delete(s.kept, channel)
	if time.Since(k.at) > keepShare {
		return share{}
	}
	return k.share
}
