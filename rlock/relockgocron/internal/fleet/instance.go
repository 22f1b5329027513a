// Package fleet runs gocron schedulers in separate processes on one Redis
// and judges what they ran: the instance side (Serve, a scheduler that
// prints each run and each IsLeader answer) and the parent's (Start,
// Fleet, Tally). The tests of relockgocron and the side-by-side command
// (compare) share it.
package fleet

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/go-co-op/gocron/v2"
	"github.com/redis/go-redis/v9"
)

// JobName is the name of the fleet's job, and its lock's key.
const JobName = "fleet-job"

// Schedule is what every instance of a fleet runs: JobName every Interval,
// its first tick at StartAt plus the instance's Offset (its splay), each
// run lasting Run, until StartAt+For.
type Schedule struct {
	Interval time.Duration
	Run      time.Duration
	StartAt  time.Time
	Offset   time.Duration
	For      time.Duration
}

// Flags registers the flags that carry a Schedule (see Args) on fs.
func (s *Schedule) Flags(fs *flag.FlagSet) {
	fs.DurationVar(&s.Interval, "interval", time.Second, "the job's interval")
	fs.DurationVar(&s.Run, "run", 10*time.Millisecond, "how long each run lasts")
	fs.Func("start-at", "the first tick (Unix ms)", func(v string) error {
		var ms int64
		_, err := fmt.Sscan(v, &ms)
		s.StartAt = time.UnixMilli(ms)
		return err
	})
	fs.DurationVar(&s.Offset, "offset", 0, "this scheduler's splay: added to every tick")
	fs.DurationVar(&s.For, "for", 30*time.Second, "how long after start-at the scheduler stops")
}

// Args are the flags of s, as Flags reads them.
func (s Schedule) Args() []string {
	return []string{"-interval", s.Interval.String(), "-run", s.Run.String(),
		"-start-at", fmt.Sprint(s.StartAt.UnixMilli()), "-offset", s.Offset.String(), "-for", s.For.String()}
}

// Instance runs an instance from its command line, args: flags adds its
// own flags to the Schedule's and -addr (the redis-server's host:port);
// serve then runs the scheduler of the Schedule on a go-redis client of
// -addr, under a ctx that ends at SIGTERM, recording on a Recorder
// printing to the standard output.
func Instance(args []string, flags func(*flag.FlagSet), serve func(ctx context.Context, s Schedule, rdb *redis.Client, r *Recorder) error) error {
	fs := flag.NewFlagSet("instance", flag.ContinueOnError)
	addr := fs.String("addr", "", "redis-server host:port")
	var s Schedule
	s.Flags(fs)
	flags(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	rdb := redis.NewClient(&redis.Options{Addr: *addr})
	defer rdb.Close()
	return serve(ctx, s, rdb, NewRecorder(os.Stdout))
}

// Recorder prints an instance's events, one a line: "start <run> <ns>",
// "end <run> <ns>" around each run, "leader <ok> <ns>" for each IsLeader
// answer (ok 1 for nil), "fire 0 <ns>" for each Lock (a tick the
// scheduler fired), with the Unix time in nanoseconds.
type Recorder struct {
	mu  sync.Mutex
	out io.Writer
}

// NewRecorder returns a Recorder printing to out.
func NewRecorder(out io.Writer) *Recorder { return &Recorder{out: out} }

func (r *Recorder) print(kind string, n int64, at time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	fmt.Fprintf(r.out, "%s %d %d\n", kind, n, at.UnixNano())
}

// Elector returns e, recording each of its answers.
func (r *Recorder) Elector(e gocron.Elector) gocron.Elector { return recorded{e, r} }

// Locker returns l, recording each of its Locks as the firing of a tick.
func (r *Recorder) Locker(l gocron.Locker) gocron.Locker { return recordedLocker{l, r} }

type recordedLocker struct {
	gocron.Locker
	r *Recorder
}

func (l recordedLocker) Lock(ctx context.Context, key string) (gocron.Lock, error) {
	l.r.print("fire", 0, time.Now())
	return l.Locker.Lock(ctx, key)
}

type recorded struct {
	gocron.Elector
	r *Recorder
}

func (e recorded) IsLeader(ctx context.Context) error {
	err := e.Elector.IsLeader(ctx)
	ok := int64(0)
	if err == nil {
		ok = 1
	}
	e.r.print("leader", ok, time.Now())
	return err
}

// Serve runs the scheduler of s with opts until s ends (or ctx does),
// recording every run on r. hold, when not nil, gives the context a run
// works under from the one gocron passes (relockgocron.Locker.Context):
// a run whose context ends stops at once.
func Serve(ctx context.Context, s Schedule, r *Recorder, hold func(context.Context) (context.Context, context.CancelFunc), opts ...gocron.SchedulerOption) error {
	sched, err := gocron.NewScheduler(opts...)
	if err != nil {
		return err
	}
	var runs atomic.Int64
	task := func(jobCtx context.Context) {
		n := runs.Add(1)
		r.print("start", n, time.Now())
		if hold != nil {
			var cancel context.CancelFunc
			jobCtx, cancel = hold(jobCtx)
			defer cancel()
		}
		t := time.NewTimer(s.Run)
		defer t.Stop()
		select {
		case <-t.C:
		case <-jobCtx.Done():
		}
		r.print("end", n, time.Now())
	}
	_, err = sched.NewJob(gocron.DurationJob(s.Interval), gocron.NewTask(task), gocron.WithName(JobName),
		gocron.WithStartAt(gocron.WithStartDateTime(s.StartAt.Add(s.Offset))))
	if err != nil {
		return err
	}
	sched.Start()
	t := time.NewTimer(time.Until(s.StartAt.Add(s.For)))
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
	return sched.Shutdown()
}
