package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/store"
	"github.com/traineed/traineed/store/storetest"
)

// ingestSetup opens db and makes company A (UTC) with two trainees (the
// second in LB) and company B with one.
func ingestSetup(t testing.TB, db string) (s *store.Store, a int64, trainees []*api.Trainee, other *api.Trainee) {
	t.Helper()
	ctx := context.Background()
	s = storetest.Open(t, db)
	ca, err := s.CreateCompany(ctx, "Ingest Gym", "UTC")
	must(t, err)
	cb, err := s.CreateCompany(ctx, "Other Gym", "UTC")
	must(t, err)
	storetest.MustTrainer(t, s, ca.ID, "Coach", "coach@ingest.example")
	storetest.MustTrainer(t, s, cb.ID, "Coach", "coach@other.example")
	for i, unit := range []string{api.UnitKG, api.UnitLB} {
		tr, err := s.CreateTrainee(ctx, ca.ID, api.NewTrainee{Name: fmt.Sprintf("Ingest %d", i), Email: fmt.Sprintf("ingest%d@example.com", i),
			PasswordHash: "x", WeightUnit: unit, CreatedByType: api.CreatedByAdmin, Enabled: true})
		must(t, err)
		trainees = append(trainees, tr)
	}
	other, err = s.CreateTrainee(ctx, cb.ID, api.NewTrainee{Name: "Elsewhere", Email: "elsewhere@example.com",
		PasswordHash: "x", WeightUnit: api.UnitKG, CreatedByType: api.CreatedByAdmin, Enabled: true})
	must(t, err)
	return s, ca.ID, trainees, other
}

func writeFile(t testing.TB, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "tracked.jsonl")
	must(t, os.WriteFile(path, []byte(text), 0o600))
	return path
}

