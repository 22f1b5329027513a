package main

import (
	"cmp"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/rlock"
)

// defaultAddr is the server when neither --addr nor $REDIS_ADDR names one.
const defaultAddr = "localhost:6379"

// clientName is the name relock's connections give themselves (CLIENT
// LIST shows it).
const clientName = "relock-cli"

// connFlags are the flags that say how to reach Redis, common to every
// command.
type connFlags struct {
	addr, user, password string
	db                   int
	cluster              bool
	sentinelMaster       string
	tls, tlsInsecure     bool
	tlsCA                string
	sharded              autoBool
	timeout              time.Duration
}

// register adds the connection flags to fs. The defaults from the
// environment are applied by options, not here, so that a password in
// $REDIS_PASSWORD never shows in the help.
func (c *connFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&c.addr, "addr", "", "Redis `HOST:PORT`, or a comma-separated list with --cluster or --sentinel-master (default $REDIS_ADDR, else "+defaultAddr+")")
	fs.BoolVar(&c.cluster, "cluster", false, "the addresses are nodes of a Redis Cluster")
	fs.StringVar(&c.sentinelMaster, "sentinel-master", "", "the addresses are Sentinels of the master `NAME`")
	fs.StringVar(&c.user, "user", "", "ACL user `NAME`")
	fs.StringVar(&c.password, "password", "", "`PASSWORD` (default $REDIS_PASSWORD)")
	fs.IntVar(&c.db, "db", 0, "database `N` (not on a cluster)")
	fs.BoolVar(&c.tls, "tls", false, "connect with TLS")
	fs.StringVar(&c.tlsCA, "tls-ca", "", "trust the PEM certificates in `FILE` (implies --tls)")
	fs.BoolVar(&c.tlsInsecure, "tls-insecure", false, "do not verify the server's certificate (implies --tls)")
	fs.Var(&c.sharded, "sharded", "sharded pub/sub (default: only on a cluster whose servers have it)")
	fs.DurationVar(&c.timeout, "timeout", 5*time.Second, "bound on each request to Redis, as a `DURATION`")
}

// options returns the go-redis options the flags (and getenv) describe.
func (c *connFlags) options(getenv func(string) string) (*redis.UniversalOptions, error) {
	addr := cmp.Or(c.addr, getenv("REDIS_ADDR"), defaultAddr)
	var addrs []string
	for _, a := range strings.Split(addr, ",") {
		if a = strings.TrimSpace(a); a != "" {
			addrs = append(addrs, a)
		}
	}
	switch {
	case len(addrs) == 0:
		return nil, usageError{"--addr names no address"}
	case c.cluster && c.sentinelMaster != "":
		return nil, usageError{"--cluster and --sentinel-master exclude each other"}
	case len(addrs) > 1 && !c.cluster && c.sentinelMaster == "":
		return nil, usageError{"several addresses need --cluster or --sentinel-master"}
	case c.cluster && c.db != 0:
		return nil, usageError{"a cluster has no --db but 0"}
	case c.timeout <= 0:
		return nil, usageError{"--timeout must be positive"}
	case c.sharded.on && !c.cluster:
		return nil, usageError{"--sharded needs --cluster: sharded pub/sub is Redis Cluster's"}
	}
	o := &redis.UniversalOptions{
		Addrs:         addrs,
		IsClusterMode: c.cluster,
		MasterName:    c.sentinelMaster,
		Username:      c.user,
		Password:      cmp.Or(c.password, getenv("REDIS_PASSWORD")),
		DB:            c.db,
		ClientName:    clientName,
		DialTimeout:   c.timeout,
		ReadTimeout:   c.timeout,
		WriteTimeout:  c.timeout,
	}
	if c.tls || c.tlsInsecure || c.tlsCA != "" {
		cfg := &tls.Config{MinVersion: tls.VersionTLS12, InsecureSkipVerify: c.tlsInsecure}
		if c.tlsCA != "" {
			pem, err := os.ReadFile(c.tlsCA)
			if err != nil {
				return nil, fmt.Errorf("--tls-ca: %w", err)
			}
			cfg.RootCAs = x509.NewCertPool()
			if !cfg.RootCAs.AppendCertsFromPEM(pem) {
				return nil, fmt.Errorf("--tls-ca: no PEM certificate in %s", c.tlsCA)
			}
		}
		o.TLSConfig = cfg
	}
	return o, nil
}

// autoBool is a boolean flag that may be left unset, for "decide
// automatically": --sharded, --sharded=true, --sharded=false.
type autoBool struct{ set, on bool }

