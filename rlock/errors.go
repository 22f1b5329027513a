package rlock

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/internal/keys"
	"github.com/relock-go/relock/pubsub"
)

// Error is the error every operation of this package returns: it names the
// operation and the lock, and wraps the cause, so that errors.Is finds the
// sentinels below, a ctx error (context.Canceled, context.DeadlineExceeded)
// and a Redis error alike, and errors.As finds the lock's name. Its text is
// `rlock: OP "NAME": CAUSE`, or `rlock: OP: CAUSE` for an operation on no
// single lock.
type Error struct {
	Op   string // what was asked: "lock", "unlock", "extend", "new client", ...
	Name string // the lock's name; empty for an operation on no single lock
	Err  error  // the cause
}

func (e *Error) Error() string {
	if e.Name == "" {
		return "rlock: " + e.Op + ": " + e.Err.Error()
	}
	return "rlock: " + e.Op + " " + strconv.Quote(e.Name) + ": " + e.Err.Error()
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

var (
	// ErrNotHeld is the cause of an Unlock, Reenter, Extend or Context of
	// an owner that does not hold the lock: it never did, already fully
	// unlocked it, or lost it (expiry, force-unlock); of TTL when no owner
	// holds the lock; and of a PermitExpirableSemaphore's Release of a
	// permit that is not leased. Nothing was changed in Redis.
	ErrNotHeld = errors.New("lock not held by this owner")

	// ErrLost is the cause (context.Cause) of a hold's Context ending
	// because the hold was lost without Unlock: see Mutex.Lost.
	ErrLost = errors.New("lock lost")

	// ErrClosed is the cause of every operation after Client.Close, and of
	// waits that Close interrupted.
	ErrClosed = errors.New("client closed")

	// ErrInvalidName is the cause of every operation of a lock whose name
	// cannot be used: empty, or with braces but no hash tag ("a}b", "a{b",
	// "{", "{}", "a{}b"), which Redisson's naming rule would put in another
	// Redis Cluster slot than the lock. The rule is the same on every
	// topology, a single node included, so that a name tried on one works
	// on all. A semaphore's or latch's name follows Redisson's rule
	// instead: only the empty name is refused everywhere, and on Redis
	// Cluster one whose channel would land in another slot than its key.
	// The error's text says which.
	ErrInvalidName = errors.New("invalid lock name")

	// ErrInvalidDuration is the cause of an operation or Option given a
	// duration it cannot use, before anything is sent to Redis: any
	// negative wait, lease or timeout; a lease or timeout below one
	// millisecond (the resolution of Redis expiries), a fixed lease of 0
	// included; an Option's duration below its minimum. The error's text
	// says which duration and why ("wait -1s is negative"). A wait of 0 is
	// one attempt, and a lease of 0 means what each method says (see
	// docs/semantics.md, Durations).
	ErrInvalidDuration = errors.New("invalid duration")

	// ErrWrongType is the cause of an operation on a lock, semaphore or
	// latch whose name holds a Redis value of another kind: a key of
	// another type (a string, a list, ...), a hash that is not a lock, a
	// string that is not a count, and likewise for a permit-expirable
	// semaphore's lease set and a Client's request records. The operation
	// fails at once and changes nothing; the object cannot be used until
	// that key is removed. The Redis error is wrapped too; the text says
	// what the key holds, without a script's SHA1 or line.
	ErrWrongType = errors.New("key holds a value of another kind")

	// ErrInvalidSet is the cause of every operation of a MultiLock whose
	// set of members is unusable: empty, with a nil member or a member with
	// an empty name, naming one lock twice on one Redis, or, for a RedLock,
	// with two members on one Redis.
	ErrInvalidSet = errors.New("invalid lock set")

	// ErrNotReplicated is the cause of an acquisition that WithReplicaAck
	// made wait for replicas, when too few acknowledged it in time. The
	// acquisition was undone: the lock is not held by it.
	ErrNotReplicated = errors.New("acquisition not acknowledged by enough replicas")

	// ErrSubscriptionRefused is the cause (with the server's error) of an
	// acquisition that had to wait on a channel the server refuses to
	// subscribe: a Redis ACL without the channel (NOPERM). It fails as
	// soon as the refusal comes; the waiters of other channels are not
	// affected. See docs/deployment.md for the channels to grant.
	ErrSubscriptionRefused = pubsub.ErrRefused
)

// opError wraps err, the outcome of operation op on the lock called name,
// in an *Error. An error that already is one (or joins them) is returned
// as it is, so that no text says "rlock:" twice; a Redis WRONGTYPE error
// also wraps ErrWrongType.
func opError(op, name string, err error) error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		return err
	}
	if isWrongType(err) && !errors.Is(err, ErrWrongType) {
		err = wrongTypeError{err}
	}
	return &Error{Op: op, Name: name, Err: err}
}

