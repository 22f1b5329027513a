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
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/internal/keys"
)

var (
	//go:embed hold.lua
	takeSrc string
	//go:embed release_once.lua
	releaseOnceSrc string
	holdSrc        = takeSrc + releaseOnceSrc
	//go:embed rw_hold.lua
	rwHoldSrc string
	//go:embed acquire.lua
	acquireSrc string
	//go:embed acquire_held.lua
	acquireHeldSrc string
	//go:embed acquire_fenced.lua
	acquireFencedSrc string
	//go:embed release.lua
	releaseSrc string
	//go:embed release_bare.lua
	releaseBareSrc string
	//go:embed renew.lua
	renewSrc string
	//go:embed force_release.lua
	forceReleaseSrc string
	//go:embed state.lua
	stateSrc string

	// The reentrant lock's scripts carry only the helpers they call, since
	// Redis runs the whole text, defining each helper, at every call; the
	// acquisition takes a free lock before it reaches them.
	acquire       = redis.NewScript(acquireSrc + takeSrc + acquireHeldSrc)
	acquireFenced = redis.NewScript(takeSrc + acquireFencedSrc)
	release       = redis.NewScript(releaseOnceSrc + listenersSrc + releaseSrc)
	// release_bare.lua by publish command, without and with the count of
	// listeners.
	releaseBare     = [2]bareScript{newBare(Publish, false), newBare(Publish, true)}
	releaseBareSPub = [2]bareScript{newBare(SPublish, false), newBare(SPublish, true)}
	renew           = redis.NewScript(renewSrc)
	forceRelease    = New(forceReleaseSrc)
	state           = New(stateSrc)
)

// bareScript is release_bare.lua for one publish command: its text and
// SHA1, for a command built without copying either.
type bareScript struct{ src, hash string }

// newBare returns release_bare.lua publishing with publish, a constant,
// and counting the listeners of a heard release if count.
func newBare(publish string, count bool) bareScript {
	numsub := "numsub"
	if publish == SPublish {
		numsub = "shardnumsub"
	}
	src := fmt.Sprintf("local PUBLISH, NUMSUB, PRESENCE, COUNT = '%s', '%s', '%s', %t\n", publish, numsub, keys.PresenceSuffix, count) + releaseBareSrc
	return bareScript{src: src, hash: redis.NewScript(src).Hash()}
}

// New returns the script src preceded by the helpers every lock script
// shares (hold.lua: taking a hold, the re-entry rule for retried
// acquisitions; release_once.lua: dropping a hold, the release record,
// which the Lua calls the latch, as Redisson does). The text is fixed at
// build time, never built from input.
func New(src string) *redis.Script { return redis.NewScript(holdSrc + src) }

// NewRW is New for a read-write lock's script: the helpers of rw_hold.lua
// (taking and dropping read and write holds) come between. A script
// defines only the helpers its kind uses, since Redis runs the whole text
// at every call.
func NewRW(src string) *redis.Script { return redis.NewScript(holdSrc + rwHoldSrc + src) }

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

// Release is the outcome of releasing one acquisition.
type Release int

const (
	// NotHeld: the owner did not hold the lock; nothing changed.
	NotHeld Release = iota
	// StillHeld: one acquisition was released, others remain; the lease
	// was re-armed.
	StillHeld
	// Released: the last acquisition was released and the unlock message
	// published.
	Released
	// Heard: as Released, and the unlock message reached a subscriber (as
	// the publish command counts them: on a Redis Cluster, classic PUBLISH
	// counts those of one node only).
	Heard
	// HandedOff: the last acquisition was released and the lock passed at
	// once to the owner the request named (Unlock.Next), holding it once
	// with its lease; nothing was published.
	HandedOff
)

// Held names a lock and the owner expected to hold it.
type Held struct {
	Key, Owner string
}

