package main

import (
	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/rlock"
	"github.com/relock-go/relock/test/proof/store"
)

// startCluster makes the cluster namespace's Client, with opts, on a
// go-redis cluster client that reaches every node through its proxy
// (-via): the nodes' addresses in CLUSTER SLOTS are their own.
func (w *worker) startCluster(opts []rlock.Option) error {
	w.cluster = redis.NewClusterClient(&redis.ClusterOptions{Addrs: w.c.cluster, Dialer: w.c.dial,
		DialTimeout: dialTimeout, ReadTimeout: ioTimeout, WriteTimeout: ioTimeout})
	w.cluster.AddHook(queuedHook{})
	lc, err := rlock.New(w.cluster, opts...)
	if err != nil {
		return err
	}
	w.locks[store.Cluster] = lc
	return nil
}
