package rlock

import (
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/test/redistest"
)

// startReplica starts a replica of srv and waits until it is in sync.
func startReplica(t *testing.T) *redistest.Server {
	t.Helper()
	// Sync at once rather than after Redis's default 5s grace for more
	// replicas to join.
	if err := srv.Client(t).ConfigSet(t.Context(), "repl-diskless-sync-delay", "0").Err(); err != nil {
		t.Fatal(err)
	}
	host, port, _ := net.SplitHostPort(srv.Addr)
	replica, err := redistest.Start("--replicaof", host, port)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = replica.Close() })
	rdb := redis.NewClient(&redis.Options{Addr: replica.Addr})
	defer rdb.Close()
	eventually(t, 10*time.Second, "replica in sync", func() bool {
		info, _ := rdb.Info(t.Context(), "replication").Result()
		return strings.Contains(info, "master_link_status:up")
	})
	return replica
}

func TestReplicaAckWaitsForReplicas(t *testing.T) {
	rdb := newRedis(t)
	ctx := ctxT(t)
	startReplica(t)

	c := newClient(t, rdb, WithReplicaAck(1, 2*time.Second))
	m := c.NewMutex("replicated")
	if err := m.Lock(ctx); err != nil {
		t.Fatalf("Lock with one replica acknowledging: %v", err)
	}
	if err := m.Unlock(ctx); err != nil {
		t.Fatal(err)
	}

	// Two replicas asked for, one exists: the acquisition is undone.
	strict := newClient(t, rdb, WithReplicaAck(2, 100*time.Millisecond))
	for _, try := range []func() error{
		func() error { return strict.NewMutex("replicated").Lock(ctx) },
		func() error { _, err := strict.NewFencedMutex("replicated").Lock(ctx); return err },
		func() error { return strict.NewFairMutex("replicated").Lock(ctx) },
	} {
		if err := try(); !errors.Is(err, ErrNotReplicated) {
			t.Fatalf("Lock with too few replicas = %v, want ErrNotReplicated", err)
		}
		if n := rdb.Exists(ctx, "replicated").Val(); n != 0 {
			t.Fatal("an acquisition without enough replicas was left held")
		}
	}
}

func TestReplicaAckNeedsAClientWithConnections(t *testing.T) {
	ring := redis.NewRing(&redis.RingOptions{Addrs: map[string]string{"a": srv.Addr}})
	defer ring.Close()
	if _, err := New(ring, WithReplicaAck(1, time.Second)); err == nil {
		t.Fatal("WithReplicaAck accepted a Ring")
	}
	if _, err := New(srv.Client(t), WithReplicaAck(0, time.Second)); err == nil {
		t.Fatal("WithReplicaAck accepted zero replicas")
	}
}

// A term's token is taken after its lock was acquired, by a script of its
// own: with WithReplicaAck it waits for the replicas too. Here the replica
// goes away between the two (the observer of the lock's acquisition
// detaches it), so the token is acknowledged by nobody: the campaign fails
// with ErrNotReplicated and gives the lock back, rather than begin a term
// whose token a failover could hand out again.
func TestReplicaAckCoversATermsToken(t *testing.T) {
	rdb := newRedis(t)
	ctx := ctxT(t)
	replica := startReplica(t)
	detach := func(e Event) {
		if e.Type != EventAcquired || e.Kind != KindElection {
			return
		}
		r := redis.NewClient(&redis.Options{Addr: replica.Addr})
		defer r.Close()
		if err := r.ReplicaOf(ctx, "NO", "ONE").Err(); err != nil {
			t.Error(err)
		}
	}
	c := newClient(t, rdb, WithReplicaAck(1, 200*time.Millisecond), WithObserver(ObserverFunc(detach)))
	term, err := c.NewElection("acked-term").Campaign(ctx, "a")
	if !errors.Is(err, ErrNotReplicated) {
		t.Fatalf("Campaign whose token no replica acknowledged = %v, %v; want ErrNotReplicated", term, err)
	}
	if n := rdb.Exists(ctx, "acked-term").Val(); n != 0 {
		t.Fatal("a campaign whose token was not acknowledged kept the lock")
	}
}
