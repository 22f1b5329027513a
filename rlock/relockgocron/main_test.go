package relockgocron

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"testing"
	"time"

	"github.com/go-co-op/gocron/v2"
	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/rlock"
	"github.com/relock-go/relock/rlock/relockgocron/internal/fleet"
	"github.com/relock-go/relock/test/testenv"
)

// instanceEnv, set in the environment of this test binary, makes it an
// instance of a fleet (see instance) rather than run the tests.
const instanceEnv = "RELOCKGOCRON_INSTANCE"

// TestMain runs an instance when asked to (the fleet tests start this
// binary as their instances), else the tests, failing the package if a
// goroutine of the library outlives them.
func TestMain(m *testing.M) {
	if os.Getenv(instanceEnv) != "" {
		if err := instance(os.Args[1:]); err != nil {
			fmt.Fprintln(os.Stderr, "instance:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(testenv.Main(m.Run))
}

// instance runs a gocron scheduler of the fleet's schedule, distributed by
// a Locker or an Elector, until the schedule ends or SIGTERM.
func instance(args []string) error {
	fs := flag.NewFlagSet("instance", flag.ContinueOnError)
	addr := fs.String("addr", "", "redis-server host:port")
	mode := fs.String("mode", "locker", "locker or elector")
	lease := fs.Duration("lease", 2*time.Second, "the watchdog timeout")
	splay := fs.Duration("splay", DefaultSplay, "the Locker's splay")
	var s fleet.Schedule
	s.Flags(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	rdb := redis.NewClient(&redis.Options{Addr: *addr})
	defer rdb.Close()
	client, err := rlock.New(rdb, rlock.WithWatchdogTimeout(*lease))
	if err != nil {
		return err
	}
	defer client.Close()
	rec := fleet.NewRecorder(os.Stdout)
	switch *mode {
	case "locker":
		l, err := NewLocker(client, WithSplay(*splay))
		if err != nil {
			return err
		}
		hold := func(ctx context.Context) (context.Context, context.CancelFunc) { return l.Context(ctx, fleet.JobName) }
		return fleet.Serve(ctx, s, rec, hold, gocron.WithDistributedLocker(l))
	case "elector":
		e, err := NewElector(client, "fleet-leader")
		if err != nil {
			return err
		}
		defer e.Close()
		return fleet.Serve(ctx, s, rec, nil, gocron.WithDistributedElector(rec.Elector(e)))
	}
	return errors.New("unknown mode " + *mode)
}
