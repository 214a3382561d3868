package jobs_test

import (
	"fmt"
	"log/slog"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/jobs"
	"github.com/traineed/traineed/store"
	"github.com/traineed/traineed/store/storetest"
)

// benchSize is how many trainees the evaluation benchmark loads
// (TRAINEED_BENCH_TRAINEES, default 100000).
func benchSize(b *testing.B) int {
	if v := os.Getenv("TRAINEED_BENCH_TRAINEES"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			b.Fatal(err)
		}
		return n
	}
	return 100_000
}

// loadBench adds n trainees to a new UTC company with plain SQL:
// expirationDate spread over four years around today (a third without),
// lastTrained over the last 60 days (a quarter never trained), created 90
// days ago. It returns the company and one trainee id.
func loadBench(b *testing.B, s *store.Store, n int, today api.Date) (int64, int64) {
	b.Helper()
	c, err := s.CreateCompany(ctx, "Bench Gym", "UTC")
	if err != nil {
		b.Fatal(err)
	}
	db := storetest.DB(b, s)
	created := time.Now().UTC().AddDate(0, 0, -90)
	for start := 0; start < n; start += 1000 {
		var sb strings.Builder
		sb.WriteString("INSERT INTO users (email, name, search_name, password_hash, created_at) VALUES ")
		var args []any
		for i := start; i < min(n, start+1000); i++ {
			if i > start {
				sb.WriteString(", ")
			}
			sb.WriteString("(?, ?, ?, '', ?)")
			name := fmt.Sprintf("Bench %d", i)
			args = append(args, fmt.Sprintf("e%d@evalbench.example.com", i), name, strings.ToLower(name), created)
		}
		if _, err := db.NewRaw(sb.String(), args...).Exec(ctx); err != nil {
			b.Fatal(err)
		}
	}
	var users []int64
	if err := db.NewRaw("SELECT id FROM users WHERE email LIKE '%@evalbench.example.com' ORDER BY id").Scan(ctx, &users); err != nil {
		b.Fatal(err)
	}
	for start := 0; start < len(users); start += 1000 {
		var sb strings.Builder
		sb.WriteString(`INSERT INTO trainees (company_id, user_id, expiration_date, last_trained, enabled, created_by_type,
			force_password_change, weight_unit, created_at, updated_at, email, search_name) VALUES `)
		var args []any
		for i := start; i < min(len(users), start+1000); i++ {
			if i > start {
				sb.WriteString(", ")
			}
			sb.WriteString("(?, ?, ?, ?, ?, 'ADMIN', FALSE, 'KG', ?, ?, ?, ?)")
			var exp, trained *int
			if i%3 != 0 {
				e := today.AddDays(i%1460 - 730).Int()
				exp = &e
			}
			if i%4 != 0 {
				t := today.AddDays(-(i % 60)).Int()
				trained = &t
			}
			args = append(args, c.ID, users[i], exp, trained, i%50 != 0, created, created,
				fmt.Sprintf("e%d@evalbench.example.com", i), fmt.Sprintf("bench %d", i)) // the user's (search columns)
		}
		if _, err := db.NewRaw(sb.String(), args...).Exec(ctx); err != nil {
			b.Fatal(err)
		}
	}
	analyze := "ANALYZE"
	if s.Dialect() == store.DialectPostgres {
		analyze = "VACUUM ANALYZE"
	}
	if _, err := db.NewRaw(analyze).Exec(ctx); err != nil {
		b.Fatal(err)
	}
	var some int64
	if err := db.NewRaw("SELECT id FROM trainees WHERE company_id = ? ORDER BY id LIMIT 1 OFFSET ?", c.ID, n/2).Scan(ctx, &some); err != nil {
		b.Fatal(err)
	}
	return c.ID, some
}

