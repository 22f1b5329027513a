package rlock

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// attemptReplicated makes t's attempt on the lock's master, each script
// call followed on its connection by a WAIT for WithReplicaAck's replicas.
// Without enough acknowledgements of a successful acquisition it releases
// what it took and reports ErrNotReplicated: a failover could lose such an
// acquisition. Called with o.mu held.
func (o *owner) attemptReplicated(ctx context.Context, lease time.Duration, count int, t ownerTurn) (outcome, error) {
	master, err := o.c.master(ctx, o.name)
	if err != nil {
		return outcome{}, err
	}
	want, timeout := o.c.opts.replicas, o.c.opts.replicaTimeout
	r := &replicated{Scripter: master, master: master, replicas: want, timeout: timeout}
	out, err := t.send(ctx, r, lease, count)
	if !out.ok || err != nil {
		return out, err
	}
	ackErr := r.check()
	if ackErr == nil {
		return out, nil
	}
	// Undo this acquisition, once, as an Unlock would.
	if _, uerr := o.kind.release(ctx, o.unlockRequest(lease, o.nextSeq(), count+1)); uerr != nil {
		return outcome{}, errors.Join(ErrNotReplicated, fmt.Errorf("undoing the acquisition: %w", uerr))
	}
	return outcome{}, ackErr
}

// replicated is a redis.Scripter that sends each script call in one
// pipeline with a WAIT after it, so that both use one connection and WAIT
// counts the replicas that acknowledged that call's writes.
type replicated struct {
	redis.Scripter // the master's client, for SCRIPT LOAD and EXISTS
	master         *redis.Client
	replicas       int
	timeout        time.Duration
	acked          int64 // from the last call's WAIT
	waitErr        error
}

func (r *replicated) EvalSha(ctx context.Context, sha string, keys []string, args ...any) *redis.Cmd {
	return r.withWait(ctx, func(p redis.Pipeliner) *redis.Cmd { return p.EvalSha(ctx, sha, keys, args...) })
}

func (r *replicated) Eval(ctx context.Context, script string, keys []string, args ...any) *redis.Cmd {
	return r.withWait(ctx, func(p redis.Pipeliner) *redis.Cmd { return p.Eval(ctx, script, keys, args...) })
}

// check reports whether the last call's writes were acknowledged by
// enough replicas: nil, or an error (WAIT's, or one wrapping
// ErrNotReplicated).
func (r *replicated) check() error {
	switch {
	case r.waitErr != nil:
		return fmt.Errorf("WAIT: %w", r.waitErr)
	case r.acked < int64(r.replicas):
		return fmt.Errorf("%d of %d replicas acknowledged within %v: %w", r.acked, r.replicas, r.timeout, ErrNotReplicated)
	}
	return nil
}

func (r *replicated) withWait(ctx context.Context, call func(redis.Pipeliner) *redis.Cmd) *redis.Cmd {
	pipe := r.master.Pipeline()
	cmd := call(pipe)
	wait := pipe.Do(ctx, "wait", r.replicas, r.timeout.Milliseconds())
	_, _ = pipe.Exec(ctx)
	r.acked, r.waitErr = wait.Int64()
	return cmd
}
