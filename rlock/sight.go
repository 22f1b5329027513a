package rlock

import (
	"context"
	"errors"
	"strconv"
	"strings"

	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/internal/keys"
)

// modeField is the hash field of a read-write lock's mode.
const modeField = "mode"

// writeSuffix ends a writer's field in a read-write lock's hash, and its
// entry in a fair read-write queue.
var writeSuffix = keys.WriteField("")

// usableName returns why the lock called name cannot be used with c: an
// error wrapping ErrInvalidName, or ErrClosed; nil when it can. These are
// the checks every handle's operation makes, made by a handle.
func (c *Client) usableName(name string) error { return c.NewMutex(name).usable() }

// sight is the reads, queued in one pipeline, that tell a lock's kind.
type sight struct {
	typ    *redis.StatusCmd
	hash   *redis.MapStringStringCmd
	fair   *redis.IntCmd // how many of the fair queue's keys exist
	fairRW *redis.IntCmd // of the fair read-write queue's
	token  *redis.IntCmd // whether the fencing token counter exists
	// election is a leader election's record, if any.
	election *redis.MapStringStringCmd
}

// look queues in pipe the reads that tell the kind of the lock called name.
func look(ctx context.Context, pipe redis.Pipeliner, name string) *sight {
	return &sight{
		typ:    pipe.Type(ctx, name),
		hash:   pipe.HGetAll(ctx, name),
		fair:   pipe.Exists(ctx, keys.Queue(name), keys.Timeout(name), keys.FairWaiters(name)),
		fairRW: pipe.Exists(ctx, keys.RWQueue(name), keys.RWTimeout(name)),
		token:  pipe.Exists(ctx, keys.Token(name)),

		election: pipe.HGetAll(ctx, keys.Election(name)),
	}
}

// result is the lock's kind and hash (empty when not held), once the
// pipeline has run with the outcome err. A key of the lock's name that is
// not a lock is an error wrapping ErrWrongType (wrongKind of want, what
// the caller looks for, when it is not a hash), which comes before err:
// it explains the WRONGTYPE of the reads of the hash.
func (s *sight) result(want string, err error) (Kind, map[string]string, error) {
	if typ := s.typ.Val(); s.typ.Err() == nil && typ != "hash" && typ != "none" {
		return "", nil, wrongKind(typ, want)
	}
	if err != nil {
		return "", nil, err
	}
	hash := s.hash.Val()
	if len(hash) > 0 && !isLockHash(hash) {
		return "", nil, wrongKind("hash", "lock")
	}
	held := len(hash) > 0
	_, rw := hash[modeField]
	switch {
	case s.fairRW.Val() > 0 && (rw || !held):
		return KindFairRWMutex, hash, nil
	case rw:
		return KindRWMutex, hash, nil
	case len(s.election.Val()) > 0:
		return KindElection, hash, nil
	case s.fair.Val() > 0:
		return KindFairMutex, hash, nil
	case s.token.Val() > 0:
		return KindFencedMutex, hash, nil
	case held:
		return KindMutex, hash, nil
	}
	return "", hash, nil
}

// exec sends the commands queued in pipe in one round trip and returns
// the first error of one of them, leaving out redis.Nil (a missing key):
// the caller reads each command's own value.
func exec(ctx context.Context, pipe redis.Pipeliner) error {
	cmds, err := pipe.Exec(ctx)
	for _, cmd := range cmds {
		if err := cmd.Err(); err != nil && !errors.Is(err, redis.Nil) {
			return err
		}
	}
	if errors.Is(err, redis.Nil) {
		return nil
	}
	return err
}

// isLockHash reports whether the fields of a hash are a lock's: at least
// one owner field valued a positive hold count, and maybe a read-write
// lock's mode.
func isLockHash(hash map[string]string) bool {
	owners := 0
	for field, value := range hash {
		if field == modeField {
			if value != ModeRead && value != ModeWrite {
				return false
			}
			continue
		}
		if n, err := strconv.ParseInt(value, 10, 64); err != nil || n <= 0 || !isOwnerField(field) {
			return false
		}
		owners++
	}
	return owners > 0
}

// isOwnerField reports whether field has the shape of an owner id,
// "<client id>:<digits>", or of a writer's field, the same with ":write"
// after.
func isOwnerField(field string) bool {
	owner := strings.TrimSuffix(field, writeSuffix)
	i := strings.LastIndexByte(owner, ':')
	if i <= 0 || i == len(owner)-1 {
		return false
	}
	for _, r := range owner[i+1:] {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}
