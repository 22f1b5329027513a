package rlock

import (
	"context"
	"sync"

	"github.com/redis/go-redis/v9"
)

// sender sends a Client's acquisition attempts and releases to Redis through at most
// lanes connections of rdb's pool at once. While a lane is free a command
// goes out at once, alone, on the caller's goroutine: nothing on the
// uncontended path waits. While every lane is busy, commands queue here,
// and the next lane to come free sends all of them (up to maxBatch) in one
// pipeline, led by the oldest: so a storm of waiters attempting together
// (many locks released at once, a subscription connection replaced, a burst
// of Lock calls) costs Redis and the Client one round trip per batch
// instead of one per attempt, and the waiters queue here rather than in
// go-redis's pool, whose wait ends in "connection pool timeout". The rest
// of the pool stays free for releases, renewals and the pub/sub probes.
//
// A queued command is sent whatever its ctx, with its leader's: attempts
// are never cut short (their outcome must be known), and a batch takes one
// round trip. A sender is a redis.Scripter, as the scripts take.
type sender struct {
	rdb redis.UniversalClient
	mu  sync.Mutex
	// free counts the lanes not in use; one is free only while nothing is
	// queued, since a lane that comes free with commands queued passes to
	// the oldest of them (handOn).
	free  int
	queue []*sending
}

// sending is a command waiting for a lane.
type sending struct {
	ctx  context.Context
	cmd  redis.Cmder
	done chan struct{} // closed once sent, or when handed a lane (lead)
	lead bool
}

// maxBatch bounds a pipeline: a batch of attempts fits go-redis's 32 KiB
// write buffer.
const maxBatch = 128

// newSender sizes the lanes to three quarters of rdb's connection pool
// (per node on a Redis Cluster; go-redis's default pool is ten connections
// per CPU), at least one.
func newSender(rdb redis.UniversalClient) *sender {
	size := 0
	switch c := rdb.(type) {
	case *redis.Client:
		size = c.Options().PoolSize
	case *redis.ClusterClient:
		size = c.Options().PoolSize
	case *redis.Ring:
		size = c.Options().PoolSize
	}
	if size <= 0 {
		size = 10
	}
	return &sender{rdb: rdb, free: max(1, size*3/4)}
}

// Process sends cmd, at once on a free lane or queued in a batch, and
// returns its error.
func (s *sender) Process(ctx context.Context, cmd redis.Cmder) error {
	s.mu.Lock()
	if s.free > 0 {
		s.free--
		s.mu.Unlock()
		err := s.rdb.Process(ctx, cmd)
		s.handOn()
		return err
	}
	q := &sending{ctx: ctx, cmd: cmd, done: make(chan struct{})}
	s.queue = append(s.queue, q)
	s.mu.Unlock()
	<-q.done
	if q.lead {
		s.send(q)
	}
	return cmd.Err()
}

// send sends the batch that leader leads: itself and the commands queued
// behind it that go-redis may resend as it may resend the leader's
// (Cmder.NoRetry: a pipeline is resent whole or not at all), then passes
// its lane on. The batch is sent under the leader's ctx, without its
// cancellation, which is the leader's alone.
func (s *sender) send(leader *sending) {
	once := leader.cmd.NoRetry()
	batch := []*sending{leader}
	s.mu.Lock()
	// The queue's head, up to a batch: those of the leader's policy go,
	// the others keep their order.
	window := min(len(s.queue), maxBatch-1)
	var kept []*sending
	for _, q := range s.queue[:window] {
		if q.cmd.NoRetry() == once {
			batch = append(batch, q)
		} else {
			kept = append(kept, q)
		}
	}
	rest := window - len(kept)
	copy(s.queue[rest:window], kept)
	s.queue = s.queue[rest:]
	if len(s.queue) == 0 {
		s.queue = nil // not to keep the sent ones' array
	}
	s.mu.Unlock()
	if len(batch) == 1 {
		_ = s.rdb.Process(leader.ctx, leader.cmd)
	} else {
		_, _ = s.rdb.Pipelined(context.WithoutCancel(leader.ctx), func(p redis.Pipeliner) error {
			for _, q := range batch {
				_ = p.Process(q.ctx, q.cmd)
			}
			return nil
		})
		for _, q := range batch[1:] {
			close(q.done)
		}
	}
	s.handOn()
}

// handOn gives back a lane that sent its command or batch: to the oldest
// queued command, which leads the next batch, or to the free ones.
func (s *sender) handOn() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.queue) == 0 {
		s.free++
		return
	}
	next := s.queue[0]
	s.queue = s.queue[1:]
	next.lead = true
	close(next.done)
}

// script builds the command of a script run (EVAL, EVALSHA and their
// read-only forms), with its first key's position for a Redis Cluster,
// and sends it.
func (s *sender) script(ctx context.Context, name, script string, keys []string, args []any) *redis.Cmd {
	a := make([]any, 0, 3+len(keys)+len(args))
	a = append(a, name, script, len(keys))
	for _, k := range keys {
		a = append(a, k)
	}
	a = append(a, args...)
	cmd := redis.NewCmd(ctx, a...)
	if len(keys) > 0 {
		cmd.SetFirstKeyPos(3)
	}
	_ = s.Process(ctx, cmd)
	return cmd
}

func (s *sender) Eval(ctx context.Context, script string, keys []string, args ...any) *redis.Cmd {
	return s.script(ctx, "eval", script, keys, args)
}

func (s *sender) EvalSha(ctx context.Context, sha1 string, keys []string, args ...any) *redis.Cmd {
	return s.script(ctx, "evalsha", sha1, keys, args)
}

func (s *sender) EvalRO(ctx context.Context, script string, keys []string, args ...any) *redis.Cmd {
	return s.script(ctx, "eval_ro", script, keys, args)
}

func (s *sender) EvalShaRO(ctx context.Context, sha1 string, keys []string, args ...any) *redis.Cmd {
	return s.script(ctx, "evalsha_ro", sha1, keys, args)
}

func (s *sender) ScriptExists(ctx context.Context, hashes ...string) *redis.BoolSliceCmd {
	return s.rdb.ScriptExists(ctx, hashes...)
}

func (s *sender) ScriptLoad(ctx context.Context, script string) *redis.StringCmd {
	return s.rdb.ScriptLoad(ctx, script)
}

// A sender is what the scripts run on.
var _ redis.Scripter = (*sender)(nil)
