// Package scripts holds the Lua scripts that read and change locks in Redis,
// and typed Go wrappers that run them.
//
// Each script is a .lua file embedded at build time; its header documents
// KEYS, ARGV and the reply. Scripts run with EVALSHA and fall back to EVAL
// when the server answers NOSCRIPT (after a restart or SCRIPT FLUSH), so the
// script text crosses the network only when the server lacks it. Lock names
// and owner ids travel only as KEYS and ARGV: no script text is ever built
// from input.
package scripts

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

var (
	//go:embed acquire.lua
	acquireSrc string
	//go:embed acquire_fenced.lua
	acquireFencedSrc string
	//go:embed release.lua
	releaseSrc string
	//go:embed renew.lua
	renewSrc string
	//go:embed force_release.lua
	forceReleaseSrc string

	acquire       = redis.NewScript(acquireSrc)
	acquireFenced = redis.NewScript(acquireFencedSrc)
	release       = redis.NewScript(releaseSrc)
	renew         = redis.NewScript(renewSrc)
	forceRelease  = redis.NewScript(forceReleaseSrc)
)

// Pub/sub publish commands a script may use for the unlock message.
const (
	Publish  = "publish"
	SPublish = "spublish"
)

// Millis is d in whole milliseconds for a script's PEXPIRE argument,
// rounded up, so that a positive lease never becomes 0 (which would expire
// the lock at once).
func Millis(d time.Duration) int64 {
	return int64((d + time.Millisecond - 1) / time.Millisecond)
}

// Acquire takes or re-enters the lock at key for owner, with the given
// lease; holds is how many holds owner had before, as it knows them, so
// that a retried request is not counted twice. It reports whether owner now
// holds the lock; when it does not, ttl is the lock's remaining time to
// live (negative when Redis reports none).
func Acquire(ctx context.Context, rdb redis.Scripter, key, owner string, lease time.Duration, holds int) (ok bool, ttl time.Duration, err error) {
	vals, err := acquire.Run(ctx, rdb, []string{key}, Millis(lease), owner, holds).Int64Slice()
	return acquired(vals, err)
}

// acquired reads an acquire script's reply, {1, n} or {0, ttl}.
func acquired(vals []int64, err error) (ok bool, ttl time.Duration, err2 error) {
	switch {
	case err != nil:
		return false, 0, err
	case len(vals) != 2:
		return false, 0, fmt.Errorf("unexpected acquire reply %v", vals)
	case vals[0] == 1:
		return true, 0, nil
	}
	return false, time.Duration(vals[1]) * time.Millisecond, nil
}

// AcquireFenced is Acquire for a fenced lock: each acquisition also takes
// the next token from the counter at tokenKey, which it returns.
func AcquireFenced(ctx context.Context, rdb redis.Scripter, key, tokenKey, owner string, lease time.Duration, holds int) (ok bool, ttl time.Duration, token int64, err error) {
	vals, err := acquireFenced.Run(ctx, rdb, []string{key, tokenKey}, Millis(lease), owner, holds).Int64Slice()
	if ok, ttl, err = acquired(vals, err); ok {
		token = vals[1]
	}
	return ok, ttl, token, err
}

// Release is the outcome of releasing one hold.
type Release int

const (
	// NotHeld: the owner did not hold the lock; nothing changed.
	NotHeld Release = iota
	// StillHeld: one hold was released, others remain; the lease was re-armed.
	StillHeld
	// Released: the last hold was released and the unlock message published.
	Released
)

// ReleaseHold releases one hold of owner on the lock at key. While holds
// remain the lease is re-armed; the last release deletes the lock and
// publishes message on channel with the publish command pub. The outcome
// is kept at latchKey for latchTTL, so a retry of this request (same
// latchKey) is not applied twice.
func ReleaseHold(ctx context.Context, rdb redis.Scripter, key, channel, latchKey, message, owner string, lease, latchTTL time.Duration, pub string) (Release, error) {
	n, err := release.Run(ctx, rdb, []string{key, channel, latchKey}, message, Millis(lease), owner, pub, Millis(latchTTL)).Int64()
	switch {
	case errors.Is(err, redis.Nil):
		return NotHeld, nil
	case err != nil:
		return NotHeld, err
	case n == 0:
		return StillHeld, nil
	}
	return Released, nil
}

// ForceRelease deletes the lock at key whoever holds it and, if there was
// one, publishes message on channel. It reports whether a lock was deleted.
func ForceRelease(ctx context.Context, rdb redis.Scripter, key, channel, message, pub string) (bool, error) {
	n, err := forceRelease.Run(ctx, rdb, []string{key, channel}, message, pub).Int64()
	if err != nil {
		return false, err
	}
	return n == 1, nil
}

// Held names a lock and the owner expected to hold it.
type Held struct {
	Key, Owner string
}

// Renew re-arms lease on each lock of every batch that its owner still
// holds. Each batch is one script call, so on Redis Cluster the keys of a
// batch must share a slot; all batches go out in one pipeline, one round
// trip per node. renewed[i][j] reports batches[i][j]; errs[i] is the error
// of batch i, if any.
func Renew(ctx context.Context, rdb redis.UniversalClient, lease time.Duration, batches [][]Held) (renewed [][]bool, errs []error) {
	renewed = make([][]bool, len(batches))
	errs = make([]error, len(batches))
	ms := Millis(lease)
	run := func(todo []int, eval bool) []int {
		pipe := rdb.Pipeline()
		cmds := make([]*redis.Cmd, len(batches))
		for _, i := range todo {
			keys, args := renewArgs(ms, batches[i])
			if eval {
				cmds[i] = renew.Eval(ctx, pipe, keys, args...)
			} else {
				cmds[i] = renew.EvalSha(ctx, pipe, keys, args...)
			}
		}
		_, _ = pipe.Exec(ctx)
		var noScript []int
		for _, i := range todo {
			vals, err := cmds[i].Int64Slice()
			if err != nil && !eval && redis.HasErrorPrefix(err, "NOSCRIPT") {
				noScript = append(noScript, i)
				continue
			}
			if err != nil {
				errs[i] = fmt.Errorf("renew: %w", err)
				continue
			}
			renewed[i] = make([]bool, len(vals))
			for j, v := range vals {
				renewed[i][j] = v == 1
			}
		}
		return noScript
	}
	all := make([]int, len(batches))
	for i := range all {
		all[i] = i
	}
	if retry := run(all, false); len(retry) > 0 {
		// The server lost its script cache: EVAL loads the script again.
		run(retry, true)
	}
	return renewed, errs
}

func renewArgs(leaseMs int64, batch []Held) (keys []string, args []any) {
	keys = make([]string, len(batch))
	args = make([]any, 1+len(batch))
	args[0] = leaseMs
	for j, h := range batch {
		keys[j] = h.Key
		args[j+1] = h.Owner
	}
	return keys, args
}
