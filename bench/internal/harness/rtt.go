package harness

import (
	"context"
	"time"

	"github.com/redis/go-redis/v9"
)

// PingRTT measures n PING round trips on rdb, back to back.
func PingRTT(ctx context.Context, rdb *redis.Client, n int) (Quantiles, error) {
	return pings(ctx, rdb, n, 0)
}

// PingAfterIdle measures n PING round trips on rdb, each after idle of
// sleep, as an Unlock after a critical section is sent: on a virtual
// machine, a client and a server that both went idle take longer to wake
// than back-to-back round trips show.
func PingAfterIdle(ctx context.Context, rdb *redis.Client, n int, idle time.Duration) (Quantiles, error) {
	return pings(ctx, rdb, n, idle)
}

func pings(ctx context.Context, rdb *redis.Client, n int, idle time.Duration) (Quantiles, error) {
	ds := make([]time.Duration, 0, n)
	for range n {
		if idle > 0 {
			time.Sleep(idle)
		}
		t := time.Now()
		if err := rdb.Ping(ctx).Err(); err != nil {
			return Quantiles{}, err
		}
		ds = append(ds, time.Since(t))
	}
	return summarise(ds), nil
}
