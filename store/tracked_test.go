package store_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/store"
	"github.com/traineed/traineed/store/storetest"
)

// trackedNow is the store clock of these tests: "today" is 21-11-2026 in
// Europe/London (company A) and in UTC (company B).
var trackedNow = time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)

// ingestString runs Ingest over text and returns the summary and the
// rejected lines as "line N: reason".
func ingestString(t *testing.T, s *store.Store, company int64, text string) (api.IngestSummary, []string) {
	t.Helper()
	var rejected []string
	sum, err := s.Ingest(ctx, company, strings.NewReader(text), func(l store.IngestLine) {
		rejected = append(rejected, fmt.Sprintf("line %d: %s", l.Line, l.Reason))
	})
	if err != nil {
		t.Fatal(err)
	}
	return sum, rejected
}

func TestIngestTracked(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		store.SetNow(s, func() time.Time { return trackedNow })
		tn := storetest.SetupTenants(t, s)
		a := storetest.MustCreate(t, s, tn.A, storetest.NewTrainee("Ada Tracked", "ada.tracked@example.com"))
		b := storetest.MustCreate(t, s, tn.B, storetest.NewTrainee("Bea Tracked", "bea.tracked@example.com"))
		lines := []string{
			fmt.Sprintf(`{"type":"weight","traineeId":%d,"date":"01-11-2026","weight":81.4,"unit":"KG"}`, a.ID), // 1
			fmt.Sprintf(`{"type":"weight","traineeId":%d,"date":"01-11-2026","weight":180,"unit":"LB"}`, a.ID),  // 2 replaces 1
			``, // 3: blank, skipped
			fmt.Sprintf(`{"type":"weight","traineeId":%d,"date":"01-11-2026","weight":70,"unit":"KG"}`, b.ID),                                                                                  // 4 another company's trainee
			fmt.Sprintf(`{"type":"steps","traineeId":%d,"date":"01-11-2026","steps":9500}`, a.ID),                                                                                              // 5
			fmt.Sprintf(`{"type":"steps","traineeId":%d,"date":"01-11-2026","steps":-3}`, a.ID),                                                                                                // 6 bad
			fmt.Sprintf(`{"type":"nutrition","traineeId":%d,"date":"01-11-2026","meal":"LUNCH","name":"Soup","quantity":300,"unit":"ml","calories":150,"protein":6,"carbs":20,"fat":4}`, a.ID), // 7
			fmt.Sprintf(`{"type":"measurement","traineeId":%d,"date":"01-11-2026","measurement":"WAIST","value":82,"unit":"CM"}`, a.ID),                                                        // 8
			`{"type":"workout","traineeId":99999999,"date":"01-11-2026"}`,                                                                                                                      // 9 unknown trainee
			fmt.Sprintf(`{"type":"workout","traineeId":%d,"date":"22-11-2026"}`, a.ID),                                                                                                         // 10 tomorrow
			fmt.Sprintf(`{"type":"workout","traineeId":%d,"date":"10-11-2026"}`, a.ID),                                                                                                         // 11
		}
		text := strings.Join(lines, "\n") // no final newline: the last line still counts
		sum, rejected := ingestString(t, s, tn.A, text)
		want := []string{
			fmt.Sprintf("line 4: trainee %d is not a trainee of company %d", b.ID, tn.A),
			"line 6: steps must be an integer between 0 and 200000 (got -3)",
			fmt.Sprintf("line 9: trainee 99999999 is not a trainee of company %d", tn.A),
			"line 10: date must be between 01-01-1900 and today (21-11-2026), got 22-11-2026",
		}
		if strings.Join(rejected, "\n") != strings.Join(want, "\n") {
			t.Fatalf("rejected:\n%s\nwant:\n%s", strings.Join(rejected, "\n"), strings.Join(want, "\n"))
		}
		if sum != (api.IngestSummary{Lines: 10, Stored: 5, Replaced: 1, Rejected: 4}) {
			t.Fatalf("summary %+v", sum)
		}
		d := date(t, "01-11-2026")
		wh, err := s.WeightHistory(ctx, tn.A, a.ID, d, d)
		if err != nil || len(wh.Entries) != 1 || wh.Entries[0].Weight != 81.6 { // 180 lb, the last of the day
			t.Fatalf("weight %+v %v", wh, err)
		}
		if n := storetest.Count(t, s, "weight_entries", "trainee_id = ?", b.ID); n != 0 {
			t.Fatalf("another company's trainee got %d weights", n)
		}
		if got := storetest.MustGet(t, s, tn.A, a.ID).LastTrained; got == nil || got.String() != "10-11-2026" {
			t.Fatalf("lastTrained %v", got)
		}

		// Again: weights, steps and workouts replace, the rest is appended.
		sum, _ = ingestString(t, s, tn.A, text)
		if sum != (api.IngestSummary{Lines: 10, Stored: 2, Replaced: 4, Rejected: 4}) {
			t.Fatalf("second summary %+v", sum)
		}
		for table, want := range map[string]int{"weight_entries": 1, "daily_steps": 1, "workouts": 1, "nutrition_items": 2, "measurements": 2} {
			if n := storetest.Count(t, s, table, "trainee_id = ?", a.ID); n != want {
				t.Errorf("%s: %d rows, want %d", table, n, want)
			}
		}
		steps, err := s.AverageSteps(ctx, tn.A, a.ID, date(t, "03-11-2026"))
		if err != nil || steps.AverageSteps == nil || *steps.AverageSteps != 9500 || steps.DaysWithData != 1 {
			t.Fatalf("steps %+v %v", steps, err)
		}
		nut, err := s.Nutrition(ctx, tn.A, a.ID, d)
		if err != nil || len(nut.Meals) != 1 || len(nut.Meals[0].Items) != 2 || nut.Totals.Calories != 300 {
			t.Fatalf("nutrition %+v %v", nut, err)
		}

		// A workout moves lastTrained forward, never back.
		ingestString(t, s, tn.A, fmt.Sprintf(`{"type":"workout","traineeId":%d,"date":"02-11-2026"}`, a.ID))
		if got := storetest.MustGet(t, s, tn.A, a.ID).LastTrained; got.String() != "10-11-2026" {
			t.Fatalf("an older workout moved lastTrained to %v", got)
		}
		ingestString(t, s, tn.A, fmt.Sprintf(`{"type":"workout","traineeId":%d,"date":"21-11-2026"}`, a.ID))
		if got := storetest.MustGet(t, s, tn.A, a.ID).LastTrained; got.String() != "21-11-2026" {
			t.Fatalf("a newer workout left lastTrained at %v", got)
		}

		// The reads are scoped like every trainee query.
		if _, err := s.WeightHistory(ctx, tn.B, a.ID, d, d); !errors.Is(err, api.ErrNotFound) {
			t.Errorf("weight history across companies: %v", err)
		}
		if _, err := s.Measurements(ctx, tn.B, a.ID, d, d, ""); !errors.Is(err, api.ErrNotFound) {
			t.Errorf("measurements across companies: %v", err)
		}
		if _, err := s.Nutrition(ctx, tn.B, a.ID, d); !errors.Is(err, api.ErrNotFound) {
			t.Errorf("nutrition across companies: %v", err)
		}
		if _, err := s.AverageSteps(ctx, tn.B, a.ID, d); !errors.Is(err, api.ErrNotFound) {
			t.Errorf("average steps across companies: %v", err)
		}
		if _, err := s.Ingest(ctx, 999999, strings.NewReader(""), nil); !errors.Is(err, api.ErrNotFound) {
			t.Errorf("unknown company: %v", err)
		}
	})
}

