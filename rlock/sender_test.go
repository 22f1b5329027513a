package rlock

import (
	"context"
	"net"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// laneHook is a go-redis hook that holds every command named "echo" until
// released (a lane kept busy), and records the size of each pipeline.
type laneHook struct {
	mu        sync.Mutex
	held      int
	release   chan struct{}
	pipelines []int
	pipeRetry []bool // whether each pipeline could be resent
}

func (h *laneHook) DialHook(next redis.DialHook) redis.DialHook { return next }

func (h *laneHook) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		if cmd.Name() == "echo" {
			h.mu.Lock()
			h.held++
			h.mu.Unlock()
			<-h.release
		}
		return next(ctx, cmd)
	}
}

func (h *laneHook) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		if !slices.ContainsFunc(cmds, func(c redis.Cmder) bool { return c.Name() == "incr" }) {
			return next(ctx, cmds) // a connection's set-up (HELLO)
		}
		h.mu.Lock()
		h.pipelines = append(h.pipelines, len(cmds))
		h.pipeRetry = append(h.pipeRetry, !slices.ContainsFunc(cmds, redis.Cmder.NoRetry))
		h.mu.Unlock()
		return next(ctx, cmds)
	}
}

func (h *laneHook) heldNow() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.held
}

// busySender returns a sender of lanes lanes on the test server, with every
// lane held busy by an ECHO until the returned function is called.
func busySender(t *testing.T, lanes int) (*sender, *laneHook, func()) {
	t.Helper()
	srv.Reset(t)
	h := &laneHook{release: make(chan struct{})}
	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr, PoolSize: lanes + 4})
	t.Cleanup(func() { _ = rdb.Close() })
	rdb.AddHook(h)
	s := newSender(rdb)
	s.free = lanes
	var busy sync.WaitGroup
	for range lanes {
		busy.Add(1)
		go func() {
			defer busy.Done()
			_ = s.Process(context.Background(), redis.NewStringCmd(context.Background(), "echo", "busy"))
		}()
	}
	eventually(t, 5*time.Second, "every lane busy", func() bool { return h.heldNow() == lanes })
	var once sync.Once
	free := func() { once.Do(func() { close(h.release); busy.Wait() }) }
	t.Cleanup(free)
	return s, h, free
}

// queueUp sends n INCRs of key through s, each from its own goroutine, and
// returns once all are queued; wait then waits for their replies.
func queueUp(t *testing.T, s *sender, n int, key string) (wait func() []int64) {
	t.Helper()
	s.mu.Lock()
	before := len(s.queue)
	s.mu.Unlock()
	cmds := make([]*redis.IntCmd, n)
	var wg sync.WaitGroup
	for i := range cmds {
		cmds[i] = redis.NewIntCmd(context.Background(), "incr", key)
		wg.Add(1)
		go func() { defer wg.Done(); _ = s.Process(context.Background(), cmds[i]) }()
	}
	eventually(t, 5*time.Second, "commands queued", func() bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		return len(s.queue) == before+n
	})
	return func() []int64 {
		wg.Wait()
		got := make([]int64, n)
		for i, c := range cmds {
			if c.Err() != nil {
				t.Fatalf("command %d: %v", i, c.Err())
			}
			got[i] = c.Val()
		}
		return got
	}
}

func TestSenderSendsAloneWhileALaneIsFree(t *testing.T) {
	srv.Reset(t)
	h := &laneHook{release: make(chan struct{})}
	rdb := srv.Client(t)
	rdb.AddHook(h)
	s := newSender(rdb)
	for range 3 {
		if err := s.Process(ctxT(t), redis.NewIntCmd(ctxT(t), "incr", "n")); err != nil {
			t.Fatal(err)
		}
	}
	if len(h.pipelines) != 0 {
		t.Fatalf("pipelines %v, want none: a free lane sends a command alone", h.pipelines)
	}
}

