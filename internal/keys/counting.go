package keys

import "strings"

// semaphorePrefix begins the channel of every semaphore.
const semaphorePrefix = "redisson_sc"

// SemaphoreChannel is the channel on which releases of the semaphore (or
// permit-expirable semaphore) name are announced, Redisson's
// "redisson_sc:{name}". Its message is a permit count.
func SemaphoreChannel(name string) string { return prefixName(semaphorePrefix, name) }

// IsSemaphoreChannel reports whether channel is a semaphore's
// (SemaphoreChannel), whose messages are permit counts: its "1" is one
// permit released, not a lock's read unlock.
func IsSemaphoreChannel(channel string) bool {
	return strings.HasPrefix(channel, semaphorePrefix+":")
}

// PermitTimeouts is the sorted set of a permit-expirable semaphore's
// permits: member the permit id (16 raw bytes), score its expiry in epoch
// milliseconds of the acquirer's clock.
func PermitTimeouts(name string) string { return suffixName(name, "timeout") }

// LatchChannel is the channel of the count-down latch name. Redisson
// always wraps the name in braces, even one that has braces already, so
// on Redis Cluster such a name's channel may lie in another slot.
func LatchChannel(name string) string { return "redisson_countdownlatch__channel__{" + name + "}" }

// Latch messages, Redisson's CountDownLatchPubSub.
const (
	// LatchZeroMessage: the count reached zero (or the latch was deleted).
	LatchZeroMessage = "0"
	// LatchNewCountMessage: a count was set.
	LatchNewCountMessage = "1"
)
