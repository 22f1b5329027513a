package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"runtime"
	"strings"

	"github.com/relock-go/relock/rlock"
)

// usage is what "relock help" prints.
const usage = `relock shows and manages rlock (and Redisson) locks, semaphores,
latches and rate limiters in Redis.

Usage:
  relock inspect [flags] NAME          who holds the lock NAME, who waits for it;
                                       a semaphore's permits, a latch's count,
                                       a rate limiter's rate and permits
  relock list [flags] [PATTERN]        the locks, semaphores, latches and rate
                                       limiters whose names match PATTERN
                                       (default *), one line each
  relock watch [flags] NAME            NAME redrawn at every release and grant
  relock unlock --force [flags] NAME   delete the lock NAME, whoever holds it
                                       (a semaphore, latch or rate limiter is
                                       no lock: refused)
  relock leader [--watch] [flags] NAME the leader of the election NAME (and its changes)
  relock help [COMMAND]                this text, or one command's flags
  relock version [--json]              the library's version and Go's

Flags go before or after the command and its arguments (a command's own
flags, such as --kind or --count, after the command); a lock name that
starts with "-" follows "--". PATTERN is SCAN's glob: * ? [abc] \x.

Connection (every command):
  --addr HOST:PORT[,HOST:PORT...]
                        Redis (default $REDIS_ADDR, else localhost:6379);
                        several addresses need --cluster or --sentinel-master
  --cluster             the addresses are nodes of a Redis Cluster
  --sentinel-master NAME
                        the addresses are Sentinels of the master NAME
  --user NAME           ACL user name
  --password PASSWORD   password (default $REDIS_PASSWORD)
  --db N                database number (not on a cluster)
  --tls                 connect with TLS
  --tls-ca FILE         trust the PEM certificates in FILE (implies --tls)
  --tls-insecure        do not verify the server's certificate (implies --tls)
  --sharded[=BOOL]      sharded pub/sub (SSUBSCRIBE, SPUBLISH); by default
                        only on a cluster whose servers have it (Redis 7)
  --timeout DURATION    bound on each request to Redis (default 5s)

Output (every command):
  --json                JSON: an object (an array for list; one object per
                        line for watch and leader --watch); durations in
                        ms, times RFC 3339

inspect, watch:
  --kind KIND           NAME is a semaphore, permit-semaphore,
                        count-down-latch (Redis keeps a semaphore's and a
                        latch's count alike) or rate-limiter (anything
                        else at NAME is an error)

watch:
  --count N             stop after N redraws after the first view (default 0: no limit)
  --for DURATION        stop after DURATION (default 0: until Ctrl-C)

unlock:
  --force               required: relock unlocks only by force
  --yes                 do not ask for confirmation on stdin

leader:
  --watch               follow the changes, one line each
  --count N, --for DURATION
                        with --watch, as for watch

Exit status: 0 on success, also when the lock named is not there; 1 on an
error, or when an unlock was refused or the lock changed hands while the
prompt waited; 2 on a usage error.

Examples:
  relock inspect orders:42
  relock --addr localhost:6379 inspect orders:42
  relock inspect --json orders:42 | jq .queue
  relock list 'orders:*'
  relock inspect --kind semaphore jobs
  relock inspect --kind rate-limiter api:calls
  relock list --addr 10.0.0.1:7000,10.0.0.2:7000 --cluster
  relock list --addr 10.0.0.5:26379,10.0.0.6:26379 --sentinel-master main
  relock watch orders:42
  relock watch --json --for 10m orders:42 >> orders-42.jsonl
  relock unlock --force orders:42
  relock unlock --force --yes --tls --addr redis.internal:6380 orders:42
  relock leader --watch jobs:nightly
`

// help prints the usage, or that of the command args names.
func help(args []string, e *env) int {
	if len(args) == 0 {
		fmt.Fprint(e.stdout, usage)
		return exitOK
	}
	cmd := lookup(args[0])
	if cmd == nil {
		fmt.Fprintf(e.stderr, "relock help: unknown command %q\n\n%s", args[0], usage)
		return exitUsage
	}
	cmd.printUsage(e.stdout)
	return exitOK
}

// printUsage prints the command's synopsis, summary and flags.
func (c *command) printUsage(w io.Writer) {
	fmt.Fprintf(w, "usage: relock %s %s\n\n%s\n\nFlags:\n", c.name, c.synopsis, c.summary)
	printFlags(w, c.flagSet(&options{}))
}

// printFlags prints the flags of fs as package flag's PrintDefaults does,
// but named with two dashes, as the usage and the examples write them.
func printFlags(w io.Writer, fs *flag.FlagSet) {
	fs.VisitAll(func(f *flag.Flag) {
		arg, text := flag.UnquoteUsage(f)
		line := "  --" + f.Name
		if arg != "" {
			line += " " + arg
		}
		fmt.Fprintf(w, "%s\n    \t%s", line, strings.ReplaceAll(text, "\n", "\n    \t"))
		if def := f.DefValue; def != "" && def != "0" && def != "false" && def != "0s" && !strings.Contains(text, "(default") {
			fmt.Fprintf(w, " (default %s)", def)
		}
		fmt.Fprintln(w)
	})
}

// versionView is what "relock version --json" prints.
type versionView struct {
	Version string `json:"version"` // rlock.Version
	Go      string `json:"go"`      // the Go release of the build
	OS      string `json:"os"`
	Arch    string `json:"arch"`
}

// version prints "relock VERSION (GO OS/ARCH)": the library's version
// (rlock.Version) and the Go release and platform of the build; with
// --json, as an object. It takes every command's flags, and connects to
// nothing.
func version(args []string, e *env) int {
	var o options
	fs := commonFlags("relock version", &o)
	pos, err := parseInterspersed(fs, args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		fmt.Fprint(e.stdout, "usage: relock version [--json]\n\nVersion prints the library's version and the Go release of the build.\n")
		return exitOK
	case err != nil:
		fmt.Fprintf(e.stderr, "relock version: %s\n", dashes(err.Error()))
		return exitUsage
	case len(pos) > 0:
		fmt.Fprintf(e.stderr, "relock version: too many arguments: %q\n", pos)
		return exitUsage
	}
	v := versionView{Version: rlock.Version, Go: runtime.Version(), OS: runtime.GOOS, Arch: runtime.GOARCH}
	if o.json {
		if err := writeJSON(e.stdout, v); err != nil {
			fmt.Fprintf(e.stderr, "relock version: %v\n", err)
			return exitError
		}
		return exitOK
	}
	fmt.Fprintf(e.stdout, "relock %s (%s %s/%s)\n", v.Version, v.Go, v.OS, v.Arch)
	return exitOK
}