// A batch holds IngestBatchLines lines; replacements and rejections are
// counted right across batch boundaries, and a line too long to hold is
// rejected without stopping the rest.
func TestIngestBatches(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		store.SetNow(s, func() time.Time { return trackedNow })
		tn := storetest.SetupTenants(t, s)
		a := storetest.MustCreate(t, s, tn.A, storetest.NewTrainee("Batch Person", "batch@example.com"))
		var b strings.Builder
		b.WriteString("\xef\xbb\xbf") // a byte order mark before line 1
		const n = 1234
		start := date(t, "01-01-2024")
		var wantRejected []string
		for i := 1; i <= n; i++ {
			day := start.AddDays(i % 600) // days repeat after 600 lines: replaced
			switch {
			case i%97 == 0:
				fmt.Fprintf(&b, `{"type":"steps","traineeId":%d,"date":%q,"steps":"many"}`+"\n", a.ID, day)
				wantRejected = append(wantRejected, fmt.Sprintf("line %d: steps must be an integer", i))
			case i == 700:
				fmt.Fprintf(&b, `{"type":"workout","traineeId":%d,"date":%q,"pad":"%s"}`+"\n", a.ID, day, strings.Repeat("x", store.MaxIngestLine))
				wantRejected = append(wantRejected, "line 700: longer than 64 KiB")
			default:
				fmt.Fprintf(&b, `{"type":"steps","traineeId":%d,"date":%q,"steps":%d}`+"\n", a.ID, day, i)
			}
		}
		sum, rejected := ingestString(t, s, tn.A, b.String())
		if strings.Join(rejected, "\n") != strings.Join(wantRejected, "\n") {
			t.Fatalf("rejected:\n%s", strings.Join(rejected, "\n"))
		}
		// Lines 601..1234 repeat the days of lines 1..634: a good line
		// replaces when an earlier good line had its day.
		stored := map[int]bool{}
		wantSum := api.IngestSummary{Lines: n}
		for i := 1; i <= n; i++ {
			if i%97 == 0 || i == 700 {
				wantSum.Rejected++
				continue
			}
			if stored[i%600] {
				wantSum.Replaced++
			} else {
				wantSum.Stored++
				stored[i%600] = true
			}
		}
		if sum != wantSum {
			t.Fatalf("summary %+v, want %+v", sum, wantSum)
		}
		if got := storetest.Count(t, s, "daily_steps", "trainee_id = ?", a.ID); got != wantSum.Stored {
			t.Fatalf("%d step rows, want %d", got, wantSum.Stored)
		}
		// The last line of a day wins: day 1+600 = line 601 over line 1.
		var steps int64
		if err := store.DB(s).NewSelect().Table("daily_steps").Column("steps").
			Where("trainee_id = ? AND day = ?", a.ID, start.AddDays(1).Int()).Scan(ctx, &steps); err != nil || steps != 1201 {
			t.Fatalf("day 1 has %d steps (%v), want line 1201's", steps, err)
		}
	})
}

