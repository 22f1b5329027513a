//go:build unix

package redistest

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// A stopped master answers nobody until it is continued, and keeps its
// data; a killed one, restarted, is made the new master's replica by the
// Sentinels.
func TestSentinelNodeStoppedContinuedAndRestarted(t *testing.T) {
	t.Parallel()
	s := SentinelFor(t, 1, 3)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	master, err := s.MasterAddr(ctx)
	if err != nil {
		t.Fatal(err)
	}
	rdb := redis.NewClient(&redis.Options{Addr: master, ReadTimeout: 200 * time.Millisecond, MaxRetries: -1})
	defer rdb.Close()
	if err := rdb.Set(ctx, "k", "v", 0).Err(); err != nil {
		t.Fatal(err)
	}
	if err := s.StopNode(master); err != nil {
		t.Fatal(err)
	}
	if err := rdb.Ping(ctx).Err(); err == nil {
		t.Fatal("a stopped master answered PING")
	}
	if err := s.ContinueNode(master); err != nil {
		t.Fatal(err)
	}
	if v, err := getOn(ctx, master, "k"); err != nil || v != "v" {
		t.Fatalf("continued master: GET k = %q, %v; want v", v, err)
	}

	old, err := s.KillMaster(ctx)
	if err != nil {
		t.Fatal(err)
	}
	now, err := s.AwaitNewMaster(ctx, old)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.RestartNode(old, now); err != nil {
		t.Fatal(err)
	}
	restarted := redis.NewClient(adminOptions(old))
	defer restarted.Close()
	if role, err := restarted.Do(ctx, "role").Slice(); err != nil || len(role) == 0 || role[0] != "slave" {
		t.Fatalf("restarted node: ROLE = %v, %v; want a replica from the start", role, err)
	}
	err = waitUntil(ctx, "restarted node a replica of "+now, func(ctx context.Context) error {
		r := redis.NewClient(adminOptions(old))
		defer r.Close()
		info, err := r.Info(ctx, "replication").Result()
		if err == nil && (!strings.Contains(info, "role:slave") || !strings.Contains(info, "master_link_status:up")) {
			err = fmt.Errorf("not a replica in sync yet")
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if v, err := getOn(ctx, old, "k"); err != nil || v != "v" {
		t.Fatalf("restarted node in sync: GET k = %q, %v; want v", v, err)
	}
	if err := s.RestartNode("127.0.0.1:1", now); err == nil {
		t.Error("RestartNode of no data node succeeded")
	}
}
