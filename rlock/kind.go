package rlock

// The kinds of lock.
const (
	KindMutex       Kind = "mutex"           // Mutex: Redisson's RLock
	KindFencedMutex Kind = "fenced"          // FencedMutex: RFencedLock
	KindFairMutex   Kind = "fair"            // FairMutex: RFairLock
	KindRWMutex     Kind = "read-write"      // RWMutex: RReadWriteLock
	KindFairRWMutex Kind = "fair-read-write" // NewFairRWMutex
)

// KindElection is the kind of a leader election's lock (Election), in
// events, Activity and Inspect: a fair lock whose holder leads, with the
// election's log beside it.
const KindElection Kind = "election"

// The kinds of the counting objects (Event.Kind).
const (
	KindSemaphore       Kind = "semaphore"        // Semaphore: Redisson's RSemaphore
	KindPermitSemaphore Kind = "permit-semaphore" // PermitExpirableSemaphore: RPermitExpirableSemaphore
	KindCountDownLatch  Kind = "count-down-latch" // CountDownLatch: RCountDownLatch
	KindRateLimiter     Kind = "rate-limiter"     // RateLimiter: RRateLimiter
)

// KindCount is what Inspect reports for a string of an integer at a name
// with no leased permits beside it and no waiter listening on one kind's
// channel: a Semaphore's available permits or a CountDownLatch's count,
// which Redis does not tell apart (Redisson keeps both as a bare string),
// nor from any other counter. InspectKind, or the handle's own Inspect,
// says which. No handle has this kind.
const KindCount Kind = "count"

// Counting reports whether k is the kind of a semaphore, a count-down
// latch or a rate limiter, or KindCount: objects that have a count rather
// than holders, and whose events start and end no hold.
func (k Kind) Counting() bool {
	switch k {
	case KindSemaphore, KindPermitSemaphore, KindCountDownLatch, KindRateLimiter, KindCount:
		return true
	}
	return false
}

// The modes of a read-write lock's hold or acquisition (Event.Mode,
// LockInfo.Mode).
const (
	ModeRead  = "read"
	ModeWrite = "write"
)
