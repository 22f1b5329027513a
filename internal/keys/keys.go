// Package keys builds the Redis key and channel names of a lock, in
// Redisson's layout, and computes Redis Cluster hash slots.
//
// Every auxiliary key and channel of a lock named n is prefix + ":{" + n + "}",
// or prefix + ":" + n when n already contains "{". Either way it hashes to
// the same cluster slot as the lock key n itself, so a script may touch the
// lock and its auxiliaries in one call on Redis Cluster.
package keys

import "strings"

// Unlock messages published on a lock's channel.
const (
	// UnlockMessage wakes one waiter of each subscribed client.
	UnlockMessage = "0"
	// ReadUnlockMessage wakes every waiter of each subscribed client.
	ReadUnlockMessage = "1"
	// GrantPrefix begins the message that tells a relock fair waiter, on
	// its own channel, that a release granted it the lock: the prefix,
	// then the id of its wait (queue/fair_grant.lua's grant_next). The
	// message is a negative number, so that every payload on a channel of
	// Redisson's layout is one that Redisson's codec reads (it acts on 0
	// and 1 only).
	GrantPrefix = "-"
	// TurnPrefix begins the notice, on the turn channel of a fair lock
	// (TurnChannel), that a waiter's turn came (the prefix, then its
	// entry): for onlookers such as relock watch (queue/fair_common.lua's
	// announce).
	TurnPrefix = "turn:"
)

// prefixName is Redisson's prefixName: it keeps name's hash slot.
func prefixName(prefix, name string) string {
	if strings.Contains(name, "{") {
		return prefix + ":" + name
	}
	return prefix + ":{" + name + "}"
}

// Channel is the channel on which unlocking name is announced.
func Channel(name string) string { return prefixName("redisson_lock__channel", name) }

// TurnChannel is relock's own channel of the fair lock or fair read-write
// lock name, in its slot: every turn given in the lock's line is announced
// there (TurnPrefix), for onlookers. No Redisson client and no waiter
// listens on it: Redisson's channels carry numbers only.
func TurnChannel(name string) string { return prefixName("relock_turns", name) }

// Presence is the channel that a relock Client subscribes to beside
// channel, for as long as it subscribes to channel, so that others can
// tell its subscription from a Redisson client's: the subscribers of
// channel that are not relock Clients are PUBSUB NUMSUB of channel minus
// that of Presence(channel). Nothing is published on it. It is channel +
// PresenceSuffix: in channel's slot, under the same ACL pattern, and
// never a fair waiter's channel (channel + ":" + an owner id, which holds
// a ":").
func Presence(channel string) string { return channel + PresenceSuffix }

// PresenceSuffix is what Presence appends to a channel; the scripts that
// count a channel's listeners append it too.
const PresenceSuffix = ":relock"

// Queue is the fair lock's list of waiting owner ids (head = next owner).
func Queue(name string) string { return prefixName("redisson_lock_queue", name) }

// Timeout is the fair lock's sorted set of waiter deadlines (ms since epoch).
func Timeout(name string) string { return prefixName("redisson_lock_timeout", name) }

// WaiterChannel is the fair lock channel on which owner alone is woken.
func WaiterChannel(name, owner string) string { return Channel(name) + ":" + owner }

// FairWaiters is relock's HASH beside a fair lock's queue: its relock
// waiters (Redisson's are not in it), each with "<lease ms>:<wait id>" (the
// lease a release grants it the lock with, and the id its grant message
// names), or "granted" until it claims the lock.
func FairWaiters(name string) string { return prefixName("relock_lock_waiters", name) }

// Token is the fenced lock's token counter.
func Token(name string) string { return prefixName("redisson_lock_token", name) }

// Records is the key that records the outcome of the latest release
// request of the hold field field of lock name, so that a retried request
// is not applied twice: Redisson's unlock latch, which Redisson names
// after the request; one key per field keeps the keyspace as small as the
// set of recent owners. With a Client id for field, it is the hash of
// that Client's request records of the semaphore or latch name
// (scripts.Request).
func Records(name, field string) string {
	return prefixName("redisson_unlock_latch", name) + ":" + field
}

