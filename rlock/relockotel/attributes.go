package relockotel

import (
	"context"
	"errors"
	"net"
	"strconv"

	"github.com/redis/go-redis/v9"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	semconv "go.opentelemetry.io/otel/semconv/v1.39.0"

	"github.com/relock-go/relock/rlock"
)

// The names of the Observer's spans.
const (
	SpanLock   = "relock.Lock"   // an acquisition: Lock, TryLock, ...
	SpanUnlock = "relock.Unlock" // a release
	SpanLost   = "relock.Lost"   // a hold that ended without Unlock
)

// The attributes of the Observer's metrics and spans.
const (
	AttrLockName      attribute.Key = "relock.lock.name"      // the lock's name: on spans; on metrics with WithLockNameAttribute
	AttrLockKind      attribute.Key = "relock.lock.kind"      // rlock.Kind: mutex, fenced, fair, read-write, fair-read-write, semaphore, rate-limiter, ...
	AttrLockMode      attribute.Key = "relock.lock.mode"      // read or write, for read-write locks only
	AttrOutcome       attribute.Key = "relock.outcome"        // how a hold ended: OutcomeReleased or OutcomeLost (hold duration)
	AttrOwner         attribute.Key = "relock.owner"          // the owner id: spans only
	AttrAttempts      attribute.Key = "relock.attempts"       // acquire scripts run: spans only
	AttrWakeups       attribute.Key = "relock.wakeups"        // releases that woke the acquisition: spans only
	AttrReentry       attribute.Key = "relock.reentry"        // the owner held the lock already: spans only
	AttrHoldCount     attribute.Key = "relock.hold.count"     // hold count after the acquisition or release: spans only
	AttrHoldDuration  attribute.Key = "relock.hold.duration"  // how long the hold lasted, in seconds: spans only
	AttrLeaseDuration attribute.Key = "relock.lease.duration" // the hold's lease, in seconds: spans only
	AttrWatchdog      attribute.Key = "relock.watchdog"       // the watchdog renews the hold: spans only
)

// The values of AttrOutcome: the two ways a hold ends, neither of them an
// operation's failure. Failures are classified by semconv's error.type
// (ErrorType).
const (
	OutcomeReleased = "released" // a hold ended by its last Unlock
	OutcomeLost     = "lost"     // a hold ended without Unlock
)

// The values of semconv's error.type on a failed acquisition or renewal,
// and on a relock.Lost span. They are few and fixed, as error.type asks.
const (
	ErrorTimeout          = "timeout"           // an acquisition's wait elapsed (or a TryLock's single attempt found the lock busy)
	ErrorCanceled         = "canceled"          // the call's ctx was canceled
	ErrorDeadlineExceeded = "deadline_exceeded" // the call's ctx passed its deadline
	ErrorClosed           = "closed"            // rlock.ErrClosed
	ErrorWrongType        = "wrong_type"        // rlock.ErrWrongType: the name holds a value of another kind
	ErrorInvalidArgument  = "invalid_argument"  // rlock.ErrInvalidName, ErrInvalidDuration, ErrInvalidSet, ErrInvalidCount, ErrInvalidPermitID
	ErrorNotReplicated    = "not_replicated"    // rlock.ErrNotReplicated
	ErrorRedis            = "redis"             // an error reply of the Redis server (READONLY, NOSCRIPT, ...)
	ErrorIOTimeout        = "io_timeout"        // no answer from Redis in time
	ErrorLost             = "lost"              // a hold ended without Unlock (relock.Lost spans)
	ErrorOther            = "_OTHER"            // anything else, as semconv names it
)

// errorType classifies err for error.type.
func errorType(err error) string {
	var redisErr redis.Error
	var netErr net.Error
	switch {
	case errors.Is(err, context.Canceled):
		return ErrorCanceled
	case errors.Is(err, context.DeadlineExceeded):
		return ErrorDeadlineExceeded
	case errors.Is(err, rlock.ErrClosed):
		return ErrorClosed
	case errors.Is(err, rlock.ErrWrongType):
		return ErrorWrongType
	case errors.Is(err, rlock.ErrInvalidName), errors.Is(err, rlock.ErrInvalidDuration), errors.Is(err, rlock.ErrInvalidSet),
		errors.Is(err, rlock.ErrInvalidCount), errors.Is(err, rlock.ErrInvalidPermitID):
		return ErrorInvalidArgument
	case errors.Is(err, rlock.ErrNotReplicated):
		return ErrorNotReplicated
	case errors.As(err, &redisErr):
		return ErrorRedis
	case errors.As(err, &netErr) && netErr.Timeout():
		return ErrorIOTimeout
	}
	return ErrorOther
}

