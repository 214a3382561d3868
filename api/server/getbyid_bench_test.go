package server_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/traineed/traineed/api"
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
	h := server.NewHandler(s, server.WithHasher(cheapHasher))
	b.ReportAllocs()
	b.SetParallelism(4)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			req := httptest.NewRequest(http.MethodGet, path, nil)
			req.Header.Set(api.HeaderAPIKey, key)
			w := httptest.NewRecorder()
			h.ServeHTTP(w, req)
			if w.Code != 200 {
				b.Fatalf("status %d", w.Code)
			}
		}
	})
}
