package scripts

import (
	"context"
	_ "embed"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/internal/keys"
)

var (
	//go:embed rate_common.lua
	rateCommonSrc string
	//go:embed rate_acquire.lua
	rateAcquireSrc string
	//go:embed rate_available.lua
	rateAvailableSrc string
	//go:embed rate_set.lua
	rateSetSrc string
	//go:embed rate_release.lua
	rateReleaseSrc string
	//go:embed rate_delete.lua
	rateDeleteSrc string

	rateAcquire   = redis.NewScript(rateCommonSrc + rateAcquireSrc)
	rateAvailable = redis.NewScript(rateCommonSrc + rateAvailableSrc)
	rateSet       = redis.NewScript(countingSrc + rateCommonSrc + rateSetSrc)
	rateRelease   = redis.NewScript(countingSrc + rateCommonSrc + rateReleaseSrc)
	rateDelete    = redis.NewScript(rateCommonSrc + rateDeleteSrc)
)

// RateLimiter is one rate limiter as one client sees it, Redisson's
// RRateLimiter: the config hash NAME, the available permits
// {NAME}:value, the permits taken within the last interval in the sorted
// set {NAME}:permits, and, for a limiter whose rate is per client, the
// client's own pair of them, {NAME}:value:<client id> and
// {NAME}:permits:<client id>; beside each pair, relock's ledger of it,
// {NAME}:ledger and {NAME}:ledger:<client id> (rate_common.lua). Times
// are epoch milliseconds of the caller's clock, used as given, as
// Redisson's are. It holds no state and is safe for concurrent use.
type RateLimiter struct {
	name    string
	keys    []string // Redisson's KEYS, in its order, then the ledgers
	channel string   // where relock's changes are announced
}

// NewRateLimiter returns the rate limiter called name, as the client
// with id client sees it.
func NewRateLimiter(name, client string) *RateLimiter {
	value, permits, ledger := keys.RateValue(name), keys.RatePermits(name), rateKey(name, "ledger")
	return &RateLimiter{name: name, keys: []string{name, value, keys.RateClient(value, client), permits, keys.RateClient(permits, client),
		ledger, keys.RateClient(ledger, client)}, channel: RateChannel(name)}
}

// rateKey is the key called suffix beside the limiter name's value, in
// its slot: "{name}:suffix".
func rateKey(name, suffix string) string {
	return strings.TrimSuffix(keys.RateValue(name), "value") + suffix
}

// RateChannel is the channel on which relock announces a change of the
// rate limiter name, "relock_rate:{name}" in its slot: its rate set,
// permits released, the limiter deleted. Redisson's clients announce
// nothing.
func RateChannel(name string) string {
	return "relock_rate" + strings.TrimPrefix(keys.TurnChannel(name), "relock_turns")
}

// RateConfig is a rate limiter's config, its hash's fields.
type RateConfig struct {
	Rate      int64         // permits per interval
	Interval  time.Duration // sent in milliseconds, rounded up
	PerClient bool          // type 1: each client has the rate
	KeepAlive time.Duration // keepAliveTime (0: none), as Interval
}

// MaxRate is the largest rate and the most permits of one acquisition:
// a member of the set holds its permits in 4 bytes.
const MaxRate = 1<<32 - 1

// ErrNoRate is the outcome of an operation on a rate limiter that has no
// rate set: nothing was changed.
var ErrNoRate = errors.New("no rate set")

// ErrOverRate is the cause of an acquisition of more permits than the
// limiter's rate, which it could never grant. Nothing was changed.
var ErrOverRate = errors.New("more permits than the rate")

// RateAttempt is the outcome of an acquisition of a rate limiter's
// permits.
type RateAttempt struct {
	OK bool // the permits were taken
	// Left is the permits available after the attempt (0 for a resend).
	Left int64
	// Wait is, when they were not taken and the caller asked, how long
	// after its stamp until enough come back, unless others take them.
	Wait time.Duration
	// Interval is the limiter's.
	Interval time.Duration
	// Foreign is the permits within the interval that clients other than
	// relock's took (-1: not counted, for a refusal read from the count
	// alone).
	Foreign int64
}

// Acquire takes n permits (1 to MaxRate) at now if they are available
// beside reserve more (kept for others); when not, and if told, it says
// when enough come back. Each call is a new acquisition, whose resends by
// go-redis find it taken rather than take more. It returns ErrNoRate, or
// an error wrapping ErrOverRate that says the rate.
func (r *RateLimiter) Acquire(ctx context.Context, rdb redis.Scripter, n, reserve int64, now time.Time, tell bool) (RateAttempt, error) {
	v, err := rateAcquire.Run(ctx, rdb, r.keys, n, now.UnixMilli(), Member(n), flag(tell), reserve).Int64Slice()
	if err != nil {
		return RateAttempt{}, err
	}
	if len(v) < 4 || v[0] >= 0 && len(v) != 5 {
		return RateAttempt{}, fmt.Errorf("rate limiter script replied %v", v)
	}
	a := RateAttempt{OK: v[0] == 1, Left: v[2], Interval: time.Duration(v[3]) * time.Millisecond}
	switch v[0] {
	case 1:
		a.Foreign = v[4]
		return a, nil
	case 0:
		a.Wait, a.Foreign = time.Duration(v[1])*time.Millisecond, v[4]
		return a, nil
	case -1:
		return RateAttempt{}, ErrNoRate
	}
	return RateAttempt{}, fmt.Errorf("%w: %d permits, the rate is %d", ErrOverRate, n, v[1])
}