// acquisitionErrorType is the error.type of the acquisition that e ends:
// "" when it took the lock.
func acquisitionErrorType(e rlock.Event) string {
	switch {
	case e.Type == rlock.EventAcquired:
		return ""
	case e.Err == nil:
		return ErrorTimeout
	}
	return errorType(e.Err)
}

// renewalErrorType is the error.type of the renewal e reports: "" when it
// got its answer.
func renewalErrorType(e rlock.Event) string {
	if e.Type != rlock.EventRenewalFailed {
		return ""
	}
	return errorType(e.Err)
}

// serverAttrs are semconv's server.address and server.port of the Redis
// deployment rdb reaches: a single server's or failover client's address
// (none for a Sentinel client, whose master moves), or a Cluster's first
// configured node; none for another client.
func serverAttrs(rdb redis.UniversalClient) []attribute.KeyValue {
	var addr string
	switch c := rdb.(type) {
	case *redis.Client:
		o := c.Options()
		if o.Network == "unix" {
			return []attribute.KeyValue{semconv.ServerAddress(o.Addr)}
		}
		if o.Addr != "FailoverClient" { // go-redis's placeholder for a Sentinel client
			addr = o.Addr
		}
	case *redis.ClusterClient:
		if addrs := c.Options().Addrs; len(addrs) > 0 {
			addr = addrs[0]
		}
	}
	if addr == "" {
		return nil
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return []attribute.KeyValue{semconv.ServerAddress(addr)}
	}
	attrs := []attribute.KeyValue{semconv.ServerAddress(host)}
	if n, err := strconv.Atoi(port); err == nil {
		attrs = append(attrs, semconv.ServerPort(n))
	}
	return attrs
}

// measured is the measurement option of e's metric attributes, with
// outcome and error.type unless empty.
func (o *Observer) measured(e rlock.Event, outcome, errType string) metric.MeasurementOption {
	k := setKey{kind: e.Kind, mode: e.Mode, outcome: outcome, errType: errType}
	if o.lockName {
		k.name = e.Name
	}
	if opt, ok := o.sets.Load(k); ok {
		return opt.(metric.MeasurementOption)
	}
	attrs := make([]attribute.KeyValue, 0, 5+len(o.attrs))
	if k.kind != "" {
		attrs = append(attrs, AttrLockKind.String(string(k.kind)))
	}
	if k.mode != "" {
		attrs = append(attrs, AttrLockMode.String(k.mode))
	}
	if k.outcome != "" {
		attrs = append(attrs, AttrOutcome.String(k.outcome))
	}
	if k.errType != "" {
		attrs = append(attrs, semconv.ErrorTypeKey.String(k.errType))
	}
	if k.name != "" {
		attrs = append(attrs, AttrLockName.String(k.name))
	}
	attrs = append(attrs, o.attrs...)
	opt, _ := o.sets.LoadOrStore(k, metric.WithAttributeSet(attribute.NewSet(attrs...)))
	return opt.(metric.MeasurementOption)
}

// spanAttrs are the attributes of a span of e's lock, with room for more.
func (o *Observer) spanAttrs(e rlock.Event, more int) []attribute.KeyValue {
	attrs := make([]attribute.KeyValue, 0, 4+len(o.attrs)+more)
	attrs = append(attrs, AttrLockName.String(e.Name), AttrLockKind.String(string(e.Kind)))
	if e.Mode != "" {
		attrs = append(attrs, AttrLockMode.String(e.Mode))
	}
	if e.Owner != "" { // a semaphore's or latch's event has none
		attrs = append(attrs, AttrOwner.String(e.Owner))
	}
	return append(attrs, o.attrs...)
}