// Renewer renews the leases of the holds of one kind of lock.
type Renewer interface {
	// Renew re-arms lease on each hold of every batch that its owner still
	// holds. Each batch is one script call, so on Redis Cluster the keys
	// of a batch must share a slot; all batches go out in one pipeline,
	// one round trip per node. renewed[i][j] reports batches[i][j];
	// errs[i] is the error of batch i, if any.
	Renew(ctx context.Context, rdb redis.UniversalClient, lease time.Duration, batches [][]Held) (renewed [][]bool, errs []error)
}

// HashRenewer renews holds that are one field of the lock's hash: those of
// reentrant, fair and fenced locks, and write holds of read-write locks.
var HashRenewer Renewer = &renewer{script: renew, keys: func(h Held) []string { return []string{h.Key} }}

// NewRenewer returns a Renewer that runs script once per batch of holds:
// its KEYS are keys(h) of each hold h in turn, its ARGV the lease in
// milliseconds, then lead, then each hold's owner. The script returns an
// array whose element i is 1 when the batch's hold i was renewed.
func NewRenewer(script *redis.Script, keys func(Held) []string, lead ...any) Renewer {
	return &renewer{script: script, keys: keys, lead: lead}
}

// renewer runs one renew script over batches of holds.
type renewer struct {
	script *redis.Script
	keys   func(Held) []string // the KEYS of one hold
	lead   []any               // the ARGV between the lease and the owners
}

func (r *renewer) Renew(ctx context.Context, rdb redis.UniversalClient, lease time.Duration, batches [][]Held) (renewed [][]bool, errs []error) {
	renewed = make([][]bool, len(batches))
	errs = make([]error, len(batches))
	ms := Millis(lease)
	run := func(todo []int, eval bool) []int {
		pipe := rdb.Pipeline()
		cmds := make([]*redis.Cmd, len(batches))
		for _, i := range todo {
			keys, args := r.args(ms, batches[i])
			if eval {
				cmds[i] = r.script.Eval(ctx, pipe, keys, args...)
			} else {
				cmds[i] = r.script.EvalSha(ctx, pipe, keys, args...)
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
				errs[i] = err
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

// args are the KEYS and ARGV of one batch: the lease, the lead, then each
// owner.
func (r *renewer) args(leaseMs int64, batch []Held) (keys []string, args []any) {
	args = make([]any, 0, 1+len(r.lead)+len(batch))
	args = append(append(args, leaseMs), r.lead...)
	for _, h := range batch {
		keys = append(keys, r.keys(h)...)
		args = append(args, h.Owner)
	}
	return keys, args
}

// Runner is what a script that is sent at most once runs on (Lock.Release):
// a go-redis client, or anything that sends commands as one does.
type Runner interface {
	redis.Scripter
	Process(ctx context.Context, cmd redis.Cmder) error
}

// onceCmd is a command go-redis sends at most once: it never resends it
// after a network error or a timeout (Cmder.NoRetry), so that a request
// sent once is applied at most once without a record of it in Redis.
type onceCmd struct{ *redis.Cmd }

// NoRetry reports that go-redis must not resend the command.
func (onceCmd) NoRetry() bool { return true }

// runOnce runs a script as Script.Run does, each command sent once: args
// are those of its EVALSHA (the command, the sha1, the number of keys, the
// keys, the arguments); when the server lacks the script (NOSCRIPT: it ran
// nothing), they are sent again as EVAL of src.
func runOnce(ctx context.Context, rdb Runner, src string, args []any) *redis.Cmd {
	cmd := redis.NewCmd(ctx, args...)
	cmd.SetFirstKeyPos(3) // for the slot, on a Redis Cluster
	_ = rdb.Process(ctx, onceCmd{cmd})
	if err := cmd.Err(); err != nil && redis.HasErrorPrefix(err, "NOSCRIPT") {
		args[0], args[1] = "eval", src
		cmd = redis.NewCmd(ctx, args...)
		cmd.SetFirstKeyPos(3)
		_ = rdb.Process(ctx, onceCmd{cmd})
	}
	return cmd
}
