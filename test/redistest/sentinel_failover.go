package redistest

import (
	"context"
	"fmt"
	"net"
	"time"

	"github.com/redis/go-redis/v9"
)

// Failover makes a Sentinel fail the master over to a replica (SENTINEL
// FAILOVER, which needs no quorum) and returns once AwaitNewMaster does.
//
// The former master keeps running, and accepts writes from clients that
// have not heard of the switch, until Sentinel demotes it to a replica of
// the new master (about 10 s later with Redis 7.0); those writes are then
// lost.
func (s *Sentinel) Failover(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	old, err := s.MasterAddr(ctx)
	if err != nil {
		return err
	}
	for _, sn := range s.sentinels {
		sc := redis.NewSentinelClient(adminOptions(sn.Addr))
		err = sc.Failover(ctx, sentinelMasterName).Err()
		_ = sc.Close()
		if err == nil {
			break
		}
	}
	if err != nil {
		return fmt.Errorf("sentinel failover: %w", err)
	}
	_, err = s.AwaitNewMaster(ctx, old)
	return err
}

// AwaitNewMaster waits until every Sentinel has switched to the same
// master other than old, with no failover in progress, and that server
// answers ROLE as a master; it returns the new master's host:port. Each
// Sentinel publishes +switch-master as it switches, so a failover client
// subscribed to any of them has been told (GET-MASTER-ADDR-BY-NAME alone
// does not say as much: the Sentinel leading a failover names the promoted
// replica while it still reconfigures the others). It follows KillMaster,
// to wait for the failover Sentinel starts on its own, and Failover.
func (s *Sentinel) AwaitNewMaster(ctx context.Context, old string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	var addr string
	err := waitUntil(ctx, "new master", func(ctx context.Context) error {
		addr = ""
		for _, sn := range s.sentinels {
			sc := redis.NewSentinelClient(adminOptions(sn.Addr))
			m, err := sc.Master(ctx, sentinelMasterName).Result()
			_ = sc.Close()
			if err != nil {
				return err
			}
			a := net.JoinHostPort(m["ip"], m["port"])
			switch {
			case a == old:
				return fmt.Errorf("sentinel %s still monitors %s", sn.Addr, old)
			case addr != "" && a != addr:
				return fmt.Errorf("sentinels monitor %s and %s", addr, a)
			case m["flags"] != "master":
				return fmt.Errorf("sentinel %s: master %s flags %q", sn.Addr, a, m["flags"])
			}
			addr = a
		}
		rdb := redis.NewClient(adminOptions(addr))
		defer rdb.Close()
		role, err := rdb.Do(ctx, "role").Slice()
		if err != nil {
			return err
		}
		if len(role) == 0 || role[0] != "master" {
			return fmt.Errorf("%s: role %v", addr, role)
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	return addr, nil
}

// KillMaster kills the master, as a Sentinel names it, with SIGKILL, and
// returns its host:port once the process has exited. Sentinel then fails
// it over on its own after SentinelDownAfter and a vote: AwaitNewMaster
// waits for that. It must not run concurrently with Close.
func (s *Sentinel) KillMaster(ctx context.Context) (string, error) {
	addr, err := s.MasterAddr(ctx)
	if err != nil {
		return "", err
	}
	for _, d := range s.data {
		if d.Addr != addr {
			continue
		}
		if err := d.cmd.Process.Kill(); err != nil {
			return "", fmt.Errorf("kill master %s: %w", addr, err)
		}
		// exit holds the process's one Wait result: take it to know the
		// process is gone, and put it back for Close.
		d.exit <- <-d.exit
		return addr, nil
	}
	return "", fmt.Errorf("master %s is none of the started servers", addr)
}
