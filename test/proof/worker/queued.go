package main

import (
	"context"
	"strings"
	"sync"

	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/test/proof/history"
)

// acquisition is an acquire in progress, carried by its ctx to the lock
// client's commands.
type acquisition struct {
	o      *history.Op
	queued sync.Once
}

type acquisitionKey struct{}

// withAcquisition returns ctx carrying the acquire o.
func withAcquisition(ctx context.Context, o *history.Op) context.Context {
	return context.WithValue(ctx, acquisitionKey{}, &acquisition{o: o})
}

// queuedHook records when a fair waiter had joined the queue at the
// latest (history op queued): once the first queueing attempt of its
// acquisition (the fair acquire script in mode join or stay) has returned.
// Fair order is then judged from it, not from the invocation alone: a
// process that the host starves may send its join long after it was
// invoked. (A fair Lock's first attempt only tries, and queues nobody.)
type queuedHook struct{}

func (queuedHook) DialHook(next redis.DialHook) redis.DialHook { return next }

func (queuedHook) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}

func (queuedHook) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		err := next(ctx, cmd)
		if a, ok := ctx.Value(acquisitionKey{}).(*acquisition); ok && err == nil && joins(cmd) {
			a.queued.Do(func() {
				if err := a.o.Mark("queued"); err != nil {
					fatal(err)
				}
			})
		}
		return err
	}
}

// joins reports whether cmd runs the fair acquire script in a mode that
// queues: EVALSHA (or EVAL) sha 5 lock queue deadlines channel waiters
// lease owner wait mode ...
func joins(cmd redis.Cmder) bool {
	args := cmd.Args()
	if name := cmd.Name(); len(args) < 12 || (name != "evalsha" && name != "eval") {
		return false
	}
	queue, _ := args[4].(string)
	mode, _ := args[11].(string)
	return strings.HasPrefix(queue, "redisson_lock_queue:") && (mode == "join" || mode == "stay")
}
