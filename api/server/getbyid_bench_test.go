package server_test

import (
	"net/http"
	"testing"

	"github.com/traineed/traineed/api/server"
	"github.com/traineed/traineed/store/storetest"
)

// BenchmarkGetByIDPostgres is GET /trainees/{id} served in process over
// PostgreSQL (TRAINEED_TEST_POSTGRES), authentication included: the server
// side of .ci/bench's GET by id without HTTP's sockets, for a CPU profile
// (-cpuprofile) and the allocations per request. Its setup makes a
// database: run it with a count, -benchtime 20000x.
func BenchmarkGetByIDPostgres(b *testing.B) {
	s := storetest.Postgres(b)
	key, path := storetest.KeyAndTrainee(b, s)
	benchGets(b, server.NewHandler(s, server.WithHasher(cheapHasher)), path, key)
}

// BenchmarkGetByIDSQLite is BenchmarkGetByIDPostgres over SQLite, with
// tracing off (no tracer provider given): what every request costs today.
// docs/performance.md compares it, built on this branch and on its base,
// for the "off and free" promise of tracing. cpu-ns/op is the process's
// CPU time per request (getrusage): steadier than the wall time on a
// shared machine.
func BenchmarkGetByIDSQLite(b *testing.B) {
	s := storetest.SQLite(b)
	key, path := storetest.KeyAndTrainee(b, s)
	benchGets(b, server.NewHandler(s, server.WithHasher(cheapHasher)), path, key)
}

// benchGets runs GET path with key through h, 4 goroutines a CPU, and
// reports the allocations and the process's CPU time per request
// (cpu-ns/op, from getrusage: steadier than the wall time on a shared
// machine).
func benchGets(b *testing.B, h http.Handler, path, key string) {
	b.ReportAllocs()
	b.SetParallelism(4)
	b.ResetTimer()
	cpu0 := processCPU()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			storetest.GetOK(b, h, path, key)
		}
	})
	b.ReportMetric(float64(processCPU()-cpu0)/float64(b.N), "cpu-ns/op")
}
