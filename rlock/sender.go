package rlock

import (
	"context"
	"sync"

	"github.com/redis/go-redis/v9"
)

// sender sends a Client's acquisition attempts and releases to Redis
// through at most lanes connections of rdb's pool at once. While a lane is free a command
// goes out at once, alone, on the caller's goroutine: nothing on the
// uncontended path waits. While every lane is busy, commands queue here,
// and the next lane to come free sends all of them (up to maxBatch) in one
// pipeline: its goroutine goes on sending batches for a few rounds
// (keepBusy), then the oldest queued one leads. So a storm of waiters attempting together
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
	// queued, since a lane that comes free with commands queued sends them
	// (keepBusy).
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
		s.keepBusy()
		return err
	}
	q := &sending{ctx: ctx, cmd: cmd, done: make(chan struct{})}
	s.queue = append(s.queue, q)
	s.mu.Unlock()
	<-q.done
	if q.lead {
		s.mu.Lock()
		batch := s.take(q)
		s.mu.Unlock()
		s.flush(batch)
		s.keepBusy()
	}
	return cmd.Err()
}

// keepRuns is how many batches a goroutine that holds a lane sends for
// others before it passes the lane on: a running goroutine sends the next
// batch at once, where the oldest queued one would have to be scheduled
// first, which a busy machine can take long to do while the lane idles;
// and its own call waits that long at most.
const keepRuns = 4

// keepBusy keeps the lane of a goroutine that sent its command or batch
// busy while commands are queued: it sends them, batch after batch, up to
// keepRuns; then it passes the lane to the oldest queued command, which
// leads the next batch, or frees it.
func (s *sender) keepBusy() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for range keepRuns {
		if len(s.queue) == 0 {
			s.free++
			return
		}
		batch := s.take(nil)
		s.mu.Unlock()
		s.flush(batch)
		s.mu.Lock()
	}
	if len(s.queue) == 0 {
		s.free++
		return
	}
	next := s.queue[0]
	s.queue = s.queue[1:]
	next.lead = true
	close(next.done)
}

// take takes the next batch off the queue, with leader first if given:
// the queued commands, from the oldest, that go-redis may resend as it may
// resend the batch's first (Cmder.NoRetry: a pipeline is resent whole or
// not at all), up to maxBatch; the others keep their order. Called with mu
// held.
func (s *sender) take(leader *sending) []*sending {
	var batch []*sending
	if leader != nil {
		batch = append(batch, leader)
	} else if len(s.queue) > 0 {
		batch, s.queue = append(batch, s.queue[0]), s.queue[1:]
	}
	if len(batch) == 0 {
		return nil
	}
	once := batch[0].cmd.NoRetry()
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
	return batch
}

// flush sends batch, one pipeline for more than one command, and tells
// its commands that they are done, but a leader, which sends it. The batch
// goes under its first command's ctx, without its cancellation, which is
// that command's alone.
func (s *sender) flush(batch []*sending) {
	if len(batch) == 1 {
		_ = s.rdb.Process(batch[0].ctx, batch[0].cmd)
	} else {
		_, _ = s.rdb.Pipelined(context.WithoutCancel(batch[0].ctx), func(p redis.Pipeliner) error {
			for _, q := range batch {
				_ = p.Process(q.ctx, q.cmd)
			}
			return nil
		})
	}
	for _, q := range batch {
		if !q.lead {
			close(q.done)
		}
	}
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