// BenchmarkEvaluate measures full evaluations of 10 time automations over
// benchSize trainees on PostgreSQL, after a first evaluation that catches
// up every due occurrence (day 0):
//
//   - firing: the next day's evaluation (day 1: ~6,900 runs), each
//     iteration on the same data (what day 1 wrote is deleted and the
//     tables vacuumed between iterations, off the clock);
//
//   - steady: day 1 again, nothing new due (what every minute costs);
//
// and then, logged, GET by id's p95 (store.Trainee, one at a time) in
// alternating windows without and with a firing evaluation (getP95AB):
//
//	TRAINEED_TEST_POSTGRES=postgres://... go test -run '^$' -bench Evaluate -benchtime 10x -v ./jobs/
func BenchmarkEvaluate(b *testing.B) {
	s := storetest.Postgres(b)
	base := time.Now().UTC()
	today := api.Today(base, time.UTC)
	company, id := loadBench(b, s, benchSize(b), today)
	url := "http://127.0.0.1:9/never" // no dispatcher runs: deliveries stay pending
	for _, sp := range []api.AutomationSpec{
		{TriggerType: api.TriggerExpirationApproaching, Days: ptr(7)},
		{TriggerType: api.TriggerExpirationApproaching, Days: ptr(14)},
		{TriggerType: api.TriggerExpirationApproaching, Days: ptr(30), Status: ptr(api.StatusActive)},
		{TriggerType: api.TriggerTraineeExpired},
		{TriggerType: api.TriggerTraineeExpired, Status: ptr(api.StatusExpired)},
		{TriggerType: api.TriggerInactive, Days: ptr(7)},
		{TriggerType: api.TriggerInactive, Days: ptr(14)},
		{TriggerType: api.TriggerInactive, Days: ptr(30)},
		{TriggerType: api.TriggerInactive, Days: ptr(45), Status: ptr(api.StatusActive)},
		{TriggerType: api.TriggerInactive, Days: ptr(60)},
	} {
		sp.Name, sp.Enabled, sp.ActionType, sp.URL = "bench "+sp.TriggerType, true, api.ActionWebhook, &url
		if _, err := s.CreateAutomation(ctx, company, sp, api.GenerateWebhookSecret(), 0); err != nil {
			b.Fatal(err)
		}
	}
	storetest.AddWebhook(b, s, company, url, api.EventTraineeExpired)
	var day atomic.Int64
	var log *slog.Logger
	if os.Getenv("TRAINEED_BENCH_LOG") != "" {
		log = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	ev := jobs.NewEvaluator(s, jobs.EvaluatorConfig{Logger: log, Now: func() time.Time { return base.AddDate(0, 0, int(day.Load())) }})
	evaluate := func() (jobs.Evaluation, time.Duration) {
		start := time.Now()
		res, err := ev.Evaluate(ctx)
		if err != nil {
			b.Error(err)
		}
		return res, time.Since(start)
	}

	res, took := evaluate()
	b.Logf("first evaluation (catching up every due occurrence): %s, %d fired, %d trainee.expired", took, res.Fired, res.Expirations)

	// reset deletes what evaluations wrote after day 0's and vacuums, so
	// that every firing evaluation of day 1 starts from the same data.
	db := storetest.DB(b, s)
	var runs, events int64
	if err := db.NewRaw("SELECT COALESCE(MAX(id), 0) FROM automation_runs").Scan(ctx, &runs); err != nil {
		b.Fatal(err)
	}
	if err := db.NewRaw("SELECT COALESCE(MAX(id), 0) FROM webhook_events").Scan(ctx, &events); err != nil {
		b.Fatal(err)
	}
	mark := time.Now().UTC()
	reset := func() {
		for _, q := range []string{
			"DELETE FROM automation_runs WHERE id > ?",
			"DELETE FROM webhook_events WHERE id > ?", // and their deliveries
			"DELETE FROM trainee_expirations WHERE created_at > ?",
			"VACUUM ANALYZE automation_runs, webhook_events, webhook_deliveries, trainee_expirations",
		} {
			var arg any
			switch {
			case strings.Contains(q, "automation_runs WHERE"):
				arg = runs
			case strings.Contains(q, "webhook_events WHERE"):
				arg = events
			case strings.Contains(q, "created_at"):
				arg = mark
			}
			var args []any
			if arg != nil {
				args = append(args, arg)
			}
			if _, err := db.NewRaw(q, args...).Exec(ctx); err != nil {
				b.Fatal(err)
			}
		}
	}
	day.Store(1)

	b.Run("firing", func(b *testing.B) {
		var durations []time.Duration
		fired := 0
		for range b.N {
			b.StopTimer()
			reset()
			b.StartTimer()
			res, took := evaluate()
			durations = append(durations, took)
			fired = res.Fired + res.Expirations
		}
		slices.Sort(durations)
		b.ReportMetric(float64(durations[len(durations)/2].Microseconds())/1000, "median-ms")
		b.ReportMetric(float64(durations[len(durations)-1].Microseconds())/1000, "max-ms")
		b.ReportMetric(float64(durations[0].Microseconds())/1000, "min-ms")
		b.ReportMetric(float64(fired), "fired")
	})

	b.Run("steady", func(b *testing.B) {
		var durations []time.Duration
		for range b.N {
			_, took := evaluate()
			durations = append(durations, took)
		}
		slices.Sort(durations)
		b.ReportMetric(float64(durations[len(durations)/2].Microseconds())/1000, "median-ms")
		b.ReportMetric(float64(durations[len(durations)-1].Microseconds())/1000, "max-ms")
	})

	get := func() time.Duration {
		start := time.Now()
		if _, err := s.Trainee(ctx, company, id); err != nil {
			b.Fatal(err)
		}
		return time.Since(start)
	}
	for range 500 { // warm
		get()
	}
	// Once, whatever -benchtime (TRAINEED_BENCH_ROUNDS pairs of windows).
	getP95AB(b, "firing", get, func() { reset(); time.Sleep(200 * time.Millisecond) }, func() { evaluate() })
}

// benchRounds is how many pairs of windows getP95AB measures
// (TRAINEED_BENCH_ROUNDS, default 20).
func benchRounds(b *testing.B) int {
	if v := os.Getenv("TRAINEED_BENCH_ROUNDS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			b.Fatal(err)
		}
		return n
	}
	return 20
}

