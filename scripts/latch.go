package scripts

import (
	"context"
	_ "embed"

	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/internal/keys"
)

var (
	//go:embed latch_set.lua
	latchSetSrc string
	//go:embed latch_count_down.lua
	latchCountDownSrc string
	//go:embed latch_delete.lua
	latchDeleteSrc string

	latchSet       = newCounting(latchSetSrc)
	latchCountDown = newCounting(latchCountDownSrc)
	latchDelete    = newCounting(latchDeleteSrc)
)

// CountDownLatch is one count-down latch, Redisson's RCountDownLatch: the
// string key NAME holding the count (absent at zero) and the channel
// redisson_countdownlatch__channel__{NAME}, which hears "1" when a count
// is set and "0" when it reaches zero. It holds no state and is safe for
// concurrent use.
type CountDownLatch struct{ count }

// NewCountDownLatch returns the latch called name.
func NewCountDownLatch(name string) *CountDownLatch {
	return &CountDownLatch{count{name: name, channel: keys.LatchChannel(name)}}
}

// TrySet sets the count to n if the latch has none, and reports whether
// it did.
func (l *CountDownLatch) TrySet(ctx context.Context, rdb redis.Scripter, n int64, publish string) (bool, error) {
	return l.done(ctx, rdb, latchSet, keys.LatchNewCountMessage, n, publish)
}

// CountDown counts down by one as request r (see Request), and returns
// the count after it, the one the request made even when resent.
func (l *CountDownLatch) CountDown(ctx context.Context, rdb redis.Scripter, publish string, r Request) (int64, error) {
	return latchCountDown.Run(ctx, rdb, []string{l.name, l.channel, r.records(l.name)}, append([]any{keys.LatchZeroMessage, publish}, r.args()...)...).Int64()
}

// Delete deletes the latch, waking its waiters, and reports whether it
// had a count.
func (l *CountDownLatch) Delete(ctx context.Context, rdb redis.Scripter, publish string) (bool, error) {
	return l.done(ctx, rdb, latchDelete, keys.LatchZeroMessage, publish)
}
