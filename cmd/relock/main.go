// Command relock shows and manages the locks, semaphores, latches and
// rate limiters that package rlock (and Redisson, the Java client it is
// compatible with) keeps in Redis: who holds a lock and who waits for it,
// a semaphore's permits, a rate limiter's rate and each client's permits,
// every object whose name matches a pattern (one line each, whatever keys
// it keeps beside its name), a live view of a lock's hand-offs, and a
// forced unlock for operators.
//
//	go install github.com/relock-go/relock/cmd/relock@latest
//
//	relock inspect orders:42             # holders, TTL, fair queue, token
//	relock inspect --kind semaphore jobs # a semaphore's permits, a latch's count
//	relock inspect api:calls             # a rate limiter's rate and permits
//	relock list 'orders:*'               # one line per lock
//	relock watch orders:42               # redrawn at every release and grant
//	relock leader jobs:nightly           # a leader election's leader, candidates
//	relock unlock --force orders:42      # asks first, unless --yes
//	relock version                       # rlock.Version and Go's
//
// Flags go before or after the command and its arguments: "relock --json
// inspect orders:42", "relock inspect --json orders:42" and "relock
// inspect orders:42 --json" are the same (a command's own flags, such as
// --kind, follow it). A lock name that starts with "-" follows "--". The server is
// --addr, else $REDIS_ADDR, else localhost:6379; a comma-separated list of
// addresses is a Redis Cluster's nodes with --cluster, or Sentinels with
// --sentinel-master. The password is --password, else $REDIS_PASSWORD.
// With --json every command prints JSON: one object (an array for list),
// and one object per line for watch and leader --watch. "relock help"
// lists every flag.
//
// watch does not poll: it subscribes to the lock's own channels
// (SUBSCRIBE, or SSUBSCRIBE with sharded pub/sub on a Redis 7 cluster),
// where releases are announced, and to relock's turn channel of the lock,
// where a fair lock announces each waiter's turn ('turn:<waiter>'); reads the lock again at every message, and once more
// when the TTL it showed runs out, since an expiry is not announced.
// Acquiring a free lock is not announced either: watch sees it at the next
// release or grant, or expiry. It never listens on a fair waiter's own
// channel, where a listener would make a dead waiter look alive.
//
// "relock version" prints the library's version (rlock.Version) and the Go
// release the command was built with (with --json, as an object).
//
// Exit status: 0 on success, also when the lock named is not there; 1 on
// an error, and when an unlock was refused at its prompt or the lock
// changed hands meanwhile; 2 on a usage error.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/relock-go/relock/rlock"
)

// Exit statuses.
const (
	exitOK    = 0
	exitError = 1 // an error, or a refused unlock
	exitUsage = 2
)

func main() {
	os.Exit(run(context.Background(), os.Args[1:], &env{
		stdin:  os.Stdin,
		stdout: os.Stdout,
		stderr: os.Stderr,
		getenv: os.Getenv,
		tty:    isTerminal(os.Stdout),
	}))
}

// env is the outside world of one run: its standard streams and
// environment variables.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	getenv         func(string) string
	tty            bool // stdout is a terminal
}

// options are the values of every flag. Each command registers the common
// ones and its own.
type options struct {
	conn connFlags
	json bool

	count  int           // watch: redraws after the first view
	period time.Duration // watch: --for
	kind   string        // inspect, watch: the kind of a semaphore, latch or rate limiter
	force  bool          // unlock
	yes    bool          // unlock

	watchLeader bool // leader --watch
}

// command is one subcommand of relock.
type command struct {
	name     string
	synopsis string // its flags and arguments, as the usage shows them
	summary  string
	// minArgs and maxArgs bound the number of arguments.
	minArgs, maxArgs int
	// flags registers the command's own flags, beside the common ones.
	flags func(fs *flag.FlagSet, o *options)
	// check reports a usage error in the flags' values, if any.
	check func(o *options) error
	// run runs the command on an open session with its arguments.
	run func(ctx context.Context, s *session, args []string) error
}

