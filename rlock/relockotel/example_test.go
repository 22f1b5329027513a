package relockotel_test

import (
	"context"
	"fmt"
	"log"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"
	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/relock-go/relock/rlock"
	"github.com/relock-go/relock/rlock/relockotel"
)

// An application passes the Observer to rlock.New. With no options it uses
// the global providers (otel.SetMeterProvider, otel.SetTracerProvider);
// here, in-memory ones show what it records.
func Example() {
	ctx := context.Background()
	mr, err := miniredis.Run() // a real Redis in production
	if err != nil {
		log.Fatal(err)
	}
	defer mr.Close()
	rdb := redis.NewClient(&redis.Options{Addr: mr.Addr()})
	defer rdb.Close()

	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	spans := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))

	obs, err := relockotel.NewObserver(
		relockotel.WithMeterProvider(mp),
		relockotel.WithTracerProvider(tp),
		relockotel.WithAttributes(attribute.String("service.role", "billing")),
	)
	if err != nil {
		log.Fatal(err)
	}
	client, err := rlock.New(rdb, rlock.WithObserver(obs))
	if err != nil {
		log.Fatal(err)
	}
	defer client.Close()

	m := client.NewMutex("invoices:2024-06")
	if err := m.Lock(ctx); err != nil {
		log.Fatal(err)
	}
	if err := m.Unlock(ctx); err != nil {
		log.Fatal(err)
	}

	var rm metricdata.ResourceMetrics
	if err := reader.Collect(ctx, &rm); err != nil {
		log.Fatal(err)
	}
	for _, sm := range rm.ScopeMetrics {
		for _, metric := range sm.Metrics {
			if metric.Name != "relock.lock.acquisitions" {
				continue
			}
			for _, dp := range metric.Data.(metricdata.Sum[int64]).DataPoints {
				fmt.Println(metric.Name, dp.Attributes.Encoded(attribute.DefaultEncoder()), dp.Value)
			}
		}
	}
	for _, s := range spans.Ended() {
		fmt.Println("span", s.Name())
	}
	// Output:
	// relock.lock.acquisitions db.system.name=redis,relock.lock.kind=mutex,service.role=billing 1
	// span relock.Lock
	// span relock.Unlock
}
