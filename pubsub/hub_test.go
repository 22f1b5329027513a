package pubsub

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/test/testkit"
)

func newHub(t *testing.T) (*Hub, *miniredis.Miniredis, *redis.Client) {
	t.Helper()
	mr, rdb := testkit.Miniredis(t)
	h := New(rdb, Options{})
	t.Cleanup(func() { _ = h.Close() })
	return h, mr, rdb
}

func subscribe(t *testing.T, h *Hub, channel string) *Subscription {
	t.Helper()
	sub, err := h.Subscribe(context.Background(), channel)
	if err != nil {
		t.Fatalf("Subscribe(%q): %v", channel, err)
	}
	return sub
}

// waited is what a Wait returned.
type waited struct {
	woken bool
	err   error
}

// waitAsync starts sub.Wait(d) and reports its result on the channel.
func waitAsync(sub *Subscription, d time.Duration) <-chan waited {
	done := make(chan waited, 1)
	go func() {
		woken, err := sub.Wait(context.Background(), d)
		done <- waited{woken, err}
	}()
	return done
}

// wakeBound is how long a wake-up may take to reach a waiter that sleeps
// for a minute: generous on a loaded machine, and far less than the
// minute a waiter that no message woke sleeps before its Wait returns.
const wakeBound = 5 * time.Second

// awaitWoken waits, up to wakeBound, for the Wait reported on done to
// end woken (by a message, or a Poke), as the test expects.
func awaitWoken(t *testing.T, done <-chan waited, who string) {
	t.Helper()
	select {
	case w := <-done:
		if w.err != nil || !w.woken {
			t.Fatalf("%s's Wait = %v, %v; want woken", who, w.woken, w.err)
		}
	case <-time.After(wakeBound):
		t.Fatalf("%s not woken within %v", who, wakeBound)
	}
}

// untilSleeping waits until n waiters of h sleep.
func untilSleeping(t *testing.T, h *Hub, n int) {
	t.Helper()
	testkit.Eventually(t, 5*time.Second, fmt.Sprintf("%d waiters asleep", n), func() bool {
		return h.Stats().Sleeping == n
	})
}

// handled waits until h has handled every message mr published so far to
// channels of h's one connection. A subscription's confirmation may reach
// the connection before messages published earlier (miniredis writes them
// from another goroutine), but messages to one connection arrive in the
// order they were published: once a marker published after them has woken
// its own waiter, they have been handled.
func handled(t *testing.T, h *Hub, mr *miniredis.Miniredis) {
	t.Helper()
	marker := subscribe(t, h, "handled-marker")
	defer marker.Close()
	if n := mr.Publish("handled-marker", "0"); n != 1 {
		t.Fatalf("marker published to %d subscribers, want 1", n)
	}
	if woken, err := marker.Wait(context.Background(), time.Minute); err != nil || !woken {
		t.Fatalf("marker's Wait = %v, %v, want woken by its message", woken, err)
	}
}

// untilUnsubscribed waits until h and the server hold no subscription of
// channel.
func untilUnsubscribed(t *testing.T, h *Hub, mr *miniredis.Miniredis, channel string) {
	t.Helper()
	testkit.Eventually(t, 5*time.Second, channel+" unsubscribed", func() bool {
		return h.Stats().Channels == 0 && mr.PubSubNumSub(channel)[channel] == 0
	})
}

func TestSubscribeIsConfirmedAndShared(t *testing.T) {
	h, mr, _ := newHub(t)
	a := subscribe(t, h, "ch")
	b := subscribe(t, h, "ch")
	// Subscribe returned: the server has the subscription, once.
	if n := mr.PubSubNumSub("ch")["ch"]; n != 1 {
		t.Fatalf("NUMSUB = %d, want 1 shared subscription", n)
	}
	if st := h.Stats(); st.Channels != 1 || st.Subscriptions != 2 {
		t.Fatalf("Stats = %+v, want 1 channel, 2 waiters", st)
	}
	a.Close()
	a.Close() // idempotent
	if n := mr.PubSubNumSub("ch")["ch"]; n != 1 {
		t.Fatalf("NUMSUB = %d after one of two left, want 1", n)
	}
	b.Close()
	untilUnsubscribed(t, h, mr, "ch")
}