func TestIngestCommand(t *testing.T) {
	storetest.EachURL(t, func(t *testing.T, db string) {
		ctx := context.Background()
		s, company, trs, other := ingestSetup(t, db)
		kg, lb := trs[0].ID, trs[1].ID
		cid := strconv.FormatInt(company, 10)
		text := strings.Join([]string{
			fmt.Sprintf(`{"type":"weight","traineeId":%d,"date":"01-11-2025","weight":81.4,"unit":"KG"}`, kg),
			fmt.Sprintf(`{"type":"weight","traineeId":%d,"date":"01-11-2025","weight":180,"unit":"LB"}`, lb),
			fmt.Sprintf(`{"type":"weight","traineeId":%d,"date":"01-11-2025","weight":80,"unit":"KG"}`, other.ID),
			"",
			fmt.Sprintf(`{"type":"weight","traineeId":%d,"date":"02-11-2025","weight":500,"unit":"KG"}`, kg),
			fmt.Sprintf(`{"type":"measurement","traineeId":%d,"date":"01-11-2025","measurement":"CUSTOM","name":"Wrist","value":17,"unit":"CM"}`, kg),
			fmt.Sprintf(`{"type":"nutrition","traineeId":%d,"date":"01-11-2025","meal":"BREAKFAST","name":"Oats","quantity":80,"unit":"g","calories":300,"protein":10,"carbs":54,"fat":5}`, kg),
			fmt.Sprintf(`{"type":"steps","traineeId":%d,"date":"01-11-2025","steps":9500}`, kg),
			fmt.Sprintf(`{"type":"steps","traineeId":%d,"date":"01-11-2025","steps":9700}`, kg),
			fmt.Sprintf(`{"type":"workout","traineeId":%d,"date":"01-01-2999"}`, kg),
			`{"type":"workout"`,
			fmt.Sprintf(`{"type":"workout","traineeId":%d,"date":"03-11-2025"}`, kg),
		}, "\n") + "\n"
		file := writeFile(t, text)
		out, errOut, code := traineed(t, db, "ingest", "--company", cid, file)
		if code != 1 {
			t.Fatalf("exit %d, want 1: %s", code, errOut)
		}
		today := api.DateOf(time.Now().UTC())
		wantErr := fmt.Sprintf("line 3: trainee %d is not a trainee of company %s\n", other.ID, cid) +
			"line 5: weight must be between 20 and 400 kg (got 500)\n" +
			fmt.Sprintf("line 10: date must be between 01-01-1900 and today (%s), got 01-01-2999\n", today) +
			"line 11: not a JSON object\n" +
			"error: 4 of 11 lines rejected\n"
		if errOut != wantErr {
			t.Fatalf("stderr:\n%s\nwant:\n%s", errOut, wantErr)
		}
		if out != "11 lines: 6 stored, 1 replaced, 4 rejected\n" {
			t.Fatalf("stdout %q", out)
		}
		day := api.Date{Year: 2025, Month: 11, Day: 1}
		wh, err := s.WeightHistory(ctx, company, lb, day, day)
		must(t, err)
		if wh.Unit != "LB" || len(wh.Entries) != 1 || wh.Entries[0].Weight != 180 {
			t.Fatalf("LB trainee's weight %+v", wh)
		}
		wh, err = s.WeightHistory(ctx, company, kg, day, day.AddDays(1))
		must(t, err)
		if len(wh.Entries) != 1 || wh.Entries[0].Weight != 81.4 {
			t.Fatalf("weights %+v (the bad line must store nothing)", wh)
		}
		if n, err := storetest.DB(t, s).NewSelect().Table("weight_entries").Where("trainee_id = ?", other.ID).Count(ctx); err != nil || n != 0 {
			t.Fatalf("another company's trainee got %d weights (%v)", n, err)
		}
		if got, _ := s.Trainee(ctx, company, kg); got.LastTrained == nil || got.LastTrained.String() != "03-11-2025" {
			t.Fatalf("lastTrained %v", got.LastTrained)
		}

		// The same file again, from stdin: weights, steps and the workout
		// replace; the measurement and the meal are appended.
		var o, e bytes.Buffer
		code = run(ctx, []string{"--db", db, "ingest", "--company", cid, "-"}, strings.NewReader(text), &o, &e)
		if code != 1 || o.String() != "11 lines: 2 stored, 5 replaced, 4 rejected\n" || e.String() != wantErr {
			t.Fatalf("again: exit %d, stdout %q, stderr %q", code, o.String(), e.String())
		}
		n, err := s.Nutrition(ctx, company, kg, day)
		must(t, err)
		if len(n.Meals) != 1 || len(n.Meals[0].Items) != 2 || n.Totals.Calories != 600 {
			t.Fatalf("nutrition after two ingests %+v", n)
		}
		ms, err := s.Measurements(ctx, company, kg, day, day, "CUSTOM")
		must(t, err)
		if len(ms.Measurements) != 2 {
			t.Fatalf("measurements after two ingests %+v", ms)
		}
		steps, err := s.AverageSteps(ctx, company, kg, day.AddDays(3))
		must(t, err)
		if *steps.AverageSteps != 9700 || steps.DaysWithData != 1 {
			t.Fatalf("steps %+v", steps)
		}

		// A workout never moves lastTrained back; a clean file exits 0.
		good := writeFile(t, fmt.Sprintf(`{"type":"workout","traineeId":%d,"date":"01-10-2025"}`+"\n", kg))
		out, errOut, code = traineed(t, db, "ingest", "--company", cid, good)
		if code != 0 || errOut != "" || out != "1 line: 1 stored, 0 replaced, 0 rejected\n" {
			t.Fatalf("clean file: exit %d %q %q", code, out, errOut)
		}
		if got, _ := s.Trainee(ctx, company, kg); got.LastTrained.String() != "03-11-2025" {
			t.Fatalf("lastTrained moved back to %s", got.LastTrained)
		}

		if _, _, code := traineed(t, db, "ingest", file); code != 2 {
			t.Fatalf("without --company: exit %d", code)
		}
		if _, errOut, code := traineed(t, db, "ingest", "--company", cid, filepath.Join(t.TempDir(), "missing.jsonl")); code != 1 || !strings.Contains(errOut, "missing.jsonl") {
			t.Fatalf("missing file: exit %d %q", code, errOut)
		}
		if _, errOut, code := traineed(t, db, "ingest", "--company", "987654", good); code != 1 || !strings.Contains(errOut, "not found") {
			t.Fatalf("unknown company: exit %d %q", code, errOut)
		}
	})
}