// getP95AB measures what a running evaluation does to the p95 of get on a
// shared, noisy machine: rounds of two windows, one with an evaluation
// running from its start to its end (B) and one of the same length
// without (A), in alternating order (A B, B A, ...), each after prepare.
// It reports the medians of the windows' p95 and of the paired
// differences (B - A) / A, with the quartiles of those differences, and the
// p95 of every GET of each side together.
func getP95AB(b *testing.B, what string, get func() time.Duration, prepare, evaluate func()) {
	rounds := benchRounds(b)
	p95 := func(d []time.Duration) time.Duration {
		slices.Sort(d)
		return d[len(d)*95/100]
	}
	window := time.Second
	var (
		pa, pb, diff []float64
		allA, allB   []time.Duration
	)
	alone := func() []time.Duration {
		var d []time.Duration
		for end := time.Now().Add(window); time.Now().Before(end); {
			d = append(d, get())
		}
		return d
	}
	during := func() []time.Duration {
		done := make(chan struct{})
		start := time.Now()
		go func() { evaluate(); close(done) }()
		var d []time.Duration
		for {
			select {
			case <-done:
				window = time.Since(start)
				return d
			default:
			}
			d = append(d, get())
		}
	}
	for i := range rounds {
		prepare()
		var a, bb []time.Duration
		if i%2 == 0 {
			bb = during()
			a = alone()
		} else {
			a = alone()
			bb = during()
		}
		allA, allB = append(allA, a...), append(allB, bb...)
		x, y := p95(a), p95(bb)
		pa, pb = append(pa, float64(x)), append(pb, float64(y))
		diff = append(diff, 100*(float64(y)/float64(x)-1))
	}
	q := func(v []float64, f float64) float64 {
		v = slices.Clone(v)
		slices.Sort(v)
		return v[int(f*float64(len(v)-1)+0.5)]
	}
	pooledA, pooledB := p95(allA), p95(allB)
	b.Logf("GET by id p95 alone and during %s evaluations, %d rounds (windows of ~%s): median p95 %s alone, %s during; "+
		"change per round: median %+.1f%%, quartiles %+.1f%% to %+.1f%%; all GETs together: p95 %s alone (%d GETs), %s during (%d GETs), %+.1f%%",
		what, rounds, window.Round(time.Millisecond), time.Duration(q(pa, 0.5)).Round(time.Microsecond), time.Duration(q(pb, 0.5)).Round(time.Microsecond),
		q(diff, 0.5), q(diff, 0.25), q(diff, 0.75), pooledA, len(allA), pooledB, len(allB), 100*(float64(pooledB)/float64(pooledA)-1))
	b.Logf("per round: p95 alone %v, during %v, change %.1f", durs(pa), durs(pb), diff)
}

func durs(v []float64) []time.Duration {
	out := make([]time.Duration, len(v))
	for i, x := range v {
		out[i] = time.Duration(x).Round(time.Microsecond)
	}
	return out
}
