// Package bench holds relock's benchmarks, in a module of their own so
// that their dependencies (the compared libraries, the plotting library)
// stay out of the library's go.mod.
//
// The go test microbenchmarks in this directory time single operations of
// rlock.Mutex against a real redis-server:
//
//	go test -run '^$' -bench . -benchmem
//
// The comparison of strategies under contention is the relock-bench
// command (cmd/relock-bench, `make bench`); its scenarios are uncontended,
// contention, readwrite (90% reads on one hot lock, RWMutex against
// Mutex), many, watchdog and cluster. The election-bench command
// (cmd/election-bench) measures a leader election's hand-over time, after
// a Resign and after the leader's process is killed. They start their own
// redis-server on a free loopback port (with the main module's
// test/redistest) unless REDIS_ADDR names one; relock-bench's cluster
// scenario likewise starts a 3-master Redis Cluster unless
// REDIS_CLUSTER_ADDRS names seed nodes of one.
package bench
