package server_test

import (
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"syscall"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/traineed/traineed/api/server"
	"github.com/traineed/traineed/store"
	"github.com/traineed/traineed/store/storetest"
)

// BenchmarkGetByIDMetrics is what the metrics add to GET by id: the
// handler over SQLite and PostgreSQL (when TRAINEED_TEST_POSTGRES is
// set), called directly (no network), without and with WithMetrics. See
// docs/performance.md.
func BenchmarkGetByIDMetrics(b *testing.B) {
	dbs := []string{"sqlite"}
	if os.Getenv("TRAINEED_TEST_POSTGRES") != "" {
		dbs = append(dbs, "postgres")
	}
	for _, db := range dbs {
		for _, withMetrics := range []bool{false, true} {
			name := db + "/without"
			if withMetrics {
				name = db + "/with"
			}
			b.Run(name, func(b *testing.B) { benchGetByID(b, db, withMetrics) })
		}
	}
}

func benchGetByID(b *testing.B, db string, withMetrics bool) {
	var opts []server.Option
	if withMetrics {
		reg := prometheus.NewRegistry()
		opts = append(opts, server.WithMetrics(server.NewMetrics(reg, reg), true))
	}
	var s *store.Store
	if db == "postgres" {
		s = storetest.Postgres(b)
	} else {
		s = storetest.SQLite(b)
	}
	e := newEnv(b, s, opts...)
	tr := e.create(e.keyA, newTraineeBody("Bench Person"))
	req := httptest.NewRequest("GET", "/public-api/trainees/"+strconv.FormatInt(tr.ID, 10), nil)
	req.Header.Set("X-API-Key", e.keyA)
	b.ReportAllocs()
	cpu0 := processCPU()
	for b.Loop() {
		w := httptest.NewRecorder()
		e.handler.ServeHTTP(w, req)
		if w.Code != http.StatusOK {
			b.Fatalf("status %d", w.Code)
		}
	}
	// The process's CPU time per request (user + system): on a shared
	// machine it varies far less than the wall time, which the other
	// processes' load dominates. The database server's time is not in it;
	// the metrics add none there.
	b.ReportMetric(float64(processCPU()-cpu0)/float64(b.N), "cpu-ns/op")
}

func processCPU() int64 {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return ru.Utime.Nano() + ru.Stime.Nano()
}
