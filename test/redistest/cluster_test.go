package redistest

import (
	"context"
	"fmt"
	"strconv"
	"testing"
	"time"
)

func startCluster(t *testing.T, masters, replicasPerMaster int) *Cluster {
	t.Helper()
	begin := time.Now()
	c, err := StartCluster(masters, replicasPerMaster)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("cluster of %d masters, %d replicas each, started in %v", masters, replicasPerMaster, time.Since(begin).Round(time.Millisecond))
	t.Cleanup(func() {
		if err := c.Close(); err != nil {
			t.Errorf("close cluster: %v", err)
		}
	})
	return c
}

func TestClusterServesKeysOnEveryMaster(t *testing.T) {
	for _, shape := range []struct{ masters, replicasPerMaster int }{
		{3, 0},
		{3, 1},
	} {
		t.Run(fmt.Sprintf("%dx%d", shape.masters, shape.replicasPerMaster), func(t *testing.T) {
			t.Parallel()
			c := startCluster(t, shape.masters, shape.replicasPerMaster)
			rdb := c.Client(t)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()

			// The masters come first in Addrs. Find a key of each by
			// trying names.
			masters := c.Addrs()[:shape.masters]
			keyOf := make(map[string]string)
			for i := 0; len(keyOf) < len(masters) && i < 1000; i++ {
				key := "key" + strconv.Itoa(i)
				if m := c.MasterOf(key); keyOf[m] == "" {
					keyOf[m] = key
				}
			}
			for _, m := range masters {
				key := keyOf[m]
				if key == "" {
					t.Fatalf("no key of the first 1000 lands on master %s", m)
				}
				if err := rdb.Set(ctx, key, m, 0).Err(); err != nil {
					t.Fatalf("set %s: %v", key, err)
				}
				if got, err := getOn(ctx, m, key); err != nil || got != m {
					t.Errorf("GET %s on master %s = %q, %v; want %q", key, m, got, err, m)
				}
			}

			c.FlushAll(t)
			for _, m := range masters {
				if n, err := rdb.Exists(ctx, keyOf[m]).Result(); err != nil || n != 0 {
					t.Errorf("after FlushAll, EXISTS %s = %d, %v; want 0", keyOf[m], n, err)
				}
			}
		})
	}
}
