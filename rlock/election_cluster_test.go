package rlock

import (
	"fmt"
	"testing"
	"time"
)

func TestElectionOnCluster(t *testing.T) {
	t.Parallel() // on a Cluster of its own
	cluster, rdb := startCluster(t)
	for _, sharded := range []bool{false, true} {
		t.Run(fmt.Sprintf("sharded=%v", sharded), func(t *testing.T) {
			t.Parallel() // its own Clients and names
			skipUnlessSharded(t, sharded)
			ctx := ctxT(t)
			for _, name := range namesOnEveryMaster(t, cluster) {
				name = fmt.Sprintf("%s:%v", name, sharded)
				c1 := newClient(t, rdb, WithShardedPubSub(sharded))
				c2 := newClient(t, rdb, WithShardedPubSub(sharded))
				observed := c2.NewElection(name).Observe(ctx)
				nextLeader(t, observed, 5*time.Second)
				term := mustCampaign(t, c1.NewElection(name), "one")
				ch := campaignAsync(ctx, c2.NewElection(name), "two")
				if l := nextLeader(t, observed, 5*time.Second); l.Value != "one" {
					t.Fatalf("%s: observed %+v, want one", name, l)
				}
				// Resign's grant and the announcement reach the others at
				// pub/sub speed.
				mustResign(t, term)
				next := awaitTerm(t, ch, 5*time.Second)
				if l := nextLeader(t, observed, 5*time.Second); l != (Leader{}) {
					t.Fatalf("%s: observed %+v, want none", name, l)
				}
				if l := nextLeader(t, observed, 5*time.Second); l.Value != "two" || l.Token != next.Token() {
					t.Fatalf("%s: observed %+v, want two", name, l)
				}
				if info, err := c1.Inspect(ctx, name); err != nil || info.Kind != KindElection || info.Leader == nil || info.Leader.Token != next.Token() {
					t.Fatalf("%s: Inspect = %+v, %v", name, info, err)
				}
				mustResign(t, next)
			}
		})
	}
}
