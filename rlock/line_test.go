package rlock

import (
	"context"
	"errors"
	"testing"
	"time"
)

// queued waits until n goroutines wait in l.
func queued(t *testing.T, l *line, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		l.mu.Lock()
		got := len(l.waiting)
		l.mu.Unlock()
		if got == n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d waiters in line, want %d", got, n)
		}
		time.Sleep(time.Millisecond) // polling a test fixture, not the library
	}
}

// mustEnter takes a slot that must be free now.
func mustEnter(t *testing.T, l *line, shared bool) {
	t.Helper()
	ok, err := l.enter(context.Background(), shared, time.Now())
	if !ok || err != nil {
		t.Fatalf("enter(shared %v) of a free slot = %v, %v", shared, ok, err)
	}
}

// waitFor starts a goroutine that waits for a slot with no limit and
// returns the channel that receives its outcome: nil once it entered.
func waitFor(l *line, shared bool) <-chan error {
	done := make(chan error, 1)
	go func() {
		ok, err := l.enter(context.Background(), shared, noDeadline)
		if err == nil && !ok {
			err = errors.New("refused without an error")
		}
		done <- err
	}()
	return done
}

// entered fails unless the waiter of done entered, or fails at once if
// notYet and it has.
func entered(t *testing.T, done <-chan error, want bool) {
	t.Helper()
	if !want {
		select {
		case err := <-done:
			t.Fatalf("a waiter entered (%v) while it should wait", err)
		default:
		}
		return
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a waiter did not enter")
	}
}

func TestLineExclusiveSlotsGoInArrivalOrderAndWakeOnlyWhoEnters(t *testing.T) {
	var l line
	mustEnter(t, &l, false)
	order := make(chan int, 4)
	in := make([]chan struct{}, 4)
	for i := range 4 {
		in[i] = make(chan struct{})
		go func() {
			if ok, err := l.enter(context.Background(), false, noDeadline); !ok || err != nil {
				t.Errorf("waiter %d: %v, %v", i, ok, err)
			}
			order <- i
			close(in[i])
		}()
		queued(t, &l, i+1)
	}
	for i := range 4 {
		l.leave(false)
		<-in[i]
		if got := <-order; got != i {
			t.Fatalf("waiter %d entered in turn %d", got, i)
		}
		// The others still wait, none woken for nothing.
		queued(t, &l, 3-i)
	}
	l.leave(false)
}

func TestLineSharedWaitersBehindAnExclusiveSlotGoInTogether(t *testing.T) {
	var l line
	mustEnter(t, &l, false)
	r1 := waitFor(&l, true)
	queued(t, &l, 1)
	r2 := waitFor(&l, true)
	queued(t, &l, 2)
	w := waitFor(&l, false)
	queued(t, &l, 3)
	l.leave(false)
	entered(t, r1, true)
	entered(t, r2, true)
	if n := l.slots(true); n != 2 {
		t.Fatalf("%d shared slots taken, want 2", n)
	}
	queued(t, &l, 1)
	entered(t, w, false)
	l.leave(true)
	entered(t, w, false)
	l.leave(true)
	entered(t, w, true)
}

func TestLineExclusiveWaiterKeepsNewSharedOnesOut(t *testing.T) {
	var l line
	mustEnter(t, &l, true)
	if ok, _ := l.enter(context.Background(), true, time.Now()); !ok {
		t.Fatal("a second shared slot beside the first was refused")
	}
	w := waitFor(&l, false)
	queued(t, &l, 1)
	if ok, _ := l.enter(context.Background(), true, time.Now()); ok {
		t.Fatal("a newcomer took a shared slot past a waiting exclusive one")
	}
	l.leave(true)
	entered(t, w, false)
	l.leave(true)
	entered(t, w, true)
	l.leave(false)
	mustEnter(t, &l, true)
}