func TestSenderBatchesWhatQueuesWhileEveryLaneIsBusy(t *testing.T) {
	s, h, free := busySender(t, 2)
	wait := queueUp(t, s, 50, "n")
	free()
	got := wait()
	slices.Sort(got)
	for i, v := range got {
		if v != int64(i+1) {
			t.Fatalf("replies %v, want 1..50 once each", got)
		}
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.pipelines) != 1 || h.pipelines[0] != 50 {
		t.Fatalf("pipelines %v, want one of the 50 queued commands", h.pipelines)
	}
	if s.free != 2 || len(s.queue) != 0 {
		t.Fatalf("%d lanes free, %d queued after the batch; want 2 and 0", s.free, len(s.queue))
	}
}

func TestSenderBatchKeepsOneRetryPolicy(t *testing.T) {
	s, h, free := busySender(t, 1)
	waitA := queueUp(t, s, 3, "a")
	// A command go-redis must not resend (a bare release's), queued
	// between retryable ones.
	once := onceIncr{redis.NewIntCmd(context.Background(), "incr", "once")}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); _ = s.Process(context.Background(), once) }()
	eventually(t, 5*time.Second, "the once command queued", func() bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		return len(s.queue) == 4
	})
	free()
	waitA()
	wg.Wait()
	if once.Err() != nil || once.Val() != 1 {
		t.Fatalf("once command: %d, %v", once.Val(), once.Err())
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	// The three retryable commands went together, the one sent once
	// alone.
	if !slices.Equal(h.pipelines, []int{3}) || !h.pipeRetry[0] {
		t.Fatalf("pipelines %v (resendable: %v), want one of the 3 resendable commands", h.pipelines, h.pipeRetry)
	}
}

// onceIncr is an INCR that go-redis must not resend.
type onceIncr struct{ *redis.IntCmd }

func (onceIncr) NoRetry() bool { return true }

func TestSenderBatchOutlivesItsLeadersContext(t *testing.T) {
	s, _, free := busySender(t, 1)
	ctx, cancel := context.WithCancel(context.Background())
	leader := redis.NewIntCmd(ctx, "incr", "n")
	done := make(chan error, 1)
	go func() { done <- s.Process(ctx, leader) }()
	eventually(t, 5*time.Second, "the leader queued", func() bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		return len(s.queue) == 1
	})
	wait := queueUp(t, s, 10, "n")
	cancel() // before the batch goes
	free()
	if err := <-done; err != nil {
		t.Fatalf("leader: %v", err)
	}
	got := wait()
	if slices.Max(got) != 11 {
		t.Fatalf("replies %v and the leader's %d: want 11 increments", got, leader.Val())
	}
}

// TestSenderFailsEveryCommandOfABrokenBatch checks that a batch whose
// connection fails gives each of its commands an error, and frees its lane.
func TestSenderFailsEveryCommandOfABrokenBatch(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			_ = c.Close() // every connection dies at once
		}
	}()
	rdb := redis.NewClient(&redis.Options{Addr: ln.Addr().String(), MaxRetries: -1, Protocol: 2, DisableIdentity: true})
	defer rdb.Close()
	s := newSender(rdb)
	s.free = 0 // every lane busy: what comes queues
	cmds := make([]*redis.IntCmd, 5)
	var wg sync.WaitGroup
	for i := range cmds {
		cmds[i] = redis.NewIntCmd(context.Background(), "incr", "n")
		wg.Add(1)
		go func() { defer wg.Done(); _ = s.Process(context.Background(), cmds[i]) }()
	}
	eventually(t, 5*time.Second, "commands queued", func() bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		return len(s.queue) == len(cmds)
	})
	s.keepBusy() // a lane comes free
	wg.Wait()
	for i, c := range cmds {
		if c.Err() == nil {
			t.Fatalf("command %d of a broken batch succeeded", i)
		}
	}
	if s.free != 1 {
		t.Fatalf("%d lanes free after the batch, want 1", s.free)
	}
}
