package rlock

import (
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/internal/keys"
)

// A Redisson (Java) client, reduced to the commands its RLock sends, per
// the protocol: acquire is "create or re-enter the owner's field, PEXPIRE";
// unlock is "decrement, re-arm or DEL and PUBLISH 0".
var (
	redissonLock = redis.NewScript(`
if (redis.call('exists', KEYS[1]) == 0) or (redis.call('hexists', KEYS[1], ARGV[2]) == 1) then
  redis.call('hincrby', KEYS[1], ARGV[2], 1); redis.call('pexpire', KEYS[1], ARGV[1]); return nil;
end;
return redis.call('pttl', KEYS[1]);`)
	redissonUnlock = redis.NewScript(`
if (redis.call('hexists', KEYS[1], ARGV[3]) == 0) then return nil; end;
local counter = redis.call('hincrby', KEYS[1], ARGV[3], -1);
if (counter > 0) then redis.call('pexpire', KEYS[1], ARGV[2]); return 0;
else redis.call('del', KEYS[1]); redis.call('publish', KEYS[2], ARGV[1]); return 1; end;`)
)

const javaOwner = "6e0b3a4c-1d2e-4f5a-8b7c-9d0e1f2a3b4c:57"

func TestRedissonHolderBlocksAndWakesRelockWaiter(t *testing.T) {
	rdb := newRedis(t)
	ctx := ctxT(t)
	if err := redissonLock.Run(ctx, rdb, []string{"shared"}, 30000, javaOwner).Err(); err != redis.Nil {
		t.Fatalf("Redisson acquire: %v", err)
	}
	c := newClient(t, rdb)
	m := c.NewMutex("shared")
	if ok, err := m.TryLock(ctx, 0, 0); ok || err != nil {
		t.Fatalf("TryLock on a Redisson-held lock = %v, %v", ok, err)
	}
	done := make(chan error, 1)
	go func() { done <- m.Lock(ctx) }()
	channel := keys.Channel("shared")
	eventually(t, 5*time.Second, "waiter subscribed", func() bool {
		return rdb.PubSubNumSub(ctx, channel).Val()[channel] == 1
	})
	// The Java side unlocks: its PUBLISH wakes the Go waiter, well before
	// the 30s lease would.
	if n, err := redissonUnlock.Run(ctx, rdb, []string{"shared", channel}, "0", 30000, javaOwner).Int(); n != 1 || err != nil {
		t.Fatalf("Redisson unlock = %d, %v", n, err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("relock waiter not woken by a Redisson unlock")
	}
}

func TestRelockHolderSeenByRedisson(t *testing.T) {
	rdb := newRedis(t)
	ctx := ctxT(t)
	m := newClient(t, rdb).NewMutex("shared")
	if err := m.Lock(ctx); err != nil {
		t.Fatal(err)
	}
	if err := m.Reenter(ctx); err != nil {
		t.Fatal(err)
	}
	// The Java side sees the lock held, with the holder's TTL.
	ttl, err := redissonLock.Run(ctx, rdb, []string{"shared"}, 30000, javaOwner).Int64()
	if err != nil || ttl <= 0 || ttl > 30000 {
		t.Fatalf("Redisson acquire on a relock-held lock = %d, %v; want the PTTL", ttl, err)
	}
	// A Redisson subscriber gets "0" on the lock's channel at the last unlock.
	sub := rdb.Subscribe(ctx, keys.Channel("shared"))
	defer sub.Close()
	if _, err := sub.Receive(ctx); err != nil {
		t.Fatal(err)
	}
	if err := m.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	if err := m.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	msg, err := sub.ReceiveMessage(ctx)
	if err != nil || msg.Payload != keys.UnlockMessage {
		t.Fatalf("message = %v, %v; want %q", msg, err, keys.UnlockMessage)
	}
	// Now the Java owner can take it.
	if err := redissonLock.Run(ctx, rdb, []string{"shared"}, 30000, javaOwner).Err(); err != redis.Nil {
		t.Fatalf("Redisson acquire after relock's unlock: %v", err)
	}
	if n, err := m.HoldCount(ctx); n != 0 || err != nil {
		t.Fatalf("relock HoldCount = %d, %v while Redisson holds; want 0", n, err)
	}
}

func TestRedissonHeldLockBracesName(t *testing.T) {
	rdb := newRedis(t)
	ctx := ctxT(t)
	// A name with a hash tag keeps it; the channel is not re-braced.
	m := newClient(t, rdb).NewMutex("{tenant7}:job")
	if got, want := m.channel, "redisson_lock__channel:{tenant7}:job"; got != want {
		t.Fatalf("channel = %q, want %q", got, want)
	}
	if err := m.Lock(ctx); err != nil {
		t.Fatal(err)
	}
	if rdb.HGet(ctx, "{tenant7}:job", m.Owner()).Val() != "1" {
		t.Fatal("lock not stored at its name")
	}
}