func TestLineWaitEnds(t *testing.T) {
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	for _, tc := range []struct {
		name     string
		ctx      context.Context
		deadline time.Time
		want     error
	}{
		{"single try", context.Background(), time.Now(), nil},
		{"wait elapsed", context.Background(), time.Now().Add(5 * time.Millisecond), nil},
		{"ctx ended", cancelled, noDeadline, context.Canceled},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var l line
			mustEnter(t, &l, false)
			ok, err := l.enter(tc.ctx, false, tc.deadline)
			if ok || err != tc.want {
				t.Fatalf("enter = %v, %v; want false, %v", ok, err, tc.want)
			}
			queued(t, &l, 0)
			if n := l.slots(false); n != 1 {
				t.Fatalf("the holder's slot is gone (%d)", n)
			}
		})
	}
}

func TestLineExclusiveWaiterGivingUpLetsTheSharedOnesBehindIn(t *testing.T) {
	var l line
	mustEnter(t, &l, true)
	ctx, cancel := context.WithCancel(context.Background())
	gaveUp := make(chan error, 1)
	go func() {
		_, err := l.enter(ctx, false, noDeadline)
		gaveUp <- err
	}()
	queued(t, &l, 1)
	r := waitFor(&l, true)
	queued(t, &l, 2)
	entered(t, r, false)
	cancel()
	if err := <-gaveUp; err != context.Canceled {
		t.Fatalf("cancelled wait = %v, want context.Canceled", err)
	}
	entered(t, r, true)
	queued(t, &l, 0)
}

func TestLineClosedEndsEveryWait(t *testing.T) {
	closed := make(chan struct{})
	l := line{closed: closed}
	mustEnter(t, &l, false)
	a, b := waitFor(&l, false), waitFor(&l, true)
	queued(t, &l, 2)
	close(closed)
	for _, done := range []<-chan error{a, b} {
		if err := <-done; err != ErrClosed {
			t.Fatalf("a wait at a closed line ended with %v, want ErrClosed", err)
		}
	}
	queued(t, &l, 0)
}

func TestLineSlotGivenToAWaiterThatGaveUpIsPassedOn(t *testing.T) {
	var l line
	mustEnter(t, &l, false)
	// A waiter that is given the slot just as its wait ends, and the
	// one behind it.
	p := &pending{ready: make(chan struct{})}
	l.mu.Lock()
	l.waiting = append(l.waiting, p)
	l.mu.Unlock()
	next := waitFor(&l, false)
	queued(t, &l, 2)
	l.leave(false)
	<-p.ready
	entered(t, next, false)
	l.giveUp(p)
	entered(t, next, true)
	if n := l.slots(false); n != 1 {
		t.Fatalf("%d exclusive slots taken after the pass, want the next one's", n)
	}
}

func TestLineLeaveFreesOnlyWhatIsTaken(t *testing.T) {
	var l line
	mustEnter(t, &l, true)
	w := waitFor(&l, false)
	queued(t, &l, 1)
	l.leave(true)
	entered(t, w, true)
	l.leave(true) // no shared slot is taken: nothing happens
	if l.slots(true) != 0 || l.slots(false) != 1 {
		t.Fatalf("slots %d shared, %d exclusive; want the exclusive one alone", l.slots(true), l.slots(false))
	}
	l.leave(false)
	l.leave(false)
	mustEnter(t, &l, false) // the line is free after its slots were left
}

func TestLineDowngradeLetsSharedWaitersIn(t *testing.T) {
	var l line
	mustEnter(t, &l, false)
	r := waitFor(&l, true)
	queued(t, &l, 1)
	w := waitFor(&l, false)
	queued(t, &l, 2)
	l.downgrade()
	entered(t, r, true)
	entered(t, w, false)
	if l.slots(true) != 2 || l.slots(false) != 0 {
		t.Fatalf("after the downgrade: %d shared, %d exclusive; want 2, 0", l.slots(true), l.slots(false))
	}
	l.leave(true)
	l.leave(true)
	entered(t, w, true)
}

func TestLineFreePathAllocatesNothing(t *testing.T) {
	var l line
	ctx := context.Background()
	allocs := testing.AllocsPerRun(100, func() {
		if ok, _ := l.enter(ctx, false, time.Now().Add(time.Minute)); !ok {
			t.Fatal("a free line refused")
		}
		l.leave(false)
	})
	if allocs != 0 {
		t.Fatalf("a free line's enter and leave allocate %v times, want 0 (no timer, no place)", allocs)
	}
}
