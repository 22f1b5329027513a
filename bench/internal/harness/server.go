package harness

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/relock-go/relock/test/redistest"
)

// Redis returns the address of the Redis server the benchmarks run
// against, and a function that stops it: the server named by the
// REDIS_ADDR environment variable when that is set (stop then does
// nothing), and otherwise a redis-server started on a free loopback port
// with persistence off (redistest.Start).
func Redis() (addr string, stop func() error, err error) {
	if addr := os.Getenv("REDIS_ADDR"); addr != "" {
		return addr, func() error { return nil }, nil
	}
	srv, err := redistest.Start()
	if err != nil {
		return "", nil, err
	}
	return srv.Addr, srv.Close, nil
}

// RedisCluster returns seed addresses of the Redis Cluster the cluster
// scenario runs on, and a function that stops it: the nodes named, comma
// separated, by the REDIS_CLUSTER_ADDRS environment variable when that is
// set (stop then does nothing), and otherwise a cluster of masters masters
// without replicas started on free loopback ports
// (redistest.StartCluster).
func RedisCluster(masters int) (addrs []string, stop func() error, err error) {
	if env := os.Getenv("REDIS_CLUSTER_ADDRS"); env != "" {
		for _, a := range strings.Split(env, ",") {
			if a = strings.TrimSpace(a); a != "" {
				addrs = append(addrs, a)
			}
		}
		return addrs, func() error { return nil }, nil
	}
	c, err := redistest.StartCluster(masters, 0)
	if err != nil {
		return nil, nil, err
	}
	return c.Addrs(), c.Close, nil
}

// Main runs run against the benchmarks' Redis (Redis) and stops the
// server when run returns; an error, Redis's or run's, is printed and the
// program exits with status 1.
func Main(run func(ctx context.Context, addr string) error) {
	addr, stop, err := Redis()
	if err == nil {
		err = run(context.Background(), addr)
		_ = stop()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
