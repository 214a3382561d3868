package store_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/store"
	"github.com/traineed/traineed/store/storetest"
)

// BenchmarkFTSTriggers measures what SQLite's users_fts triggers (migration
// 20260101000008_fts) add to a create and to a rename, on a company of
// benchTrainees trainees: every iteration runs the operation once on a
// store whose triggers were dropped and once on one with them, interleaved
// so that both see the same machine load, and reports the medians and the
// means (FTS5 merges its segments now and then, which the mean shows). It
// also reports the size of the index and of the whole database file:
//
//	go test -run '^$' -bench FTSTriggers -benchtime 2000x ./store/
func BenchmarkFTSTriggers(b *testing.B) {
	type side struct {
		s                *store.Store
		company, trainee int64
		took             []time.Duration
	}
	setup := func(b *testing.B, triggers bool) *side {
		s := storetest.SQLite(b)
		if !triggers {
			for _, tr := range []string{"users_fts_insert", "users_fts_update", "users_fts_delete"} {
				if _, err := store.DB(s).NewRaw("DROP TRIGGER " + tr).Exec(ctx); err != nil {
					b.Fatal(err)
				}
			}
		}
		company, trainee := bulkLoad(b, s, benchTrainees(b))
		return &side{s: s, company: company, trainee: trainee}
	}
	base, fts := setup(b, false), setup(b, true)
	var sizes []struct {
		Name string
		MB   float64
	}
	err := store.DB(fts.s).NewRaw(`SELECT CASE WHEN name LIKE 'users_fts%' THEN 'users_fts' ELSE 'all' END AS name,
		sum(pgsize) / 1048576.0 AS mb FROM dbstat GROUP BY 1`).Scan(ctx, &sizes)
	if err != nil {
		b.Fatal(err)
	}
	for _, op := range []string{"create", "rename"} {
		b.Run(op, func(b *testing.B) {
			base.took, fts.took = nil, nil
			i := 0
			run := func(x *side) {
				start := time.Now()
				var err error
				if op == "create" {
					_, err = x.s.CreateTrainee(ctx, x.company, benchTrainee())
				} else {
					_, err = x.s.UpdateTrainee(ctx, x.company, x.trainee, api.TraineePatch{Name: api.Val(fmt.Sprintf("Renamed Trainee %d", i))})
				}
				if err != nil {
					b.Fatal(err)
				}
				x.took = append(x.took, time.Since(start))
			}
			for b.Loop() {
				i++
				run(base)
				run(fts)
			}
			stats := func(d []time.Duration) (median, mean float64) {
				var sum time.Duration
				for _, x := range d {
					sum += x
				}
				slices.Sort(d)
				return float64(d[len(d)/2].Nanoseconds()) / 1000, float64(sum.Nanoseconds()) / 1000 / float64(len(d))
			}
			bm, ba := stats(base.took)
			fm, fa := stats(fts.took)
			b.ReportMetric(bm, "base-µs")
			b.ReportMetric(fm, "fts-µs")
			b.ReportMetric(ba, "base-mean-µs")
			b.ReportMetric(fa, "fts-mean-µs")
			var all float64
			for _, sz := range sizes {
				all += sz.MB
				if sz.Name == "users_fts" {
					b.ReportMetric(sz.MB, "fts-MB")
				}
			}
			b.ReportMetric(all, "db-MB")
		})
	}
}
