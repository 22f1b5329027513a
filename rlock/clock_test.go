//go:build go1.25

package rlock

import (
	"context"
	"net"
	"testing"
	"testing/synctest"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"
)

// These tests run in a synctest bubble on an in-memory miniredis whose TTLs
// follow the bubble's fake clock: hours of leases and renewals pass in
// microseconds, and every timing is exact.

// inBubble runs f in a synctest bubble with a fresh miniredis and a go-redis
// client of it.
func inBubble(t *testing.T, f func(t *testing.T, mr *miniredis.Miniredis, rdb *redis.Client)) {
	t.Helper()
	synctest.Test(t, func(t *testing.T) {
		mr := miniredis.NewMiniRedis()
		mr.ClockTTL(true)
		defer mr.Close()
		rdb := redis.NewClient(&redis.Options{
			Addr:   "127.0.0.1:6379", // never dialled; an IP needs no DNS lookup
			Dialer: func(context.Context, string, string) (net.Conn, error) { return mr.Dial() },
		})
		defer rdb.Close()
		f(t, mr, rdb)
	})
}

func TestClockWatchdogRenewsForHoursThenStopsAtClose(t *testing.T) {
	inBubble(t, func(t *testing.T, mr *miniredis.Miniredis, rdb *redis.Client) {
		ctx := context.Background()
		c, err := New(rdb)
		if err != nil {
			t.Fatal(err)
		}
		m := c.NewMutex("job")
		if err := m.Lock(ctx); err != nil {
			t.Fatal(err)
		}
		time.Sleep(2 * time.Hour)
		synctest.Wait()
		if n, _ := m.HoldCount(ctx); n != 1 {
			t.Fatalf("HoldCount after 2h = %d, want 1", n)
		}
		// Renewed every 10s to a 30s lease.
		if ttl, _ := m.TTL(ctx); ttl <= 20*time.Second || ttl > DefaultWatchdogTimeout {
			t.Fatalf("TTL = %v, want in (20s, 30s]", ttl)
		}
		select {
		case <-m.Lost():
			t.Fatal("Lost closed while renewed")
		default:
		}
		c.Close()
		time.Sleep(DefaultWatchdogTimeout)
		if mr.Exists("job") {
			t.Fatal("lock outlived its lease after Close")
		}
	})
}

// Lost closes when a fixed lease is about to run out, by the loss margin
// (1% of the lease plus 2 ms), before Redis lets anyone else in.
func TestClockFixedLeaseLostJustBeforeExpiry(t *testing.T) {
	inBubble(t, func(t *testing.T, mr *miniredis.Miniredis, rdb *redis.Client) {
		ctx := context.Background()
		c, _ := New(rdb)
		defer c.Close()
		m := c.NewMutex("lease")
		const lease = 10 * time.Second
		if err := m.LockWithLease(ctx, lease); err != nil {
			t.Fatal(err)
		}
		lost := m.Lost()
		lossAt := lease - 102*time.Millisecond
		time.Sleep(lossAt - time.Millisecond)
		synctest.Wait()
		select {
		case <-lost:
			t.Fatal("Lost closed before the lease was about to run out")
		default:
		}
		time.Sleep(time.Millisecond)
		synctest.Wait()
		select {
		case <-lost:
		default:
			t.Fatal("Lost not closed 1% + 2 ms before the lease ran out")
		}
		if !mr.Exists("lease") {
			t.Fatal("lock expired before Lost closed")
		}
		time.Sleep(lease - lossAt)
		synctest.Wait()
		if mr.Exists("lease") {
			t.Fatal("lock outlived its lease")
		}
	})
}

func TestClockWaiterWithoutMessageRetriesAtTTL(t *testing.T) {
	inBubble(t, func(t *testing.T, mr *miniredis.Miniredis, rdb *redis.Client) {
		ctx := context.Background()
		c, _ := New(rdb)
		defer c.Close()
		if err := c.NewMutex("ttl").LockWithLease(ctx, 10*time.Second); err != nil {
			t.Fatal(err)
		}
		// Expiry publishes nothing: the waiter's own timer, set to the
		// lock's TTL, is what wakes it.
		start := time.Now()
		ok, err := c.NewMutex("ttl").TryLock(ctx, time.Minute, time.Second)
		if !ok || err != nil {
			t.Fatalf("TryLock = %v, %v", ok, err)
		}
		if waited := time.Since(start); waited < 10*time.Second || waited > 10*time.Second+5*time.Millisecond {
			t.Fatalf("acquired after %v, want the 10s TTL", waited)
		}
	})
}

func TestClockLostWhenRenewalsCannotReachRedis(t *testing.T) {
	inBubble(t, func(t *testing.T, mr *miniredis.Miniredis, rdb *redis.Client) {
		ctx := context.Background()
		c, _ := New(rdb)
		defer c.Close()
		m := c.NewMutex("unreachable")
		if err := m.Lock(ctx); err != nil {
			t.Fatal(err)
		}
		time.Sleep(15 * time.Second) // a renewal within the first 10s succeeds
		synctest.Wait()
		hs := c.Activity().Holds
		if len(hs) != 1 || hs[0].LastRenewal.IsZero() {
			t.Fatalf("holds %+v: no renewal in 15s", hs)
		}
		mr.SetError("LOADING simulated outage")
		lost := m.Lost()
		// The lease ends 30s after the last renewal was sent: Lost must
		// close just before (the loss margin, 1% + 2 ms), not at a renewal
		// tick after it.
		lossAt := hs[0].LastRenewal.Add(DefaultWatchdogTimeout - DefaultWatchdogTimeout/100 - 2*time.Millisecond)
		time.Sleep(time.Until(lossAt) - time.Millisecond)
		synctest.Wait()
		select {
		case <-lost:
			t.Fatal("Lost closed before the lease was about to run out")
		default:
		}
		time.Sleep(time.Millisecond)
		synctest.Wait()
		select {
		case <-lost:
		default:
			t.Fatal("Lost not closed at the end of the last renewed lease")
		}
	})
}

// A renewal that fails is tried again at the next phase tick (a tenth of
// the renewal period), not a period later, while the lease still has most
// of its time to run.
func TestClockFailedRenewalRetriedAtTheNextTick(t *testing.T) {
	inBubble(t, func(t *testing.T, mr *miniredis.Miniredis, rdb *redis.Client) {
		ctx := context.Background()
		start := time.Now()
		c, _ := New(rdb)
		defer c.Close()
		m := c.NewMutex("flaky")
		if err := m.Lock(ctx); err != nil {
			t.Fatal(err)
		}
		// The hold's phase is renewed 1 s after the Client started, then
		// every 10 s; an outage covers the first renewal.
		period := DefaultWatchdogTimeout / 3
		tick := period / renewPhases
		mr.SetError("LOADING simulated outage")
		time.Sleep(time.Until(start.Add(tick + tick/2)))
		synctest.Wait()
		mr.SetError("")
		time.Sleep(tick)
		synctest.Wait()
		hs := c.Activity().Holds
		if len(hs) != 1 {
			t.Fatalf("holds %+v, want 1", hs)
		}
		if got := hs[0].LastRenewal.Sub(start); got != 2*tick {
			t.Fatalf("renewed %v after the Client started, want %v: at the tick after the failed renewal at %v", got, 2*tick, tick)
		}
	})
}
