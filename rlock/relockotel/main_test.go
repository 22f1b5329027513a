package relockotel

import (
	"context"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"
	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	semconv "go.opentelemetry.io/otel/semconv/v1.39.0"

	"github.com/relock-go/relock/rlock"
	"github.com/relock-go/relock/test/eventlog"
	"github.com/relock-go/relock/test/testenv"
	"github.com/relock-go/relock/test/testkit/lockkit"
)

// TestMain fails the package if a goroutine of the library outlives the
// tests: the Observer must start none, and every Client is closed
// (go-redis's Sentinel watcher aside: testenv.SentinelWatch).
func TestMain(m *testing.M) { os.Exit(testenv.Main(m.Run, testenv.SentinelWatch...)) }

// Attribute matches shared by the tests.
var (
	mutexKind = AttrLockKind.String(string(rlock.KindMutex))
	// acquired matches a success: no error.type (see hasAll).
	acquired = attribute.KeyValue{Key: semconv.ErrorTypeKey}
)

// harness is an Observer recording into in-memory SDK providers, and an
// rlock.Client on a miniredis that reports to it.
type harness struct {
	obs    *Observer
	reader *sdkmetric.ManualReader
	spans  *tracetest.SpanRecorder
	tp     *sdktrace.TracerProvider
	mr     *miniredis.Miniredis
	client *rlock.Client
	events *recorder // sees each event after obs
	cmds   *commands // the commands the Client ran
}

// newHarness returns a harness whose Observer has opts (after the
// providers) and whose Client has clientOpts.
func newHarness(t *testing.T, opts []Option, clientOpts ...rlock.Option) *harness {
	t.Helper()
	h := &harness{
		reader: sdkmetric.NewManualReader(),
		spans:  tracetest.NewSpanRecorder(),
		mr:     miniredis.RunT(t),
		events: newRecorder(),
		cmds:   &commands{done: make(chan struct{}, 1), byOwner: make(map[string]int)},
	}
	h.tp = sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(h.spans))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(h.reader))
	t.Cleanup(func() {
		_ = mp.Shutdown(context.Background())
		_ = h.tp.Shutdown(context.Background())
	})
	obs, err := NewObserver(append([]Option{WithMeterProvider(mp), WithTracerProvider(h.tp)}, opts...)...)
	if err != nil {
		t.Fatalf("NewObserver: %v", err)
	}
	h.obs = obs
	rdb := redis.NewClient(&redis.Options{Addr: h.mr.Addr()})
	rdb.AddHook(h.cmds)
	t.Cleanup(func() { _ = rdb.Close() })
	// The recorder comes after the Observer: once it has an event, the
	// Observer has recorded it.
	clientOpts = append([]rlock.Option{rlock.WithObserver(obs), rlock.WithObserver(h.events)}, clientOpts...)
	h.client = lockkit.NewClient(t, rdb, clientOpts...)
	return h
}

// within is a generous bound on a test's commands.
const within = 20 * time.Second

// metrics collects the metrics recorded so far, by name.
func (h *harness) metrics(t *testing.T) map[string]metricdata.Metrics {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := h.reader.Collect(context.Background(), &rm); err != nil {
		t.Fatalf("Collect: %v", err)
	}
	byName := make(map[string]metricdata.Metrics)
	for _, sm := range rm.ScopeMetrics {
		if sm.Scope.Name != ScopeName {
			t.Errorf("scope %q, want %q", sm.Scope.Name, ScopeName)
		}
		if sm.Scope.Version != rlock.Version {
			t.Errorf("scope version %q, want %q", sm.Scope.Version, rlock.Version)
		}
		for _, m := range sm.Metrics {
			byName[m.Name] = m
		}
	}
	return byName
}

// sum is the total of the data points of the Int64 sum called name that
// have all of attrs; found reports whether any had.
func (h *harness) sum(t *testing.T, name string, attrs ...attribute.KeyValue) (total int64, found bool) {
	t.Helper()
	m, ok := h.metrics(t)[name]
	if !ok {
		return 0, false
	}
	s, ok := m.Data.(metricdata.Sum[int64])
	if !ok {
		t.Fatalf("%s is a %T, not an int64 sum", name, m.Data)
	}
	for _, dp := range s.DataPoints {
		if hasAll(dp.Attributes, attrs) {
			total += dp.Value
			found = true
		}
	}
	return total, found
}