// ingestFile writes lines of tracked data for trainees: per trainee and
// day a weight, steps, three meals, a workout every other day and a
// measurement every tenth day, starting 01-01-2024.
func ingestFile(t testing.TB, trainees []int64, lines int) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "bench.jsonl")
	f, err := os.Create(path)
	must(t, err)
	defer f.Close()
	w := &bytes.Buffer{}
	start := api.Date{Year: 2024, Month: 1, Day: 1}
	n := 0
	emit := func(format string, args ...any) {
		if n < lines {
			fmt.Fprintf(w, format+"\n", args...)
			n++
		}
		if w.Len() > 1<<20 {
			_, err := f.Write(w.Bytes())
			must(t, err)
			w.Reset()
		}
	}
	for d := 0; n < lines; d++ {
		day := start.AddDays(d % 650)
		for i, id := range trainees {
			emit(`{"type":"weight","traineeId":%d,"date":"%s","weight":%.1f,"unit":"KG"}`, id, day, 60+float64(i%40)+float64(d%7)/10)
			emit(`{"type":"steps","traineeId":%d,"date":"%s","steps":%d}`, id, day, 4000+(i*37+d*101)%9000)
			for _, meal := range []string{"BREAKFAST", "LUNCH", "DINNER"} {
				emit(`{"type":"nutrition","traineeId":%d,"date":"%s","meal":"%s","name":"Meal %d","quantity":250,"unit":"g","calories":%d,"protein":25.5,"carbs":60,"fat":12}`,
					id, day, meal, d%10, 400+d%200)
			}
			if d%2 == 0 {
				emit(`{"type":"workout","traineeId":%d,"date":"%s"}`, id, day)
			}
			if d%10 == 0 {
				emit(`{"type":"measurement","traineeId":%d,"date":"%s","measurement":"WAIST","value":%.1f,"unit":"CM"}`, id, day, 80+float64(i%20))
			}
		}
	}
	_, err = f.Write(w.Bytes())
	must(t, err)
	return path
}

// BenchmarkIngest runs `traineed ingest` over a 100,000-line file (a mix
// of every record type for 100 trainees) and reports lines/s and the
// peak heap in use while it ran, which stays flat whatever the file size:
//
//	go test -run '^$' -bench Ingest -benchtime 3x ./cmd/traineed/
//
// (PostgreSQL too when TRAINEED_TEST_POSTGRES is set.)
func BenchmarkIngest(b *testing.B) {
	const lines = 100_000
	for _, c := range []struct {
		name string
		url  func(testing.TB) string
	}{{"sqlite", storetest.SQLiteURL}, {"postgres", storetest.PostgresURL}} {
		b.Run(c.name, func(b *testing.B) {
			db := c.url(b)
			s, company, _, _ := ingestSetup(b, db)
			var ids []int64
			for i := range 100 {
				tr, err := s.CreateTrainee(context.Background(), company, api.NewTrainee{Name: fmt.Sprintf("Bench %d", i),
					Email: fmt.Sprintf("bench%d@example.com", i), PasswordHash: "x", WeightUnit: api.UnitKG,
					CreatedByType: api.CreatedByAdmin, Enabled: true})
				must(b, err)
				ids = append(ids, tr.ID)
			}
			file := ingestFile(b, ids, lines)
			cid := strconv.FormatInt(company, 10)

			stop := storetest.HeapPeak(10*time.Millisecond, func(ms *runtime.MemStats) uint64 { return ms.HeapInuse })
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				var out, errOut bytes.Buffer
				if code := run(context.Background(), []string{"--db", db, "ingest", "--company", cid, file}, strings.NewReader(""), &out, &errOut); code != 0 {
					b.Fatalf("exit %d: %s", code, errOut.String())
				}
			}
			b.StopTimer()
			peak := stop()
			b.ReportMetric(float64(lines*b.N)/b.Elapsed().Seconds(), "lines/s")
			b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
		})
	}
}
