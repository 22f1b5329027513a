package relockgocron

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
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
	var mode string
	var lease, splay time.Duration
	flags := func(fs *flag.FlagSet) {
		fs.StringVar(&mode, "mode", "locker", "locker or elector")
		fs.DurationVar(&lease, "lease", 2*time.Second, "the watchdog timeout")
		fs.DurationVar(&splay, "splay", DefaultSplay, "the Locker's splay")
	}
	return fleet.Instance(args, flags, func(ctx context.Context, s fleet.Schedule, rdb *redis.Client, rec *fleet.Recorder) error {
		client, err := rlock.New(rdb, rlock.WithWatchdogTimeout(lease))
		if err != nil {
			return err
		}
		defer client.Close()
		switch mode {
		case "locker":
			l, err := NewLocker(client, WithSplay(splay))
			if err != nil {
				return err
			}
			hold := func(ctx context.Context) (context.Context, context.CancelFunc) { return l.Context(ctx, fleet.JobName) }
			return fleet.Serve(ctx, s, rec, hold, gocron.WithDistributedLocker(rec.Locker(l)))
		case "elector":
			e, err := NewElector(client, "fleet-leader")
			if err != nil {
				return err
			}
			defer e.Close()
			return fleet.Serve(ctx, s, rec, nil, gocron.WithDistributedElector(rec.Elector(e)))
		}
		return errors.New("unknown mode " + mode)
	})
}
