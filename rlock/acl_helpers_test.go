package rlock

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"
)

// aclKeys are the key patterns: the lock names, the read-write lock's read
// lease keys ("{" + name + "}:..."), Redisson's lock_* keys (fair queue and
// deadlines, token counter, and the unlock channel, which the scripts name
// among their KEYS), the read-write lock's channel (a KEY of its scripts
// too), the unlock latches, and relock's own keys beside the fair locks'
// queues (relock_lock_waiters, relock_rwlock_queue, relock_rwlock_timeout).
var aclKeys = []string{"~lock:*", "~{lock:*", "~redisson_lock_*", "~redisson_rwlock:*", "~redisson_unlock_latch:*", "~relock_*"}

// aclChannels are the channel patterns: the unlock channels, the fair
// lock's per-waiter channels that extend them, the read-write lock's, the
// fair locks' turn channels (relock_turns), the semaphores', the latches'
// and the leader elections' (relock_leader).
var aclChannels = []string{"&redisson_lock__channel:*", "&redisson_rwlock:*", "&relock_turns:*", "&redisson_sc:*", "&redisson_countdownlatch__channel__*", "&relock_leader:*", "&relock_rate:*"}

// aclCommands are the commands the library sends.
var aclCommands = []string{
	// Scripts, with EVALSHA and, after the server lost its script cache, EVAL.
	"evalsha", "eval",
	// Commands the scripts run (scripts/*.lua, queue/*.lua).
	"exists", "hexists", "hget", "hmget", "hincrby", "hset", "hdel", "hlen", "hkeys",
	"hgetall", "type", "pexpire", "pttl", "persist", "del",
	"get", "set", "incr", "time", "publish",
	"incrby", "decr", "decrby", "zrangebyscore",
	"lindex", "llen", "lpos", "lpush", "rpush", "lpop", "lrange", "lrem",
	"zadd", "zincrby", "zrange", "zrem", "zscore", "zcard", "zremrangebyscore",
	// The leader elections' logs (scripts/election_*.lua).
	"xadd", "xrange", "xrevrange",
	// Commands of the Go code: HoldCount, IsHeld, FencedMutex.Token (hget,
	// hexists, get), WithReplicaAck.
	"wait",
	// The subscriptions of waiters, their health check, and their count of
	// subscribers (also counted by the release scripts).
	"subscribe", "unsubscribe", "ping", "pubsub|numsub",
	// go-redis also sends CLIENT SETINFO (and MAINT_NOTIFICATIONS) on
	// every new connection and ignores a refusal. Redis 7.0 has neither
	// subcommand (and refuses to grant them); elsewhere setACLUser grants
	// them too, or the ACL log fills with their refusals.
}

// aclClusterCommands are the commands the library and go-redis's cluster
// client send to a Redis Cluster in addition: the slot map, the command
// table (for key positions), and sharded pub/sub.
var aclClusterCommands = []string{
	"cluster|shards", "cluster|slots", "command",
	"ssubscribe", "sunsubscribe", "spublish", "pubsub|shardnumsub",
}

// aclLine is the ACL SETUSER command for a relock user with password pass,
// granted aclCommands and the extra commands.
func aclLine(user, pass string, extra ...string) []string {
	rules := []string{"on", ">" + pass, "resetkeys", "resetchannels", "-@all"}
	rules = append(rules, aclKeys...)
	rules = append(rules, aclChannels...)
	for _, c := range append(slices.Clip(aclCommands), extra...) {
		rules = append(rules, "+"+c)
	}
	return append([]string{"ACL", "SETUSER", user}, rules...)
}

// The restricted user of the tests.
const aclTestUser, aclTestPassword = "relock-acl-test", "relock-acl-test-password"

// setACLUser creates the restricted user, with the extra commands, on the
// server of admin, deletes it when the test ends, and empties the server's
// ACL log.
func setACLUser(t *testing.T, admin *redis.Client, extra ...string) {
	t.Helper()
	ctx := context.Background()
	extra = slices.DeleteFunc(slices.Clone(extra), func(c string) bool {
		// A command the server lacks (Redis 6.2: sharded pub/sub) cannot be granted.
		info, err := admin.Do(ctx, "command", "info", c).Slice()
		return !strings.Contains(c, "|") && err == nil && len(info) == 1 && info[0] == nil
	})
	line := aclLine(aclTestUser, aclTestPassword, extra...)
	args := make([]any, len(line))
	for i, a := range line {
		args[i] = a
	}
	if err := admin.Do(ctx, args...).Err(); err != nil {
		t.Fatalf("%s: %v", strings.Join(line, " "), err)
	}
	t.Cleanup(func() { _ = admin.ACLDelUser(context.Background(), aclTestUser).Err() })
	// go-redis's hand-shake (CLIENT SETINFO, CLIENT MAINT_NOTIFICATIONS),
	// where the server lets them be granted: Redis 7.0 refuses to grant a
	// subcommand it lacks, but 6.2 refuses a call of one that is not.
	for _, sub := range []string{"+client|setinfo", "+client|maint_notifications"} {
		_ = admin.Do(ctx, "ACL", "SETUSER", aclTestUser, sub).Err()
	}
	if err := admin.ACLLogReset(ctx).Err(); err != nil {
		t.Fatal(err)
	}
}

// aclUser creates the restricted user on the test server and returns the
// options of a go-redis client logged in as it.
func aclUser(t *testing.T, admin *redis.Client) *redis.Options {
	t.Helper()
	setACLUser(t, admin)
	return &redis.Options{Addr: srv.Addr, Username: aclTestUser, Password: aclTestPassword}
}

// aclClient returns a go-redis client with opts, closed when the test ends.
func aclClient(t *testing.T, opts *redis.Options) *redis.Client {
	t.Helper()
	rdb := redis.NewClient(opts)
	t.Cleanup(func() { _ = rdb.Close() })
	return rdb
}

// aclDenials returns the server's ACL log: what was refused, to whom.
func aclDenials(t *testing.T, admin *redis.Client) []*redis.ACLLogEntry {
	t.Helper()
	log, err := admin.ACLLog(context.Background(), 100).Result()
	if err != nil {
		t.Fatal(err)
	}
	return log
}
