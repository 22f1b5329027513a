package rlock

import (
	"context"
	"testing"
	"time"
)

// queued waits until n goroutines wait in g's line.
func queued(t *testing.T, g *gate, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		g.mu.Lock()
		got := len(g.line)
		g.mu.Unlock()
		if got == n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d waiters in line, want %d", got, n)
		}
		time.Sleep(time.Millisecond) // polling a test fixture, not the library
	}
}

func TestGateGrantsInArrivalOrderAndWakesOnlyWhoEnters(t *testing.T) {
	var g gate
	ctx := context.Background()
	if ok, first, err := g.enter(ctx, nil, false, -1); !ok || !first || err != nil {
		t.Fatalf("enter a free gate = %v, %v, %v", ok, first, err)
	}
	order := make(chan int, 4)
	entered := make([]chan struct{}, 4)
	for i := range 4 {
		entered[i] = make(chan struct{})
		go func() {
			if ok, _, err := g.enter(ctx, nil, false, -1); !ok || err != nil {
				t.Errorf("writer %d: %v, %v", i, ok, err)
			}
			order <- i
			close(entered[i])
		}()
		queued(t, &g, i+1)
	}
	for i := range 4 {
		g.leave(false)
		<-entered[i]
		if got := <-order; got != i {
			t.Fatalf("writer %d entered in turn %d", got, i)
		}
		// The others still wait, none woken for nothing.
		queued(t, &g, 3-i)
	}
	g.leave(false)
}

func TestGateWaitingWriterKeepsNewReadersOut(t *testing.T) {
	var g gate
	ctx := context.Background()
	if ok, _, _ := g.enter(ctx, nil, true, -1); !ok {
		t.Fatal("first reader refused")
	}
	writer := make(chan struct{})
	go func() {
		if ok, _, err := g.enter(ctx, nil, false, -1); !ok || err != nil {
			t.Errorf("writer: %v, %v", ok, err)
		}
		close(writer)
	}()
	queued(t, &g, 1)
	if ok, _, _ := g.enter(ctx, nil, true, 0); ok {
		t.Fatal("a newcomer reader entered past a waiting writer")
	}
	g.leave(true)
	<-writer
	g.leave(false)
	if ok, first, _ := g.enter(ctx, nil, true, 0); !ok || !first {
		t.Fatal("reader refused after the writer left")
	}
}

func TestGateGivingUpLeavesTheLine(t *testing.T) {
	var g gate
	if ok, _, _ := g.enter(context.Background(), nil, false, -1); !ok {
		t.Fatal("free gate refused")
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() {
		_, _, err := g.enter(ctx, nil, false, -1)
		done <- err
	}()
	queued(t, &g, 1)
	cancel()
	if err := <-done; err != context.Canceled {
		t.Fatalf("cancelled wait = %v, want context.Canceled", err)
	}
	queued(t, &g, 0)
	if ok, _, _ := g.enter(context.Background(), nil, true, 0); ok {
		t.Fatal("entered a gate still held by the writer")
	}
	g.leave(false)
	if ok, _, _ := g.enter(context.Background(), nil, true, 0); !ok {
		t.Fatal("the gate stayed shut after its writer left")
	}
}
