package store_test

import (
	"os"
	"slices"
	"testing"
	"time"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/store"
	"github.com/traineed/traineed/store/storetest"
)

// BenchmarkTraineeStats is GET /trainees/stats' store call (the
// dashboard's seven counts in one statement), p95 and mean. With
// TRAINEED_BENCH_STATS_DB (a postgres:// URL) it reads the biggest
// company of that database, such as the one `traineed demo --trainees
// 1000000` loads; otherwise benchCompany's TRAINEED_BENCH_TRAINEES
// trainees on both databases.
func BenchmarkTraineeStats(b *testing.B) {
	run := func(b *testing.B, s *store.Store, company int64) {
		today := api.DateOf(time.Now())
		durations := make([]time.Duration, 0, b.N)
		var st *api.TraineeStats
		for b.Loop() {
			start := time.Now()
			var err error
			if st, err = s.TraineeStats(ctx, company, nil, today, time.UTC); err != nil {
				b.Fatal(err)
			}
			durations = append(durations, time.Since(start))
		}
		slices.Sort(durations)
		b.ReportMetric(float64(durations[len(durations)*95/100].Microseconds())/1000, "p95-ms")
		b.Logf("company %d: %+v", company, *st)
	}
	if url := os.Getenv("TRAINEED_BENCH_STATS_DB"); url != "" {
		s := storetest.Open(b, url)
		var company int64
		if err := store.DB(s).NewRaw("SELECT company_id FROM trainees GROUP BY company_id ORDER BY count(*) DESC LIMIT 1").Scan(ctx, &company); err != nil {
			b.Fatal(err)
		}
		b.Run("db", func(b *testing.B) { run(b, s, company) })
		return
	}
	for _, db := range []struct {
		name string
		open func(testing.TB) *store.Store
	}{{"sqlite", storetest.SQLite}, {"postgres", storetest.Postgres}} {
		b.Run(db.name, func(b *testing.B) {
			s, company, _ := benchCompany(b, db.open, db.name)
			run(b, s, company)
		})
	}
}
