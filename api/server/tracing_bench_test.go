package server_test

import (
	"context"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/traineed/traineed/api/server"
	"github.com/traineed/traineed/store"
	"github.com/traineed/traineed/store/storetest"
)

// BenchmarkGetByIDTracing is GET /trainees/{id} in process, as
// BenchmarkGetByIDSQLite and BenchmarkGetByIDPostgres, with tracing off
// ("off": no provider, as `traineed serve` without OTEL_EXPORTER_OTLP_*)
// and on ("on": the SDK's provider sampling every request, its batch span
// processor exporting to a no-op exporter, the store's statements traced
// too): the cost of a span per request and per statement, without the
// network; cpu-ns/op is this process's CPU time per request (the
// server's whole cost on SQLite; on PostgreSQL the database's is not in
// it). docs/performance.md has the figures.
func BenchmarkGetByIDTracing(b *testing.B) {
	for _, db := range []string{store.DialectSQLite, store.DialectPostgres} {
		for _, on := range []bool{false, true} {
			name := db + "/off"
			if on {
				name = db + "/on"
			}
			b.Run(name, func(b *testing.B) {
				var s *store.Store
				if db == store.DialectSQLite {
					s = storetest.SQLite(b)
				} else {
					s = storetest.Postgres(b)
				}
				key, path := storetest.KeyAndTrainee(b, s)
				opts := []server.Option{server.WithHasher(cheapHasher)}
				if on {
					tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(tracetest.NewNoopExporter()))
					b.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
					s.SetTracerProvider(tp)
					opts = append(opts, server.WithTracerProvider(tp))
				}
				benchGets(b, server.NewHandler(s, opts...), path, key)
			})
		}
	}
}