// commands are relock's subcommands but help.
var commands = []*command{
	{
		name: "inspect", synopsis: "[flags] NAME", minArgs: 1, maxArgs: 1,
		summary: "Inspect prints what Redis holds of the lock NAME: its kind, holders and\nTTL, its fair queue in order, its subscribers and fencing token; of a\nsemaphore or a count-down latch, its count, leased permits and subscribers;\nof a rate limiter, its rate and available permits (per client: each\nclient's that took permits). Redis keeps a semaphore's and a latch's count\nalike: --kind tells which.",
		flags:   kindFlag,
		check:   checkKind,
		run:     runInspect,
	},
	{
		name: "list", synopsis: "[flags] [PATTERN]", minArgs: 0, maxArgs: 1,
		summary: "List prints one line per lock, semaphore, latch and rate limiter whose\nname matches PATTERN (SCAN's glob, default *), sorted: its kind, number of\nholders, TTL, queue length and count (a rate limiter's available permits;\n\"-\" for a rate per client: inspect shows each client's). The keys an object\nkeeps beside its name (a rate limiter's counts of permits, a read hold's\nlease) get no line of their own. A string of an integer is listed as a\ncount: a semaphore's permits, a latch's count or any counter, which Redis\nkeeps alike (inspect --kind reads it as one); as a permit-semaphore with\nleased permits beside it, and as a semaphore or a count-down-latch while\nwaiters listen on that kind's channel. Other keys are left out.",
		run:     runList,
	},
	{
		name: "watch", synopsis: "[flags] NAME", minArgs: 1, maxArgs: 1,
		summary: "Watch prints the lock, semaphore, latch or rate limiter NAME as inspect\ndoes, then again at every release, grant or count announced on its\nchannels, and when the TTL shown runs out (nothing announces a rate\nlimiter's permits). It stops at Ctrl-C, after --count redraws or after\n--for.",
		flags: func(fs *flag.FlagSet, o *options) {
			kindFlag(fs, o)
			fs.IntVar(&o.count, "count", 0, "stop after `N` redraws after the first view (0: no limit)")
			fs.DurationVar(&o.period, "for", 0, "stop after `DURATION` (0: until Ctrl-C)")
		},
		check: func(o *options) error {
			if o.count < 0 || o.period < 0 {
				return usageError{"--count and --for cannot be negative"}
			}
			return checkKind(o)
		},
		run: runWatch,
	},
	{
		name: "unlock", synopsis: "--force [flags] NAME", minArgs: 1, maxArgs: 1,
		summary: "Unlock --force deletes the lock NAME whoever holds it, and wakes its\nwaiters. It first asks on stdin, naming the holders, unless --yes. A\nsemaphore, a latch, a rate limiter or a count is no lock: unlock refuses\nit, with an error that says what it is.",
		flags: func(fs *flag.FlagSet, o *options) {
			fs.BoolVar(&o.force, "force", false, "required: relock unlocks only by force")
			fs.BoolVar(&o.yes, "yes", false, "do not ask for confirmation")
		},
		check: func(o *options) error {
			if !o.force {
				return usageError{"unlock needs --force: relock holds no locks, it can only delete them"}
			}
			return nil
		},
		run: runUnlock,
	},
	leaderCommand,
}

// usageError is a command line relock cannot run: exit status 2.
type usageError struct{ msg string }

// Error returns the message, which says what is wrong.
func (e usageError) Error() string { return e.msg }

// errRefused reports an unlock that did not happen, as its message said.
var errRefused = errors.New("nothing unlocked")

// run runs relock with the command-line arguments args (without the
// program name) and returns its exit status.
func run(ctx context.Context, args []string, e *env) int {
	if len(args) == 0 {
		fmt.Fprint(e.stderr, usage)
		return exitUsage
	}
	global, args, err := splitGlobal(args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		fmt.Fprint(e.stdout, usage)
		return exitOK
	case err != nil:
		fmt.Fprintf(e.stderr, "relock: %s\n(relock help shows the flags)\n", dashes(err.Error()))
		return exitUsage
	case len(args) == 0:
		fmt.Fprintf(e.stderr, "relock: no command after the flags\n\n%s", usage)
		return exitUsage
	}
	name, args := args[0], args[1:]
	switch name {
	case "help", "-h", "-help", "--help":
		return help(args, e)
	case "version", "--version":
		return version(append(global, args...), e)
	}
	args = append(global, args...)
	cmd := lookup(name)
	if cmd == nil {
		fmt.Fprintf(e.stderr, "relock: unknown command %q\n\n%s", name, usage)
		return exitUsage
	}
	err = cmd.exec(ctx, args, e)
	var ue usageError
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, flag.ErrHelp):
		cmd.printUsage(e.stdout)
		return exitOK
	case errors.As(err, &ue):
		fmt.Fprintf(e.stderr, "relock %s: %s\n(relock help %s shows its flags)\n", cmd.name, ue.msg, cmd.name)
		return exitUsage
	case errors.Is(err, errRefused):
		return exitError
	default:
		fmt.Fprintf(e.stderr, "%s\n", errorLine(cmd.name, err))
		return exitError
	}
}

// lookup returns the command called name, or nil.
func lookup(name string) *command {
	for _, c := range commands {
		if c.name == name {
			return c
		}
	}
	return nil
}

// flagSet returns the command's flags, common and own, bound to o.
func (c *command) flagSet(o *options) *flag.FlagSet {
	fs := commonFlags("relock "+c.name, o)
	if c.flags != nil {
		c.flags(fs, o)
	}
	return fs
}

// exec parses args, connects to Redis and runs the command.
func (c *command) exec(ctx context.Context, args []string, e *env) error {
	var o options
	pos, err := parseInterspersed(c.flagSet(&o), args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return usageError{dashes(err.Error())}
	}
	words := strings.Fields(c.synopsis)
	switch {
	case len(pos) < c.minArgs:
		return usageError{"missing " + words[len(words)-1]}
	case len(pos) > c.maxArgs:
		return usageError{fmt.Sprintf("too many arguments: %q", pos)}
	}
	if c.check != nil {
		if err := c.check(&o); err != nil {
			return err
		}
	}
	s, err := open(&o, e)
	if err != nil {
		return err
	}
	defer s.close()
	return c.run(ctx, s, pos)
}

// isTerminal reports whether f is a terminal (a character device), so
// that watch clears the screen between views.
func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// errorLine is the line run prints for a command's error: "relock CMD: "
// once, then the error; an rlock error's own "rlock: OP" prefix is left
// out (the command names what was asked), keeping the lock's name.
func errorLine(cmd string, err error) string {
	var re *rlock.Error
	if errors.As(err, &re) && re == err {
		if re.Name != "" {
			return fmt.Sprintf("relock %s %q: %v", cmd, re.Name, re.Err)
		}
		return fmt.Sprintf("relock %s: %v", cmd, re.Err)
	}
	return fmt.Sprintf("relock %s: %v", cmd, err)
}