// String is the flag's value: "auto" until it is set.
func (b *autoBool) String() string {
	if b == nil || !b.set {
		return "auto"
	}
	return strconv.FormatBool(b.on)
}

// Set sets the flag to the boolean s.
func (b *autoBool) Set(s string) error {
	on, err := strconv.ParseBool(s)
	if err != nil {
		return errors.New("not a boolean")
	}
	b.set, b.on = true, on
	return nil
}

// IsBoolFlag lets the flag be given without a value, as --sharded.
func (b *autoBool) IsBoolFlag() bool { return true }

// session is one run's connection to Redis: the go-redis client and the
// rlock Client on it.
type session struct {
	o     *options
	e     *env
	rdb   redis.UniversalClient
	locks *rlock.Client
}

// quietLogger drops go-redis's log lines (failed dials, reconnections):
// the error relock reports says what went wrong.
type quietLogger struct{}

// Printf drops a log line.
func (quietLogger) Printf(context.Context, string, ...any) {}

// open connects to Redis as o says. go-redis dials lazily: a server that
// cannot be reached fails the first request, not open.
func open(o *options, e *env) (*session, error) {
	ro, err := o.conn.options(e.getenv)
	if err != nil {
		return nil, err
	}
	redis.SetLogger(quietLogger{})
	rdb := redis.NewUniversalClient(ro)
	var opts []rlock.Option
	if o.conn.sharded.set {
		opts = append(opts, rlock.WithShardedPubSub(o.conn.sharded.on))
	}
	locks, err := rlock.New(rdb, opts...)
	if err != nil {
		_ = rdb.Close()
		return nil, err
	}
	return &session{o: o, e: e, rdb: rdb, locks: locks}, nil
}

// close closes the rlock Client, then the go-redis client.
func (s *session) close() {
	_ = s.locks.Close()
	_ = s.rdb.Close()
}

// request returns a context for one request to Redis, bounded by
// --timeout.
func (s *session) request(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, s.o.conn.timeout)
}

// inspect is Client.Inspect (InspectKind with --kind) bounded by --timeout, with the Redis server's
// clock when the lock has a queue (whose deadlines are on that clock), else
// the local one.
func (s *session) inspect(ctx context.Context, name string) (rlock.LockInfo, time.Time, error) {
	ctx, cancel := s.request(ctx)
	defer cancel()
	info, err := s.locks.Inspect(ctx, name)
	if s.o.kind != "" {
		info, err = s.locks.InspectKind(ctx, name, rlock.Kind(s.o.kind))
	}
	if err != nil || len(info.Queue) == 0 {
		return info, time.Now(), err
	}
	now, err := s.rdb.Time(ctx).Result()
	return info, now, err
}

// view is inspect's lock as relock prints it. A semaphore's or a latch's
// view says whether its count is set: a semaphore nobody gave permits to
// has none; a bare count's, which rate limiter's count of permits it is,
// if it is one. (A rate limiter's says its rate, or none.)
func (s *session) view(ctx context.Context, name string) (lockView, error) {
	info, now, err := s.inspect(ctx, name)
	if err != nil {
		return lockView{}, err
	}
	v := newLockView(info, now)
	if info.Kind.Counting() && info.Kind != rlock.KindRateLimiter {
		ctx, cancel := s.request(ctx)
		defer cancel()
		n, err := s.rdb.Exists(ctx, name).Result()
		if err != nil {
			return lockView{}, err
		}
		set := n == 1
		v.CountSet = &set
		if info.Kind == rlock.KindCount {
			of, err := limiterCounts(ctx, s.rdb, []string{name})
			if err != nil {
				return lockView{}, err
			}
			v.RateLimiter = of[name]
		}
	}
	return v, nil
}

// sharded reports whether the lock's announcements go by sharded pub/sub:
// as --sharded says, else, as rlock decides it, only on a cluster whose
// servers have SPUBLISH.
func (s *session) sharded(ctx context.Context) (bool, error) {
	if s.o.conn.sharded.set {
		return s.o.conn.sharded.on, nil
	}
	if _, ok := s.rdb.(*redis.ClusterClient); !ok {
		return false, nil
	}
	ctx, cancel := s.request(ctx)
	defer cancel()
	info, err := s.rdb.Do(ctx, "command", "info", "spublish").Slice()
	if err != nil {
		return false, fmt.Errorf("asking the cluster whether it has sharded pub/sub: %w", err)
	}
	return len(info) == 1 && info[0] != nil, nil
}
