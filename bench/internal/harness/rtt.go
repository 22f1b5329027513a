package harness

import (
	"context"
	"time"

	"github.com/redis/go-redis/v9"
)

// PingRTT measures n PING round trips on rdb.
func PingRTT(ctx context.Context, rdb *redis.Client, n int) (Quantiles, error) {
	ds := make([]time.Duration, 0, n)
	for range n {
		t := time.Now()
		if err := rdb.Ping(ctx).Err(); err != nil {
			return Quantiles{}, err
		}
		ds = append(ds, time.Since(t))
	}
	return summarise(ds), nil
}