// lookahead is an endless-looking stream of ingest lines that fails the
// test when Ingest reads far ahead of the lines it has reported: it must
// stream, holding at most one batch and one read buffer.
type lookahead struct {
	t        *testing.T
	lines    int // lines to produce
	served   int // lines handed out so far
	reported *int
	maxAhead int
	buf      bytes.Buffer
	trainee  int64
}

const lookaheadLineLen = 1024

func (l *lookahead) Read(p []byte) (int, error) {
	for l.buf.Len() < len(p) && l.served < l.lines {
		l.served++
		var line string
		if l.served%2 == 0 { // a good line
			line = fmt.Sprintf(`{"type":"steps","traineeId":%d,"date":"01-11-2026","steps":%d,"pad":"`, l.trainee, l.served)
		} else {
			line = `{"type":"steps","pad":"`
		}
		line += strings.Repeat("p", lookaheadLineLen-len(line)-3) + "\"}\n"
		l.buf.WriteString(line)
		if ahead := l.served - *l.reported; ahead > l.maxAhead {
			l.t.Fatalf("read line %d while only line %d was processed: Ingest does not stream", l.served, *l.reported)
		}
	}
	if l.buf.Len() == 0 {
		return 0, io.EOF
	}
	return l.buf.Read(p)
}

func TestIngestStreams(t *testing.T) {
	s := storetest.SQLite(t)
	store.SetNow(s, func() time.Time { return trackedNow })
	tn := storetest.SetupTenants(t, s)
	a := storetest.MustCreate(t, s, tn.A, storetest.NewTrainee("Stream Person", "stream@example.com"))
	const lines = 20_000
	reported := 0
	// Every other line is bad, so each batch reports its last lines.
	maxAhead := 2*store.IngestBatchLines + store.MaxIngestLine/lookaheadLineLen + 2
	r := &lookahead{t: t, lines: lines, reported: &reported, maxAhead: maxAhead, trainee: a.ID}

	// The peak heap also holds garbage the collector has not reached yet,
	// which GOGC lets grow with the live heap (what the binary's packages
	// hold from their start: libphonenumber's metadata, ...): collect
	// eagerly while measuring, so the peak is what the ingest keeps.
	defer debug.SetGCPercent(debug.SetGCPercent(10))
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	stop := storetest.HeapPeak(5*time.Millisecond, func(ms *runtime.MemStats) uint64 { return ms.HeapAlloc })
	sum, err := s.Ingest(ctx, tn.A, r, func(l store.IngestLine) { reported = l.Line })
	peak := stop()
	if err != nil {
		t.Fatal(err)
	}
	if sum != (api.IngestSummary{Lines: lines, Stored: 1, Replaced: lines/2 - 1, Rejected: lines / 2}) {
		t.Fatalf("summary %+v", sum)
	}
	// 20 MB went through; the heap must not have grown by anything like it.
	t.Logf("the heap grew by %.1f MiB", float64(int64(peak)-int64(before.HeapAlloc))/(1<<20))
	if grew := int64(peak) - int64(before.HeapAlloc); grew > 8<<20 {
		t.Errorf("heap grew by %d MiB while ingesting %d MiB", grew>>20, lines*lookaheadLineLen>>20)
	}
}