func TestMessageWakesOneSleeperInArrivalOrder(t *testing.T) {
	h, mr, _ := newHub(t)
	subs := []*Subscription{subscribe(t, h, "ch"), subscribe(t, h, "ch"), subscribe(t, h, "ch")}
	var done []<-chan waited
	for i, s := range subs {
		done = append(done, waitAsync(s, time.Minute))
		untilSleeping(t, h, i+1)
	}
	for i := range subs {
		mr.Publish("ch", "0")
		awaitWoken(t, done[i], fmt.Sprintf("waiter %d, by message %d,", i, i))
		// Once the message is handled, exactly the waiters behind still
		// sleep: a message that woke two would have left fewer.
		handled(t, h, mr)
		if n := h.Stats().Sleeping; n != len(subs)-i-1 {
			t.Fatalf("%d waiters asleep after message %d, want %d: one message woke more than one", n, i, len(subs)-i-1)
		}
	}
}

func TestReadUnlockMessageWakesAll(t *testing.T) {
	h, mr, _ := newHub(t)
	a, b := subscribe(t, h, "ch"), subscribe(t, h, "ch")
	da, db := waitAsync(a, time.Minute), waitAsync(b, time.Minute)
	untilSleeping(t, h, 2)
	mr.Publish("ch", "1")
	awaitWoken(t, da, "the first waiter")
	awaitWoken(t, db, "the second waiter")
}

func TestPermitKeptForBusyWaiterButNotHoarded(t *testing.T) {
	h, mr, _ := newHub(t)
	sub := subscribe(t, h, "ch")
	// The waiter is busy (not in Wait) when two messages arrive.
	mr.Publish("ch", "0")
	mr.Publish("ch", "0")
	handled(t, h, mr)
	sub.shard.mu.Lock()
	permits := sub.entry.q.permits
	sub.shard.mu.Unlock()
	if permits != 1 {
		t.Fatalf("permits = %d, want 1 (one per waiter at most)", permits)
	}
	start := time.Now()
	if woken, err := sub.Wait(context.Background(), time.Minute); err != nil || !woken || time.Since(start) > time.Second {
		t.Fatalf("Wait with a permit = %v, %v after %v, want woken at once", woken, err, time.Since(start))
	}
	// The second message was not kept: the next Wait sleeps its full time.
	start = time.Now()
	if woken, err := sub.Wait(context.Background(), 50*time.Millisecond); err != nil || woken || time.Since(start) < 50*time.Millisecond {
		t.Fatalf("Wait = %v, %v after %v, want a 50ms sleep, not woken", woken, err, time.Since(start))
	}
}

func TestWaitEndsWithContextOrClose(t *testing.T) {
	h, _, _ := newHub(t)
	sub := subscribe(t, h, "ch")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := sub.Wait(ctx, time.Minute)
		done <- err
	}()
	untilSleeping(t, h, 1)
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("Wait = %v, want context.Canceled", err)
	}
	if h.Stats().Sleeping != 0 {
		t.Fatal("cancelled waiter still listed as sleeping")
	}

	wait := waitAsync(sub, time.Minute)
	untilSleeping(t, h, 1)
	h.Close()
	if w := <-wait; !errors.Is(w.err, ErrClosed) {
		t.Fatalf("Wait after Close = %v, want ErrClosed", w.err)
	}
	if _, err := h.Subscribe(context.Background(), "other"); !errors.Is(err, ErrClosed) {
		t.Fatalf("Subscribe after Close = %v, want ErrClosed", err)
	}
	sub.Close()
}

