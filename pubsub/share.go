package pubsub

import "time"

// share keeps the turns that clients take at a channel's hand-offs. Redis
// delivers a release to the subscribers of its channel in subscription
// order, so the client that subscribed first would win nearly every race
// for the lock. Instead the clients take turns, longest waiting first:
// since counts the releases heard since this client's woken waiters last
// won one, and peers is the number of connections subscribed to the
// channel. A client that has not won for peers releases retries at once;
// one that won more recently lets the others go first, the more recently
// the longer (yieldDelay). While every client contends, each wins in turn,
// whatever the order of delivery, and a client that just won steps aside.
//
// The counts come from the release scripts, which count the channel's
// subscribers when a release is heard or passed on within a client, at
// most every countEvery (Hub.CountDue, Hub.Counted), so a client knows who
// listens from its first contended release after that; and from PUBSUB
// NUMSUB, asked after a win when no count came for peersMaxAge.
//
// How long it steps aside (the step) depends on who the others are. A
// relock Client retries within a millisecond of a release: among relock
// Clients only, the step is relockStep. A Redisson client takes a few (its
// woken thread must be scheduled: about 2.5 ms on an idle machine, more on
// a busy one). foreign counts the subscribers that are not relock Clients
// (they do not subscribe to the channel's presence marker,
// keys.Presence); while there are any, the step adapts: it starts at
// slowStep, doubles up to maxStep each time this client's waiter stepped
// aside and still found the lock free (the others came too late), and
// halves, down to slowStep, each time another client took the lock first.
// Guarded by the shard's mutex.
type share struct {
	since   int
	peers   int
	foreign int
	peersAt time.Time
	// step is the adaptive step while foreign clients listen (0:
	// slowStep).
	step time.Duration
	// yielded: the last wake-up came with a delay, so the others had their
	// chance before this client's retry.
	yielded bool
	// late counts the releases in a row that this client won after
	// stepping aside at maxStep: the others came too late even then.
	late int
}

const (
	peersMaxAge = time.Second
	// countEvery is how often, at most, a client's release scripts count a
	// channel's listeners (Hub.CountDue).
	countEvery = 10 * time.Millisecond
	// relockStep is the step among relock Clients only: more than one
	// takes to retry. slowStep and maxStep bound the step while other
	// clients listen: slowStep is more than a Redisson thread takes to
	// wake and retry on an idle machine, maxStep far less than a lease.
	relockStep = time.Millisecond
	slowStep   = 4 * time.Millisecond
	maxStep    = 64 * time.Millisecond
	// maxLate is how many releases in a row the others may come too late
	// at maxStep and still take turns: a JVM's first wake-ups, its lock
	// path not yet compiled, can take that long on a busy machine.
	maxLate = 8
)

// released records a release and returns how long the waiter it wakes
// lets other clients go first.
func (s *share) released() time.Duration {
	s.since++
	d := s.yieldDelay()
	s.yielded = d > 0
	return d
}

// won records that a waiter woken by a release took the lock, and reports
// whether the count of peers is due to be asked again. When it had let
// foreign clients go first, they did not come in time: the step grows.
func (s *share) won() (askPeers bool) {
	s.since = 0
	if s.yielded && s.foreign > 0 {
		if s.stepNow() >= maxStep {
			s.late++
		}
		s.step = min(2*s.stepNow(), maxStep)
	}
	if now := time.Now(); now.Sub(s.peersAt) > peersMaxAge {
		s.peersAt = now // asked: counted sets it again
		return true
	}
	return false
}

// lost records that a waiter woken by a release found the lock taken by
// another client: the step shrinks.
func (s *share) lost() {
	if s.foreign > 0 {
		s.step = max(s.stepNow()/2, slowStep)
	}
	s.late = 0
}

// counted records the number of connections subscribed to the channel,
// and how many of them are not relock Clients; with none of those the
// adaptive step starts afresh.
func (s *share) counted(peers, foreign int) {
	s.peers, s.foreign = peers, foreign
	s.peersAt = time.Now()
	if foreign == 0 {
		s.step, s.late = 0, 0
	}
}

// stepNow is the current step.
func (s *share) stepNow() time.Duration {
	if s.foreign == 0 {
		return relockStep
	}
	return max(s.step, slowStep)
}

// slow reports whether clients other than relock's listen on the channel.
func (s *share) slow() bool { return s.peers >= 2 && s.foreign > 0 }

// turns reports whether clients other than relock's listen on the channel
// and take their turns: they have not come too late at maxStep for
// maxLate releases in a row, as a subscriber that never takes the lock
// does, or a client too slow to come within the longest step; one of them
// taking the lock makes them take turns again.
func (s *share) turns() bool { return s.slow() && s.late < maxLate }

// others reports how long this client steps aside for other clients that
// listen on the channel: 0 when none does.
func (s *share) others() time.Duration {
	if s.peers < 2 {
		return 0
	}
	return s.stepNow()
}

// yieldDelay is how long this client's woken waiter lets other clients go
// first: nothing when it has not won for peers releases (or has no peers),
// the step when it won the last one, in steps between.
func (s *share) yieldDelay() time.Duration {
	if s.peers < 2 || s.since >= s.peers {
		return 0
	}
	return s.stepNow() * time.Duration(s.peers-s.since) / time.Duration(s.peers-1)
}

// StepAside is how long a client that just released or took the lock on
// channel lets the waiters of other clients go first: 0 when no other
// connection subscribes to channel (as last counted, see share), a
// millisecond when only relock Clients do, else the channel's current
// step, which grows while the others keep coming too late (a Redisson
// client needs a few milliseconds to wake and retry). turns reports that
// clients other than relock's listen and take their turns: they have not
// kept coming too late at the longest step.
func (h *Hub) StepAside(channel string) (d time.Duration, turns bool) {
	s := h.existingShard(channel)
	if s == nil {
		return 0, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if e := s.entries[channel]; e != nil {
		return e.share.others(), e.share.turns()
	}
	return 0, false
}

// CountDue reports whether a release of this client on channel should
// have its script count the channel's listeners (Counted): when this
// client does not listen there, or its count is older than countEvery.
// So a Redisson waiter that began to wait is noticed within that time,
// at a cost of a count (one PUBSUB NUMSUB in the script, run only when a
// subscriber heard the release) per channel and client every countEvery
// at most while the client listens there, and at each heard release
// while it does not (it keeps no count then).
func (h *Hub) CountDue(channel string) bool {
	s := h.existingShard(channel)
	if s == nil {
		return true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.entries[channel]
	return e == nil || time.Since(e.share.peersAt) > countEvery
}

// Counted records what a release script counted when it announced a
// release on channel, or passed the lock on within this client:
// subscribers connections subscribed to channel, relock of them relock
// Clients (those subscribed to its presence marker, keys.Presence). It
// returns StepAside's answer with these counts. A client that does not
// listen on channel itself (no entry) keeps no share of it: the answer is
// then the first step of a share with these counts, slowStep while any
// other client than relock's listens.
func (h *Hub) Counted(channel string, subscribers, relock int) (d time.Duration, turns bool) {
	foreign := max(subscribers-relock, 0)
	if s := h.existingShard(channel); s != nil {
		s.mu.Lock()
		defer s.mu.Unlock()
		if e := s.entries[channel]; e != nil {
			e.share.counted(subscribers, foreign)
			return e.share.others(), e.share.turns()
		}
	}
	switch {
	case foreign > 0:
		return slowStep, true
	case subscribers > 0:
		return relockStep, false
	}
	return 0, false
}
