package jobs_test

import (
	"context"
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
	"github.com/traineed/traineed/cmd/traineed/jobs"
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
// benchTrainees trainees, and GET by id's p95 alone and while evaluations
// run back to back:
//
//	TRAINEED_TEST_POSTGRES=postgres://... go test -run '^$' -bench Evaluate -benchtime 20x ./cmd/traineed/jobs/
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
		if _, err := s.CreateAutomation(ctx, company, sp, api.GenerateWebhookSecret()); err != nil {
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
			b.Fatal(err)
		}
		return res, time.Since(start)
	}
	getP95 := func(n int) time.Duration {
		d := make([]time.Duration, n)
		for i := range d {
			start := time.Now()
			if _, err := s.Trainee(ctx, company, id); err != nil {
				b.Fatal(err)
			}
			d[i] = time.Since(start)
		}
		slices.Sort(d)
		return d[n*95/100]
	}

	res, took := evaluate()
	b.Logf("first evaluation (catching up every due occurrence): %s, %d fired, %d trainee.expired", took, res.Fired, res.Expirations)
	day.Store(1)
	res, took = evaluate()
	b.Logf("next day's evaluation: %s, %d fired, %d trainee.expired", took, res.Fired, res.Expirations)

	b.Run("steady", func(b *testing.B) {
		var worst time.Duration
		durations := make([]time.Duration, 0, b.N)
		for b.Loop() {
			_, took := evaluate()
			durations = append(durations, took)
			worst = max(worst, took)
		}
		slices.Sort(durations)
		b.ReportMetric(float64(durations[len(durations)/2].Microseconds())/1000, "median-ms")
		b.ReportMetric(float64(worst.Microseconds())/1000, "max-ms")
	})

	// GET by id's p95 with and without evaluations running back to back,
	// in alternating rounds (the machine is shared: alternating makes the
	// comparison fair), for steady evaluations (the same day: nothing new
	// is due, what every minute costs) and firing ones (each a new day).
	const gets, rounds = 3000, 5
	getP95(500) // warm
	withEvaluations := func(advance bool, f func()) int {
		stop := make(chan struct{})
		done := make(chan int)
		go func() {
			evals := 0
			for {
				select {
				case <-stop:
					done <- evals
					return
				default:
				}
				if advance {
					day.Add(1)
				}
				if _, err := ev.Evaluate(context.Background()); err != nil {
					b.Error(err)
				}
				evals++
			}
		}()
		f()
		close(stop)
		return <-done
	}
	median := func(d []time.Duration) time.Duration { slices.Sort(d); return d[len(d)/2] }
	for _, advance := range []bool{false, true} {
		var alone, during []time.Duration
		evals := 0
		for range rounds {
			alone = append(alone, getP95(gets))
			evals += withEvaluations(advance, func() { during = append(during, getP95(gets)) })
		}
		what := "steady"
		if advance {
			what = "firing"
		}
		ma, md := median(alone), median(during)
		b.Logf("GET by id p95 (median of %d rounds of %d): alone %s, during %s evaluations (%d of them) %s: %+.1f%%; rounds alone %v, during %v",
			rounds, gets, ma, what, evals, md, 100*(float64(md)/float64(ma)-1), alone, during)
	}
}
