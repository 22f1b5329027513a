package harness

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/relock-go/relock/bench/internal/redisson"
)

// JavaWaiters puts real Redisson among a many-locks run's waiters: on
// each of Names of its locks, a Redisson peer in worker mode whose
// Threads threads each take the lock once, wait for it while it is held,
// and take their turn in the drain.
type JavaWaiters struct {
	Jar     string // the peer's jar (redisson.Jar)
	Names   int
	Threads int
}

// javaRun is the peers of one run.
type javaRun struct {
	peers    []*redisson.Peer
	channels []string // each peer's lock channel
	threads  int
}

// javaStartTimeout bounds a JVM's start and Redisson's connect.
const javaStartTimeout = 2 * time.Minute

// startJava starts the run's Redisson waiters, if it has any, on Java.Names
// of names spread over them (and so over a Cluster's slots), blocked
// until released.
func (m ManyLocks) startJava(ctx context.Context, names []string) (*javaRun, error) {
	j := m.Java
	if j.Names <= 0 {
		return nil, nil
	}
	var picked []string
	for i := range min(j.Names, len(names)) {
		picked = append(picked, names[i*len(names)/j.Names])
	}
	seeds := m.Cluster
	if len(seeds) == 0 {
		seeds = []string{m.Addr}
	}
	return j.start(ctx, picked, seeds, len(m.Cluster) > 0)
}

// start starts a peer on each of names, on the server or Cluster at seeds,
// each blocked until go.
func (j JavaWaiters) start(ctx context.Context, names []string, seeds []string, cluster bool) (*javaRun, error) {
	run := &javaRun{threads: j.Threads}
	ctx, cancel := context.WithTimeout(ctx, javaStartTimeout)
	defer cancel()
	for _, name := range names {
		args := []string{"worker", "--addr", strings.Join(seeds, ","), "--name", name, "--kind", "lock",
			"--workers", fmt.Sprint(j.Threads), "--iters", "1", "--sleep", "1", "--counter", "{" + name + "}:java", "--await-stdin"}
		if cluster {
			args = append(args, "--cluster")
		}
		p, err := redisson.Start(j.Jar, args...)
		if err != nil {
			run.close()
			return nil, err
		}
		run.peers = append(run.peers, p)
		// Redisson's channel of the lock (its layout: the name in braces).
		run.channels = append(run.channels, "redisson_lock__channel:{"+name+"}")
	}
	for _, p := range run.peers {
		if _, err := p.Await(ctx, "ready"); err != nil {
			run.close()
			return nil, err
		}
	}
	return run, nil
}

// release lets every peer run: its threads try their locks, held, and wait.
func (r *javaRun) release() error {
	var errs []error
	for _, p := range r.peers {
		errs = append(errs, p.Go())
	}
	return errors.Join(errs...)
}

// waiting waits until Redisson listens on every peer's lock channel: a
// subscriber there that is not a relock Client (those subscribe to the
// presence marker beside it, channel + ":relock").
func (r *javaRun) waiting(ctx context.Context, srv servers) error {
	ctx, cancel := context.WithTimeout(ctx, javaStartTimeout)
	defer cancel()
	for _, ch := range r.channels {
		for {
			var foreign int64
			for _, n := range srv.nodes {
				count := n.PubSubNumSub
				if srv.sharded {
					count = n.PubSubShardNumSub
				}
				subs, err := count(ctx, ch, ch+":relock").Result()
				if err != nil {
					return err
				}
				foreign += subs[ch] - subs[ch+":relock"]
			}
			if foreign > 0 {
				break
			}
			if !sleepUntil(ctx, time.Now().Add(50*time.Millisecond)) {
				return fmt.Errorf("redisson not waiting on %s: %w", ch, ctx.Err())
			}
		}
	}
	return nil
}

// finish awaits every peer's summary: the acquisitions its threads made;
// an error for any a thread reported, or for an acquisition short.
func (r *javaRun) finish(ctx context.Context) (acquired int64, err error) {
	ctx, cancel := context.WithTimeout(ctx, javaStartTimeout)
	defer cancel()
	for _, p := range r.peers {
		sum, e := p.Await(ctx, "summary")
		if e != nil {
			err = errors.Join(err, e)
			continue
		}
		n, _ := sum["acquisitions"].(float64)
		acquired += int64(n)
		if errs, _ := sum["errors"].([]any); len(errs) > 0 {
			err = errors.Join(err, fmt.Errorf("redisson worker: %v", errs[0]))
		}
	}
	if want := int64(len(r.peers) * r.threads); err == nil && acquired != want {
		err = fmt.Errorf("redisson threads made %d acquisitions, want %d", acquired, want)
	}
	return acquired, err
}

func (r *javaRun) close() {
	for _, p := range r.peers {
		p.Close()
	}
}