// KeepsSlot reports whether every auxiliary key and channel of the lock
// called name hashes to the lock's own cluster slot, which is the rule a
// usable lock name follows on every topology: name is not empty, and
// either has no brace at all (bracing it makes all of it the hash tag) or
// has a hash tag (its first "{" is followed by a "}" with text between),
// which the prefix leaves first. Names such as "a}b", "a{b", "{", "{}" and
// "a{}b" hash whole as lock keys but not as auxiliary keys: no prefixing
// rule compatible with Redisson keeps them in one slot.
func KeepsSlot(name string) bool {
	if _, after, ok := strings.Cut(name, "{"); ok {
		tag, _, ok := strings.Cut(after, "}")
		return ok && tag != ""
	}
	return name != "" && !strings.Contains(name, "}")
}

// Slot is the Redis Cluster hash slot of key: CRC16 of the key, or of the
// text between the first "{" and the next "}" when that text is not empty.
func Slot(key string) int {
	if open := strings.IndexByte(key, '{'); open >= 0 {
		if n := strings.IndexByte(key[open+1:], '}'); n > 0 {
			key = key[open+1 : open+1+n]
		}
	}
	return int(crc16(key) % 16384)
}

// crc16 is CRC-16/XMODEM (polynomial 0x1021, initial value 0), as Redis uses.
func crc16(s string) uint16 {
	var crc uint16
	for i := 0; i < len(s); i++ {
		crc ^= uint16(s[i]) << 8
		for range 8 {
			if crc&0x8000 != 0 {
				crc = crc<<1 ^ 0x1021
			} else {
				crc <<= 1
			}
		}
	}
	return crc
}

// suffixName is Redisson's suffixName: name's hash slot, with suffix after.
func suffixName(name, suffix string) string {
	if strings.Contains(name, "{") {
		return name + ":" + suffix
	}
	return "{" + name + "}:" + suffix
}

// RWChannel is the channel on which releases of the read-write lock name
// are announced, to readers and writers alike.
func RWChannel(name string) string { return prefixName("redisson_rwlock", name) }

// WriteField is the hash field of owner's write hold of a read-write lock;
// its read hold is the field owner itself.
func WriteField(owner string) string { return owner + ":write" }

// ReadTimeouts is the prefix of the keys that carry the leases of owner's
// read holds of the read-write lock name: hold n expires with the key
// ReadTimeouts(name, owner) + ":" + n.
func ReadTimeouts(name, owner string) string { return suffixName(name, owner) + readTimeoutSuffix }

// IsReadTimeout reports whether key is one of the keys that carry the
// leases of a read-write lock's read holds (ReadTimeouts + ":" + n): a
// name in braces, or holding a "{", then ":rwlock_timeout:" and a hold
// number.
func IsReadTimeout(key string) bool {
	i := strings.LastIndex(key, readTimeoutSuffix+":")
	if i < 0 || !strings.Contains(key[:i], "{") {
		return false
	}
	n := key[i+len(readTimeoutSuffix)+1:]
	return n != "" && strings.Trim(n, "0123456789") == ""
}

// readTimeoutSuffix ends the prefix of a read hold's lease key.
const readTimeoutSuffix = ":rwlock_timeout"

// ReadTimeoutsBase is what comes before ":" + field + ":rwlock_timeout" in
// the read-timeout keys of every reader of the read-write lock name.
func ReadTimeoutsBase(name string) string {
	return strings.TrimSuffix(suffixName(name, ""), ":")
}

// RWQueue is the line of a fair read-write lock (relock's own: Redisson
// has no fair read-write lock): a LIST of waiters' fields, head first.
func RWQueue(name string) string { return prefixName("relock_rwlock_queue", name) }

// RWTimeout is the fair read-write lock's ZSET of waiter deadlines (ms).
func RWTimeout(name string) string { return prefixName("relock_rwlock_timeout", name) }