// count is the number of measurements of the float64 histogram called
// name that have all of attrs.
func (h *harness) count(t *testing.T, name string, attrs ...attribute.KeyValue) uint64 {
	t.Helper()
	m, ok := h.metrics(t)[name]
	if !ok {
		return 0
	}
	hist, ok := m.Data.(metricdata.Histogram[float64])
	if !ok {
		t.Fatalf("%s is a %T, not a float64 histogram", name, m.Data)
	}
	var n uint64
	for _, dp := range hist.DataPoints {
		if hasAll(dp.Attributes, attrs) {
			n += dp.Count
		}
	}
	return n
}

// wantSum fails the test unless the sum called name, over the data points
// with attrs, is want (and has such data points).
func (h *harness) wantSum(t *testing.T, name string, want int64, attrs ...attribute.KeyValue) {
	t.Helper()
	got, found := h.sum(t, name, attrs...)
	if !found || got != want {
		t.Errorf("%s%v = %d (found %v), want %d", name, attrs, got, found, want)
	}
}

// hasAll reports whether set has every one of attrs; an attribute with no
// value (attribute.KeyValue{Key: k}) asks that set have no k.
func hasAll(set attribute.Set, attrs []attribute.KeyValue) bool {
	for _, a := range attrs {
		v, ok := set.Value(a.Key)
		if a.Value.Type() == attribute.INVALID {
			if ok {
				return false
			}
			continue
		}
		if !ok || v != a.Value {
			return false
		}
	}
	return true
}

// ended returns the ended spans called name.
func (h *harness) ended(name string) []sdktrace.ReadOnlySpan {
	var spans []sdktrace.ReadOnlySpan
	for _, s := range h.spans.Ended() {
		if s.Name() == name {
			spans = append(spans, s)
		}
	}
	return spans
}

// attr is the value of the attribute key of span s.
func attr(s sdktrace.ReadOnlySpan, key attribute.Key) (attribute.Value, bool) {
	for _, a := range s.Attributes() {
		if a.Key == key {
			return a.Value, true
		}
	}
	return attribute.Value{}, false
}

// recorder is an rlock.Observer that keeps every event.
type recorder struct{ *eventlog.Log[rlock.Event] }

func newRecorder() *recorder { return &recorder{eventlog.New[rlock.Event]()} }

func (r *recorder) ObserveLock(e rlock.Event) { r.Add(e) }

// await waits until an event of type typ for which ok holds (any, when ok
// is nil) has come, and returns it.
func (r *recorder) await(t *testing.T, typ rlock.EventType, ok func(rlock.Event) bool) rlock.Event {
	t.Helper()
	return r.Await(t, typ.String(), func(e rlock.Event) bool { return e.Type == typ && (ok == nil || ok(e)) })
}

// byOwner is an event filter for the events of owner.
func byOwner(owner string) func(rlock.Event) bool {
	return func(e rlock.Event) bool { return e.Owner == owner }
}

// hasKey reports whether a data point of m has the attribute key.
func hasKey(m metricdata.Metrics, key attribute.Key) bool {
	switch d := m.Data.(type) {
	case metricdata.Sum[int64]:
		for _, dp := range d.DataPoints {
			if dp.Attributes.HasValue(key) {
				return true
			}
		}
	case metricdata.Histogram[float64]:
		for _, dp := range d.DataPoints {
			if dp.Attributes.HasValue(key) {
				return true
			}
		}
	}
	return false
}

// commands is a go-redis hook that counts, by owner id, the scripts run
// successfully with that owner id as an argument: an owner's acquire and
// release scripts.
type commands struct {
	mu      sync.Mutex
	byOwner map[string]int
	done    chan struct{} // one token, never blocking
}

func (c *commands) DialHook(next redis.DialHook) redis.DialHook { return next }

func (c *commands) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}

func (c *commands) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		err := next(ctx, cmd)
		if name := cmd.Name(); err != nil || (name != "evalsha" && name != "eval") {
			return err
		}
		c.mu.Lock()
		for _, arg := range cmd.Args() {
			if s, ok := arg.(string); ok {
				c.byOwner[s]++
			}
		}
		c.mu.Unlock()
		select {
		case c.done <- struct{}{}:
		default:
		}
		return err
	}
}

// await waits until n scripts have run with owner as an argument.
func (c *commands) await(t *testing.T, owner string, n int) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		c.mu.Lock()
		ran := c.byOwner[owner]
		c.mu.Unlock()
		if ran >= n {
			return
		}
		select {
		case <-c.done:
		case <-deadline:
			t.Fatalf("%d scripts of %s ran, not %d", ran, owner, n)
		}
	}
}

var _ redis.Hook = (*commands)(nil)
