// Package store is what the proof fleet's locks guard, and the names its
// processes share.
//
// The guarded data lives on a redis-server of its own, the resource, which
// no fault touches: it stands for the database a lock protects, reachable
// while the lock service is not. Every operation on it is one command or
// one Lua script, so it is atomic; the scripts are the files in lua/, run
// by the Go worker from this package and by the Java worker from the
// files themselves.
//
//   - A fenced register (fenced counter, election): a hash whose read
//     raises the highest token it has seen and whose write is accepted only
//     with a token at least that high (read.lua, write.lua).
//   - A plain register (plain counter, read-write lock): a string read with
//     GET and written with SET, no fencing.
//   - An inside count (semaphores): holders mark in and out, and each
//     process's marks are counted apart, so that the marks of a process
//     killed inside can be taken out (enter.lua, leave.lua, forget.lua).
//   - The epoch of each workload of each namespace: the objects a workload
//     uses are named after it, and the nemesis moves a workload to fresh
//     objects once a fault has left its old ones in a state no user would
//     run on (a semaphore whose permits a lost write changed).
//
// Like every package under test/, it exists for relock's own tests and
// makes no compatibility promise.
package store

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"strings"

	"github.com/redis/go-redis/v9"
)

// The workloads, as the history names them.
const (
	Fenced      = "fenced"
	Plain       = "plain"
	Fair        = "fair"
	RW          = "rw"
	Semaphore   = "semaphore"
	PESemaphore = "pesemaphore"
	Election    = "election"
	FairRW      = "fairrw"
	Latch       = "latch"
	Rate        = "rate"
	RedLock     = "redlock"
)

// Workloads lists every workload: a run takes them all when none are
// named.
var Workloads = []string{Fenced, Plain, Fair, RW, Semaphore, PESemaphore, Election, FairRW, Latch, Rate, RedLock}

// GoOnly lists the workloads Redisson has no counterpart of: only the Go
// processes run them.
var GoOnly = []string{FairRW}

// The namespaces: where the lock service of a workload's objects runs.
const (
	// Single is one redis-server with AOF, each process reaching it
	// through a proxy of its own (network faults, restarts, SCRIPT FLUSH).
	Single = "single"
	// Ack is a Sentinel-managed master and replica, the Go side with
	// WithReplicaAck and the Java side with Redisson's default wait for
	// a replica.
	Ack = "ack"
	// NoAck is the same Sentinel deployment, neither side waiting for a
	// replica.
	NoAck = "noack"
)

// RedLockService names the lock service of the redlock workload: three
// independent redis-servers, which its objects of namespace Single use
// (the other namespaces run no redlock).
const RedLockService = "redlock"

// Cluster is a Redis Cluster of three masters with a replica each,
// neither side waiting for replicas; only runs that ask for it
// (fleet.Config.Cluster) have it, and it is not in Namespaces.
const Cluster = "cluster"

// Namespaces lists every namespace a run has by default.
var Namespaces = []string{Single, Ack, NoAck}

// Object is the name in Redis of a workload's object in a namespace at an
// epoch: "proof:single:fenced:0".
func Object(namespace, workload string, epoch int64) string {
	return fmt.Sprintf("proof:%s:%s:%d", namespace, workload, epoch)
}

// Warmup is the name of the object of workload in namespace that process
// alone uses before it joins the others: "proof:single:fenced:warmup-go-1".
func Warmup(namespace, workload, process string) string {
	return fmt.Sprintf("proof:%s:%s:warmup-%s", namespace, workload, process)
}

// Keys of the resource server.
func registerKey(object string) string { return "reg:" + object }
func insideKey(object string) string   { return "in:" + object }
func marksKey(object string) string    { return "in:" + object + ":procs" }
func epochKey(namespace, workload string) string {
	return "epoch:" + namespace + ":" + workload
}

// marksPattern matches the keys of every inside count's marks by process.
const marksPattern = "in:*:procs"

