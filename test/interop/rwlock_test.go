package interop

import (
	"context"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/internal/keys"
	"github.com/relock-go/relock/test/testkit"
)

// A Java reader and a Go reader hold the lock at once, in one hash.
func TestJavaAndGoReadersTogether(t *testing.T) {
	t.Parallel()
	rdb, c := setup(t)
	ctx := testkit.Ctx(t, time.Minute)
	java := Start(t, peerArgs(rdb, "hold", "rwread", "rw", "--hold", "60s")...)
	locked := java.Await(t, "locked", 30*time.Second)
	rw := c.NewRWMutex("rw")
	if ok, err := rw.TryRLock(ctx, 0, 0); !ok || err != nil {
		t.Fatalf("Go TryRLock beside a Java reader = %v, %v", ok, err)
	}
	h := rdb.HGetAll(ctx, "rw").Val()
	if h["mode"] != "read" || h[rw.Owner()] != "1" || h[locked["owner"].(string)] != "1" {
		t.Fatalf("hash %v: want mode read with the Java and the Go reader", h)
	}
	if ok, _ := c.NewRWMutex("rw").TryLock(ctx, 0, 0); ok {
		t.Fatal("a Go writer got in beside two readers")
	}
	if err := rw.RUnlock(ctx); err != nil {
		t.Fatal(err)
	}
	if rdb.HGet(ctx, "rw", locked["owner"].(string)).Val() != "1" {
		t.Fatal("the Go reader's release took the Java reader's hold")
	}
}

// A Java writer keeps Go readers out until it unlocks; its release wakes
// them by pub/sub, not by their 30s timeout.
func TestJavaWriterExcludesAndWakesGoReaders(t *testing.T) {
	t.Parallel()
	rdb, c := setup(t)
	ctx := testkit.Ctx(t, time.Minute)
	java := Start(t, peerArgs(rdb, "hold", "rwwrite", "rw", "--hold", "100", "--waitsubs", "1")...)
	java.Await(t, "locked", 30*time.Second)
	if ok, _ := c.NewRWMutex("rw").TryRLock(ctx, 0, 0); ok {
		t.Fatal("a Go reader got in beside a Java writer")
	}
	const readers = 2
	acquired := make(chan time.Time, readers)
	var wg sync.WaitGroup
	for range readers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rw := c.NewRWMutex("rw")
			if err := rw.RLock(ctx); err != nil {
				t.Error(err)
				return
			}
			acquired <- time.Now()
			_ = rw.RUnlock(ctx)
		}()
	}
	unlocked := java.Await(t, "unlocked", 30*time.Second)
	wg.Wait()
	close(acquired)
	for at := range acquired {
		lat := Millis(at) - unlocked.Float("t_start")
		checkWakeUp(t, "Java write unlock -> Go reader", lat)
	}
	if n := rdb.Exists(ctx, "rw").Val(); n != 0 {
		t.Fatal("lock left behind")
	}
}

// A Go writer keeps a Java reader out (its probe fails), and a Java reader
// waiting on it wakes on the Go release's message.
func TestGoWriterExcludesAndWakesJavaReader(t *testing.T) {
	t.Parallel()
	rdb, c := setup(t)
	ctx := testkit.Ctx(t, time.Minute)
	rw := c.NewRWMutex("rw")
	if err := rw.Lock(ctx); err != nil {
		t.Fatal(err)
	}
	probe := Start(t, peerArgs(rdb, "probe", "rwread", "rw")...).Await(t, "probe", 30*time.Second)
	// (A Redisson read lock reports isLocked only for readers.)
	if h, _ := probe.Redis()["hash"].(map[string]any); probe["trylock0"] != false || h["mode"] != "write" || h[rw.Owner()+":write"] != "1" {
		t.Fatalf("Java probe of a Go-written lock: %v", probe)
	}
	waiter := Start(t, peerArgs(rdb, "wait", "rwread", "rw")...)
	waiter.Await(t, "wait-start", 30*time.Second)
	channel := keys.RWChannel("rw")
	testkit.Eventually(t, 10*time.Second, "the Java reader subscribed", func() bool {
		return rdb.PubSubNumSub(ctx, channel).Val()[channel] == 1
	})
	released := time.Now()
	if err := rw.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	got := waiter.Await(t, "acquired", 30*time.Second)
	lat := got.Float("t") - Millis(released)
	checkWakeUp(t, "Go write unlock -> Java reader", lat)
}

// Java and Go writers update one counter under the lock with the peer's
// worker protocol: it comes out exact and never had two writers inside.
func TestJavaAndGoWritersExclude(t *testing.T) {
	t.Parallel()
	rdb, c := setup(t)
	mixedWorkers(t, rdb, "rwwrite", "rw", func() (lock, unlock func(context.Context) error) {
		rw := c.NewRWMutex("rw")
		return rw.Lock, rw.Unlock
	})
}

// mixedWorkers runs two Redisson workers of kind and two Go workers, each
// twenty rounds of the worker protocol under the lock name (the Go side
// taking and releasing it with what newLock returns), and checks that the
// counter came out exact with never two workers inside.
func mixedWorkers(t *testing.T, rdb *redis.Client, kind, name string, newLock func() (lock, unlock func(context.Context) error)) {
	t.Helper()
	ctx := testkit.Ctx(t, 2*time.Minute)
	const javaWorkers, goWorkers, iters = 2, 2, 20
	java := Start(t, peerArgs(rdb, "worker", kind, name, "--workers", strconv.Itoa(javaWorkers),
		"--iters", strconv.Itoa(iters), "--counter", "counter", "--sleep", "1")...)
	var wg sync.WaitGroup
	for range goWorkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			lock, unlock := newLock()
			for range iters {
				if err := Work(ctx, rdb, "counter", "go", lock, unlock); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	sum := java.Await(t, "summary", time.Minute)
	if errs, _ := sum["errors"].([]any); len(errs) > 0 {
		t.Fatalf("Java workers: %v", errs)
	}
	CheckCounter(t, rdb, "counter", (javaWorkers+goWorkers)*iters)
}
