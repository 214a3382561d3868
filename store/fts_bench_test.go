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

// BenchmarkFTSTriggers measures what SQLite's trainees_fts triggers (migration
// 20260101000010_search_index) add to a create and to a rename, on a company of
// benchTrainees trainees: every iteration runs the operation once on a
// store whose triggers were dropped and once on one with them, interleaved
// so that both see the same machine load, and reports the medians and the
// means (FTS5 merges its segments now and then, which the mean shows). It
// also reports the size of the index and of the whole database file:
//
//	go test -run '^$' -bench FTSTriggers -benchtime 2000x ./store/
func BenchmarkFTSTriggers(b *testing.B) {
	setup := func(b *testing.B, triggers bool) *changeSide {
		s := storetest.SQLite(b)
		if !triggers {
			for _, tr := range []string{"trainees_fts_insert", "trainees_fts_update", "trainees_fts_delete"} {
				if _, err := store.DB(s).NewRaw("DROP TRIGGER " + tr).Exec(ctx); err != nil {
					b.Fatal(err)
				}
			}
		}
		company, trainee := bulkLoad(b, s, benchTrainees(b))
		return &changeSide{s: s, company: company, trainee: trainee}
	}
	base, fts := setup(b, false), setup(b, true)
	var sizes []struct {
		Name string
		MB   float64
	}
	err := store.DB(fts.s).NewRaw(`SELECT CASE WHEN name LIKE 'trainees_fts%' THEN 'trainees_fts' ELSE 'all' END AS name,
		sum(pgsize) / 1048576.0 AS mb FROM dbstat GROUP BY 1`).Scan(ctx, &sizes)
	if err != nil {
		b.Fatal(err)
	}
	for _, op := range []string{"create", "rename"} {
		b.Run(op, func(b *testing.B) {
			base.took, fts.took = nil, nil
			i := 0
			for b.Loop() {
				i++
				base.change(b, op, i)
				fts.change(b, op, i)
			}
			stats := func(d []time.Duration) (median, mean float64) {
				var sum time.Duration
				for _, x := range d {
					sum += x
				}
				return medianMicros(d), float64(sum.Nanoseconds()) / 1000 / float64(len(d))
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
				if sz.Name == "trainees_fts" {
					b.ReportMetric(sz.MB, "fts-MB")
				}
			}
			b.ReportMetric(all, "db-MB")
		})
	}
}

// BenchmarkSearchFTS compares, on one SQLite company of benchTrainees
// trainees, each search shape of BenchmarkStore (and one- and
// two-character q) with the FTS5 prefilter and without it (the scan that
// SQLite did before migration 20260101000008_fts), alternating the two on
// every iteration so that both see the same machine load; it reports each
// side's p95 and median:
//
//	go test -run '^$' -bench SearchFTS -benchtime 200x ./store/
func BenchmarkSearchFTS(b *testing.B) {
	s := storetest.SQLite(b)
	company, _ := bulkLoad(b, s, benchTrainees(b))
	defer store.SetFTSOff(false)
	today := api.Date{Year: 2026, Month: 3, Day: 1}
	for _, q := range []api.Search{
		{Query: "anna", Status: api.StatusLive, Sort: api.SortID},
		{Query: "nowak", Status: api.StatusLive, Sort: api.SortName},
		{Query: "b4242", Status: api.StatusAll, Sort: api.SortID},
		{Query: "zz", Status: api.StatusLive, Sort: api.SortID},
		{Query: "an", Status: api.StatusLive, Sort: api.SortID},
		{Query: "ł", Status: api.StatusLive, Sort: api.SortID},
		{Query: "7900 1234", Digits: "79001234", Status: api.StatusLive, Sort: api.SortID},
		{Query: "anna", Status: api.StatusActive, Sort: api.SortExpirationDate, Desc: true},
	} {
		q.Size, q.Today = 20, today
		b.Run(fmt.Sprintf("q=%q status=%s sort=%s", q.Query, q.Status, q.Sort), func(b *testing.B) {
			var scan, fts []time.Duration
			run := func(off bool, into *[]time.Duration) {
				store.SetFTSOff(off)
				start := time.Now()
				if _, _, err := s.SearchTrainees(ctx, company, q); err != nil {
					b.Fatal(err)
				}
				*into = append(*into, time.Since(start))
			}
			for b.Loop() {
				run(true, &scan)
				run(false, &fts)
			}
			for _, side := range []struct {
				name string
				d    []time.Duration
			}{{"scan", scan}, {"fts", fts}} {
				slices.Sort(side.d)
				b.ReportMetric(float64(side.d[len(side.d)*95/100].Microseconds())/1000, side.name+"-p95-ms")
				b.ReportMetric(float64(side.d[len(side.d)/2].Microseconds())/1000, side.name+"-p50-ms")
			}
		})
	}
}
