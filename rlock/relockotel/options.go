package relockotel

import (
	"github.com/redis/go-redis/v9"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"
)

// Option configures an Observer (NewObserver).
type Option interface {
	apply(*config)
}

type optionFunc func(*config)

func (f optionFunc) apply(c *config) { f(c) }

// config is what the options set.
type config struct {
	mp       metric.MeterProvider // nil: the global one
	tp       trace.TracerProvider // nil: the global one
	attrs    []attribute.KeyValue
	server   []attribute.KeyValue // WithServer
	lockName bool
	metrics  bool
	spans    bool
}

// WithMeterProvider makes the Observer create its instruments with mp
// instead of the global MeterProvider (otel.GetMeterProvider). A nil mp
// leaves the global one.
func WithMeterProvider(mp metric.MeterProvider) Option {
	return optionFunc(func(c *config) { c.mp = mp })
}

// WithTracerProvider makes the Observer create its spans with tp instead
// of the global TracerProvider (otel.GetTracerProvider). A nil tp leaves
// the global one.
func WithTracerProvider(tp trace.TracerProvider) Option {
	return optionFunc(func(c *config) { c.tp = tp })
}

// WithAttributes adds attrs to every measurement and every span of the
// Observer: the service's role, the Redis deployment, and so on. Several
// calls add up.
func WithAttributes(attrs ...attribute.KeyValue) Option {
	return optionFunc(func(c *config) { c.attrs = append(c.attrs, attrs...) })
}

// WithLockNameAttribute adds the lock's name (relock.lock.name) to the
// metrics of a lock's events, which by default have none: every lock name
// makes new time series, so use it only when an application has a few
// fixed names, never when names carry ids. Spans always have the name.
func WithLockNameAttribute() Option {
	return optionFunc(func(c *config) { c.lockName = true })
}

// WithoutMetrics turns the metrics off: the Observer creates no
// instruments and only makes spans.
func WithoutMetrics() Option {
	return optionFunc(func(c *config) { c.metrics = false })
}

// WithoutSpans turns the spans off: the Observer only records metrics.
func WithoutSpans() Option {
	return optionFunc(func(c *config) { c.spans = false })
}

// WithServer adds semconv's server.address and server.port of the Redis
// deployment rdb reaches (the client given to rlock.New) to every
// measurement and span, so that two deployments can be told apart: a
// single server's address, a Redis Cluster's first configured node (give
// every Client of one cluster the same seed list), none for a Sentinel
// client (add your own with WithAttributes). db.system.name is "redis"
// with or without it.
func WithServer(rdb redis.UniversalClient) Option {
	return optionFunc(func(c *config) { c.server = serverAttrs(rdb) })
}