var (
	//go:embed lua/read.lua
	readLua string
	//go:embed lua/write.lua
	writeLua string
	//go:embed lua/enter.lua
	enterLua string
	//go:embed lua/leave.lua
	leaveLua string
	//go:embed lua/forget.lua
	forgetLua string

	readScript   = redis.NewScript(readLua)
	writeScript  = redis.NewScript(writeLua)
	enterScript  = redis.NewScript(enterLua)
	leaveScript  = redis.NewScript(leaveLua)
	forgetScript = redis.NewScript(forgetLua)
)

// Store is the resource server, as one process uses it.
type Store struct {
	rdb     *redis.Client
	process string
}

// New returns the store on rdb for process (whose marks it counts).
func New(rdb *redis.Client, process string) *Store {
	return &Store{rdb: rdb, process: process}
}

// Read reads object's fenced register with token: its value, and the
// register has now seen token.
func (s *Store) Read(ctx context.Context, object string, token int64) (int64, error) {
	return readScript.Run(ctx, s.rdb, []string{registerKey(object)}, token).Int64()
}

// Write offers value to object's fenced register with token, and reports
// whether it was accepted.
func (s *Store) Write(ctx context.Context, object string, token, value int64) (bool, error) {
	n, err := writeScript.Run(ctx, s.rdb, []string{registerKey(object)}, token, value).Int64()
	return n == 1, err
}

// Get reads object's plain register (0 when never written).
func (s *Store) Get(ctx context.Context, object string) (int64, error) {
	n, err := s.rdb.Get(ctx, registerKey(object)).Int64()
	if errors.Is(err, redis.Nil) {
		return 0, nil
	}
	return n, err
}

// Set writes object's plain register.
func (s *Store) Set(ctx context.Context, object string, value int64) error {
	return s.rdb.Set(ctx, registerKey(object), value, 0).Err()
}

// Enter marks the process in object's section and returns how many are
// inside now.
func (s *Store) Enter(ctx context.Context, object string) (int64, error) {
	return enterScript.Run(ctx, s.rdb, []string{insideKey(object), marksKey(object)}, s.process).Int64()
}

// Leave marks the process out of object's section and returns how many
// are inside now.
func (s *Store) Leave(ctx context.Context, object string) (int64, error) {
	return leaveScript.Run(ctx, s.rdb, []string{insideKey(object), marksKey(object)}, s.process).Int64()
}

// Epoch returns the current epoch of workload in namespace (0 at first).
func (s *Store) Epoch(ctx context.Context, namespace, workload string) (int64, error) {
	n, err := s.rdb.Get(ctx, epochKey(namespace, workload)).Int64()
	if errors.Is(err, redis.Nil) {
		return 0, nil
	}
	return n, err
}

// NextEpoch moves workload in namespace to its next epoch and returns it.
func NextEpoch(ctx context.Context, rdb *redis.Client, namespace, workload string) (int64, error) {
	return rdb.Incr(ctx, epochKey(namespace, workload)).Result()
}

// Forget takes the marks of process, which is dead, out of every section
// and returns how many it took out. Run it once the process's connections
// are gone (Connected), so that no command of it is still on its way.
func Forget(ctx context.Context, rdb *redis.Client, process string) (int64, error) {
	var total int64
	iter := rdb.Scan(ctx, 0, marksPattern, 100).Iterator()
	for iter.Next(ctx) {
		marks := iter.Val()
		inside := marks[:len(marks)-len(":procs")]
		n, err := forgetScript.Run(ctx, rdb, []string{inside, marks}, process).Int64()
		if err != nil {
			return total, err
		}
		total += n
	}
	return total, iter.Err()
}

// Connected reports whether the resource server still has a connection
// named process: each process names its connections to it after itself,
// and a dead process's commands have all run once its last connection is
// gone.
func Connected(ctx context.Context, rdb *redis.Client, process string) (bool, error) {
	list, err := rdb.ClientList(ctx).Result()
	if err != nil {
		return false, err
	}
	for _, line := range strings.Split(list, "\n") {
		for _, field := range strings.Fields(line) {
			if field == "name="+process {
				return true, nil
			}
		}
	}
	return false, nil
}