// wrongTypeError is a Redis WRONGTYPE error as the cause of an operation:
// it wraps ErrWrongType and the Redis error, and its text is what Redis
// said of the key, without the SHA1 and line of the script that met it.
type wrongTypeError struct{ redis error }

func (e wrongTypeError) Error() string {
	return ErrWrongType.Error() + ": " + wrongTypeDetail(e.redis.Error())
}

// Unwrap returns ErrWrongType and the Redis error.
func (e wrongTypeError) Unwrap() []error { return []error{ErrWrongType, e.redis} }

// wrongKind is the cause of an operation that found a value of Redis type
// typ at a key where it wants a want ("lock", "count"): it wraps
// ErrWrongType, and its text says what the key holds as the scripts say
// it: "it is a string, not a lock", and "it is a hash that is not a lock"
// when the type is want's but the value is not one.
func wrongKind(typ, want string) error {
	if typ == typeOf(want) {
		return fmt.Errorf("%w: it is a %s that is not a %s", ErrWrongType, typ, want)
	}
	return fmt.Errorf("%w: it is a %s, not a %s", ErrWrongType, typ, want)
}

// typeOf is the Redis type of a want of wrongKind.
func typeOf(want string) string {
	if want == "count" {
		return "string"
	}
	return "hash"
}

// genericWrongType is Redis's own WRONGTYPE error: a command met a key of
// another type, and the error does not say which key or what it holds.
const genericWrongType = "WRONGTYPE Operation against a key holding the wrong kind of value"

// named returns err, when it is Redis's generic WRONGTYPE met by an
// operation on the object called name, as what name holds (wrongKind of
// want), read from rdb with one TYPE; err as it is otherwise, and when
// name holds a value of want's type (another key of the object's met it).
func named(ctx context.Context, rdb redis.Cmdable, name, want string, err error) error {
	if err == nil || !strings.Contains(err.Error(), genericWrongType) {
		return err
	}
	typ, terr := rdb.Type(ctx, name).Result()
	if terr != nil || typ == "none" || typ == typeOf(want) {
		return err
	}
	return wrongKind(typ, want)
}

// scriptSuffix is what Redis 7 and Valkey add to the error of a command
// that failed in a script: " script: SHA1, on @user_script:LINE.".
var scriptSuffix = regexp.MustCompile(` script: [0-9a-f]{40}.*$`)

// wrongTypeDetail is the text of a WRONGTYPE error after its code (Redis
// 6.2 puts the script's name and line before it), without the suffix that
// names the script: what a script said the key holds ("it is a string,
// not a count"), or Redis's own text.
func wrongTypeDetail(msg string) string {
	if i := strings.Index(msg, "WRONGTYPE"); i >= 0 {
		msg = msg[i+len("WRONGTYPE"):]
	}
	return strings.TrimSpace(scriptSuffix.ReplaceAllString(msg, ""))
}

// isWrongType reports whether err is Redis's WRONGTYPE, alone or as the
// failure of a script's command.
func isWrongType(err error) bool {
	return err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) &&
		strings.Contains(err.Error(), "WRONGTYPE")
}

// checkName is the one rule lock names follow on every topology (see
// ErrInvalidName): nil for a usable name, else the cause that every
// operation of the lock reports. The same rule on a single node as on a
// Cluster means that code tried on one works on the other.
func checkName(name string) error {
	switch {
	case name == "":
		return fmt.Errorf("%w: the name is empty", ErrInvalidName)
	case !keys.KeepsSlot(name):
		return fmt.Errorf("%w: %q has braces but no hash tag (text between its first \"{\" and the next \"}\"), so its channel and keys would hash to another Redis Cluster slot than the lock", ErrInvalidName, name)
	}
	return nil
}