func TestSubscribeCancelledLeavesNothing(t *testing.T) {
	h, mr, _ := newHub(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := h.Subscribe(ctx, "ch"); !errors.Is(err, context.Canceled) {
		t.Fatalf("Subscribe = %v, want context.Canceled", err)
	}
	untilUnsubscribed(t, h, mr, "ch")
}

func TestChannelsSpreadOverConnections(t *testing.T) {
	_, rdb := testkit.Miniredis(t)
	h := New(rdb, Options{Connections: 3})
	defer h.Close()
	var subs []*Subscription
	for _, ch := range []string{"a", "b", "c", "d", "e", "f", "g", "h"} {
		subs = append(subs, subscribe(t, h, ch))
	}
	used := map[*shard]bool{}
	for _, s := range subs {
		used[s.shard] = true
	}
	if st := h.Stats(); st.Connections != 3 || st.Channels != 8 || len(used) < 2 {
		t.Fatalf("Stats = %+v over %d connections, want 8 channels spread over 3", st, len(used))
	}
	for _, s := range subs {
		s.Close()
	}
}

func TestWokenWaiterThatRetriesInVainKeepsItsTurn(t *testing.T) {
	h, mr, _ := newHub(t)
	a, b := subscribe(t, h, "ch"), subscribe(t, h, "ch")
	da := waitAsync(a, time.Minute)
	untilSleeping(t, h, 1)
	db := waitAsync(b, time.Minute)
	untilSleeping(t, h, 2)
	mr.Publish("ch", "0")
	awaitWoken(t, da, "the first waiter")
	// a's retry failed: it sleeps again, ahead of b.
	da = waitAsync(a, time.Minute)
	untilSleeping(t, h, 2)
	mr.Publish("ch", "0")
	select {
	case w := <-da:
		if w.err != nil || !w.woken {
			t.Fatalf("the first waiter's Wait = %v, %v; want woken", w.woken, w.err)
		}
	case <-db:
		t.Fatal("the waiter behind was woken before the one whose turn it was")
	case <-time.After(wakeBound):
		t.Fatal("nobody woken")
	}
	mr.Publish("ch", "0")
	awaitWoken(t, db, "the second waiter")
}

func TestJoinBehindOnlyWhenOthersWait(t *testing.T) {
	h, _, _ := newHub(t)
	if _, _, ok := h.JoinBehind("ch"); ok {
		t.Fatal("joined behind a channel nobody waits on")
	}
	a := subscribe(t, h, "ch")
	defer a.Close()
	waitAsync(a, time.Minute)
	untilSleeping(t, h, 1)
	sub, due, ok := h.JoinBehind("ch")
	if !ok {
		t.Fatal("could not join behind a sleeping waiter")
	}
	defer sub.Close()
	if until := time.Until(due); until < 50*time.Second || until > time.Minute {
		t.Fatalf("due in %v, want the sleeper's wake-up time (about a minute)", until)
	}
	if st := h.Stats(); st.Subscriptions != 2 || st.Channels != 1 {
		t.Fatalf("Stats = %+v, want 2 waiters on 1 channel", st)
	}
}

func TestJoinedBehindLeavesPendingWakeUpToOthers(t *testing.T) {
	h, mr, _ := newHub(t)
	a := subscribe(t, h, "ch")
	// a is busy with an attempt when the message comes: a permit is kept.
	mr.Publish("ch", "0")
	handled(t, h, mr)
	a.shard.mu.Lock()
	permits := a.entry.q.permits
	a.shard.mu.Unlock()
	if permits != 1 {
		t.Fatal("no permit kept for the busy waiter")
	}
	b, _, ok := h.JoinBehind("ch")
	if !ok {
		t.Fatal("could not join behind a waiting waiter")
	}
	defer b.Close()
	start := time.Now()
	if woken, err := b.Wait(context.Background(), 50*time.Millisecond); err != nil || woken || time.Since(start) < 50*time.Millisecond {
		t.Fatalf("newcomer's Wait = %v, %v after %v: it took the busy waiter's wake-up", woken, err, time.Since(start))
	}
	if woken, err := a.Wait(context.Background(), wakeBound); err != nil || !woken {
		t.Fatalf("busy waiter's Wait = %v, %v, want woken by its kept permit", woken, err)
	}
	a.Close()
}

// Poke wakes the waiter it names, out of turn, and leaves the other
// sleepers asleep; a Poke while the waiter is awake makes its next Wait
// return at once.
func TestPokeWakesOneWaiterOutOfTurn(t *testing.T) {
	h, _, rdb := newHub(t)
	first, poked := subscribe(t, h, "ch"), subscribe(t, h, "ch")
	defer first.Close()
	defer poked.Close()
	firstDone := waitAsync(first, time.Minute)
	untilSleeping(t, h, 1)
	pokedDone := waitAsync(poked, time.Minute)
	untilSleeping(t, h, 2)
	poked.Poke()
	awaitWoken(t, pokedDone, "the poked waiter")
	if st := h.Stats(); st.Sleeping != 1 {
		t.Fatalf("%d asleep after the poke, want the first waiter still asleep", st.Sleeping)
	}
	poked.Poke()
	if woken, err := poked.Wait(context.Background(), wakeBound); !woken || err != nil {
		t.Fatalf("Wait after a Poke while awake = %v, %v; want woken at once", woken, err)
	}
	// The first waiter kept its turn: a release wakes it.
	if err := rdb.Publish(context.Background(), "ch", "0").Err(); err != nil {
		t.Fatal(err)
	}
	awaitWoken(t, firstDone, "the first waiter")
}