// Member is a new member of the set of permits for an acquisition of n:
// the length of its id, its random bytes, and n in 4 bytes,
// little-endian, as Redisson writes them; relock's ids are 17 bytes long,
// Redisson's 16, so that relock's scripts tell the two apart.
func Member(n int64) string {
	b := make([]byte, 0, 22)
	b = append(b, 17, byte(rand.Uint32()))
	b = binary.LittleEndian.AppendUint64(b, rand.Uint64())
	b = binary.LittleEndian.AppendUint64(b, rand.Uint64())
	b = binary.LittleEndian.AppendUint32(b, uint32(n))
	return string(b)
}

// Available is the number of permits available at now, or ErrNoRate.
func (r *RateLimiter) Available(ctx context.Context, rdb redis.Scripter, now time.Time) (int64, error) {
	v, err := rateAvailable.Run(ctx, rdb, r.keys, now.UnixMilli()).Int64Slice()
	switch {
	case err != nil:
		return 0, err
	case len(v) != 2:
		return 0, fmt.Errorf("rate limiter script replied %v", v)
	case v[0] == -1:
		return 0, ErrNoRate
	}
	return v[1], nil
}

// Set sets the rate to c, or, if only, only when the limiter has no rate,
// as request req, and reports whether it did. Setting it when not only
// resets the limiter: all its permits are available, overall and this
// client's; when only, the permits taken are kept (a config lost alone).
// A rate set is announced on the channel with the command publish.
func (r *RateLimiter) Set(ctx context.Context, rdb redis.Scripter, c RateConfig, only bool, req Request, publish string) (bool, error) {
	typ := 0
	if c.PerClient {
		typ = 1
	}
	args := append([]any{c.Rate, Millis(c.Interval), typ, Millis(c.KeepAlive), flag(only)}, req.args()...)
	v, err := rateSet.Run(ctx, rdb, r.with(req.records(r.name), r.channel), append(args, publish)...).Int64()
	return v == 1, err
}

// Release gives back up to n permits taken within the interval at now,
// the latest taken first, as request req, and returns how many it gave
// back; or ErrNoRate. Permits given back are announced on the channel
// with the command publish.
func (r *RateLimiter) Release(ctx context.Context, rdb redis.Scripter, n int64, now time.Time, req Request, publish string) (int64, error) {
	args := append([]any{n, now.UnixMilli()}, req.args()...)
	v, err := rateRelease.Run(ctx, rdb, r.with(req.records(r.name), r.channel), append(args, publish)...).Int64()
	if err == nil && v < 0 {
		return 0, ErrNoRate
	}
	return v, err
}

// Delete deletes the limiter's config and state (this client's own too)
// and reports whether it had a rate; the deletion of a rate is announced
// on the channel with the command publish.
func (r *RateLimiter) Delete(ctx context.Context, rdb redis.Scripter, publish string) (bool, error) {
	v, err := rateDelete.Run(ctx, rdb, r.with(r.channel), publish).Int64()
	return v == 1, err
}

// with is the limiter's keys followed by more.
func (r *RateLimiter) with(more ...string) []string {
	return append(append(make([]string, 0, len(r.keys)+len(more)), r.keys...), more...)
}

// ParseRateConfig reads a rate limiter's config from the fields of its
// hash, as HGETALL returns them; false when they are not one's (a
// missing or malformed field).
func ParseRateConfig(h map[string]string) (RateConfig, bool) {
	rate, err1 := strconv.ParseInt(h["rate"], 10, 64)
	interval, err2 := strconv.ParseInt(h["interval"], 10, 64)
	keep := int64(0)
	var err3 error
	if v, ok := h["keepAliveTime"]; ok {
		keep, err3 = strconv.ParseInt(v, 10, 64)
	}
	typ := h["type"]
	if err1 != nil || err2 != nil || err3 != nil || (typ != "0" && typ != "1") {
		return RateConfig{}, false
	}
	return RateConfig{Rate: rate, Interval: time.Duration(interval) * time.Millisecond, PerClient: typ == "1", KeepAlive: time.Duration(keep) * time.Millisecond}, true
}

// Config reads the limiter's config: ErrNoRate when it has none; an
// error whose text holds WRONGTYPE when its name holds something else.
func (r *RateLimiter) Config(ctx context.Context, rdb redis.Cmdable) (RateConfig, error) {
	h, err := rdb.HGetAll(ctx, r.name).Result()
	switch {
	case err != nil:
		return RateConfig{}, err
	case len(h) == 0:
		return RateConfig{}, ErrNoRate
	}
	c, ok := ParseRateConfig(h)
	if !ok {
		return RateConfig{}, errors.New("WRONGTYPE it is a hash that is not a rate limiter's config")
	}
	return c, nil
}
