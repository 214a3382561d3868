package store_test

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/store"
	"github.com/traineed/traineed/store/storetest"
)

// benchTrainees is how many trainees the benchmarks load into one company
// (TRAINEED_BENCH_TRAINEES, default 100000).
func benchTrainees(b *testing.B) int {
	if v := os.Getenv("TRAINEED_BENCH_TRAINEES"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			b.Fatal(err)
		}
		return n
	}
	return 100_000
}

// bulkLoad adds n trainees to a new company with plain SQL (the API path
// would take minutes) and returns the company id and the id of one trainee.
func bulkLoad(b testing.TB, s *store.Store, n int) (company, someID int64) {
	b.Helper()
	c, err := s.CreateCompany(ctx, "Bench Gym", "UTC")
	if err != nil {
		b.Fatal(err)
	}
	storetest.MustTrainer(b, s, c.ID, "Bench Coach", fmt.Sprintf("coach%d@bulk.example.com", c.ID))
	first := []string{"Anna", "Oliver", "Zoë", "Łukasz", "Mohammed", "Priya", "Chen", "Grace", "Jack", "Isla",
		"Noah", "Freya", "Mateo", "Lucía", "Kwame", "Ngozi", "Tomasz", "Ingrid", "Yuki", "Ravi", "Emma", "Leo"}
	last := []string{"Smith", "Jones", "Nowak", "Patel", "Khan", "Okafor", "Rossi", "Dubois", "Müller", "Kim",
		"García", "Murphy", "Walsh", "Chen", "Lee", "Taylor", "Brown", "Wilson", "Novák", "Yılmaz", "Costa"}
	now := time.Now().UTC()
	began := time.Now()
	defer func() { // on stdout: a benchmark's own log shows only with -v
		fmt.Printf("loaded %d trainees in %s\n", n, time.Since(began).Round(time.Second/10))
	}()
	const batch = 1000
	for start := 0; start < n; start += batch {
		var sb strings.Builder
		sb.WriteString("INSERT INTO users (email, phone, name, search_name, password_hash, created_at) VALUES ")
		var args []any
		for i := start; i < min(n, start+batch); i++ {
			if i > start {
				sb.WriteString(", ")
			}
			sb.WriteString("(?, ?, ?, ?, '', ?)")
			name := first[i%len(first)] + " " + last[(i/len(first))%len(last)]
			var phone *string
			if i%5 != 0 {
				phone = ptr(fmt.Sprintf("+4479%08d", i))
			}
			args = append(args, fmt.Sprintf("b%d.%s@bench.example.com", i, strings.ToLower(last[i%len(last)])),
				phone, name, strings.ToLower(name), now)
		}
		if _, err := store.DB(s).NewRaw(sb.String(), args...).Exec(ctx); err != nil {
			b.Fatal(err)
		}
	}
	_, err = store.DB(s).NewRaw(`INSERT INTO trainees (company_id, user_id, expiration_date, last_trained, enabled,
		created_by_type, force_password_change, weight_unit, created_at, updated_at, search_name, email, phone)
		SELECT ?, u.id,
			CASE WHEN u.id % 3 = 0 THEN NULL ELSE 20250000 + (u.id % 24 + 1) * 100 + u.id % 28 + 1 END,
			CASE WHEN u.id % 4 = 0 THEN NULL ELSE 20260000 + (u.id % 5 + 1) * 100 + u.id % 28 + 1 END,
			u.id % 50 <> 0, 'ADMIN', FALSE, 'KG', ?, ?, u.search_name, u.email, u.phone
		FROM users u WHERE u.email LIKE '%@bench.example.com'`, c.ID, now, now).Exec(ctx)
	if err != nil {
		b.Fatal(err)
	}
	// VACUUM also flushes the GIN pending lists, as autovacuum would.
	analyze := "ANALYZE"
	if s.Dialect() == "postgres" {
		analyze = "VACUUM ANALYZE"
	}
	if _, err := store.DB(s).NewRaw(analyze).Exec(ctx); err != nil {
		b.Fatal(err)
	}
	got, _, err := s.SearchTrainees(ctx, c.ID, api.Search{Status: api.StatusAll, Sort: api.SortID, Page: 10, Size: 1})
	if err != nil || len(got) != 1 {
		b.Fatalf("bench data: %v, %v", got, err)
	}
	return c.ID, got[0].ID
}

// benchCompany is the company of benchTrainees trainees the benchmark
// reads: loaded into a new database, or, when TRAINEED_BENCH_DB names a
// database (a postgres:// URL or sqlite:PATH, kept between runs), loaded
// there once and reused by the next runs with the same
// TRAINEED_BENCH_TRAINEES.
func benchCompany(b *testing.B, open func(testing.TB) *store.Store, dialect string) (*store.Store, int64, int64) {
	n := benchTrainees(b)
	url := os.Getenv("TRAINEED_BENCH_DB")
	if url == "" || strings.HasPrefix(url, "sqlite:") != (dialect == "sqlite") {
		s := open(b)
		company, id := bulkLoad(b, s, n)
		return s, company, id
	}
	s := storetest.Open(b, url)
	var companies []int64
	err := store.DB(s).NewRaw(`SELECT c.id FROM companies c WHERE c.name = 'Bench Gym'
		AND (SELECT count(*) FROM trainees t WHERE t.company_id = c.id) = ?`, n).Scan(ctx, &companies)
	if err != nil {
		b.Fatal(err)
	}
	if len(companies) == 0 { // one TRAINEED_BENCH_TRAINEES per database: the e-mails are unique
		company, id := bulkLoad(b, s, n)
		return s, company, id
	}
	got, _, err := s.SearchTrainees(ctx, companies[0], api.Search{Status: api.StatusAll, Sort: api.SortID, Page: 10, Size: 1})
	if err != nil || len(got) != 1 {
		b.Fatalf("bench data: %v, %v", got, err)
	}
	fmt.Printf("reusing %d trainees of company %d in TRAINEED_BENCH_DB\n", n, companies[0])
	return s, companies[0], got[0].ID
}

// explainHook records the statements of a store call, so that
// TRAINEED_BENCH_EXPLAIN=1 can print their plans.
type explainHook struct {
	on      bool
	queries []string
}

func (h *explainHook) BeforeQuery(ctx context.Context, _ *bun.QueryEvent) context.Context { return ctx }

func (h *explainHook) AfterQuery(_ context.Context, e *bun.QueryEvent) {
	if h.on && strings.HasPrefix(strings.TrimSpace(e.Query), "SELECT") {
		h.queries = append(h.queries, e.Query)
	}
}

// explain runs f once more and prints EXPLAIN (ANALYZE, BUFFERS) of every
// SELECT it made (PostgreSQL) or EXPLAIN QUERY PLAN (SQLite).
func (h *explainHook) explain(b *testing.B, s *store.Store, name string, f func() error) {
	h.on, h.queries = true, nil
	err := f()
	h.on = false
	if err != nil {
		b.Fatal(err)
	}
	prefix := "EXPLAIN (ANALYZE, BUFFERS) "
	if s.Dialect() == "sqlite" {
		prefix = "EXPLAIN QUERY PLAN "
	}
	for _, q := range h.queries {
		var plan []string
		rows, err := store.DB(s).QueryContext(ctx, prefix+q)
		if err != nil {
			b.Fatal(err)
		}
		cols, _ := rows.Columns()
		for rows.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				b.Fatal(err)
			}
			plan = append(plan, fmt.Sprint(vals[len(vals)-1]))
		}
		rows.Close()
		fmt.Printf("--- %s\n%s\n%s\n", name, q, strings.Join(plan, "\n"))
	}
}

// BenchmarkStore measures the trainee reads of the API on a company of
// benchTrainees trainees and reports p95 latencies:
//
//	TRAINEED_TEST_POSTGRES=postgres://... go test -run '^$' -bench Store -benchtime 200x ./store/
//
// TRAINEED_BENCH_DB keeps the loaded data between runs (see benchCompany);
// TRAINEED_BENCH_EXPLAIN=1 prints the plan of every search shape.
func BenchmarkStore(b *testing.B) {
	for _, db := range []struct {
		name string
		open func(testing.TB) *store.Store
	}{{"sqlite", storetest.SQLite}, {"postgres", storetest.Postgres}} {
		b.Run(db.name, func(b *testing.B) {
			s, company, id := benchCompany(b, db.open, db.name)
			hook := &explainHook{}
			store.DB(s).AddQueryHook(hook)
			explain := os.Getenv("TRAINEED_BENCH_EXPLAIN") == "1"
			today := api.Date{Year: 2026, Month: 3, Day: 1}

			p95 := func(b *testing.B, f func() error) {
				if explain {
					hook.explain(b, s, b.Name(), f)
				}
				durations := make([]time.Duration, 0, b.N)
				b.ResetTimer()
				for b.Loop() {
					start := time.Now()
					if err := f(); err != nil {
						b.Fatal(err)
					}
					durations = append(durations, time.Since(start))
				}
				slices.Sort(durations)
				b.ReportMetric(float64(durations[len(durations)*95/100].Microseconds())/1000, "p95-ms")
			}
			b.Run("get", func(b *testing.B) {
				p95(b, func() error { _, err := s.Trainee(ctx, company, id); return err })
			})
			for _, q := range []api.Search{
				{Query: "anna", Status: api.StatusLive, Sort: api.SortID},
				{Query: "nowak", Status: api.StatusLive, Sort: api.SortName},
				{Query: "b4242", Status: api.StatusAll, Sort: api.SortID},
				{Query: "zz", Status: api.StatusLive, Sort: api.SortID},
				{Query: "zo", Status: api.StatusLive, Sort: api.SortName}, // 2 characters, common (a TUI keystroke)
				{Query: "ł", Status: api.StatusLive, Sort: api.SortName},  // 1 character, non-ASCII
				{Query: "7900 1234", Digits: "79001234", Status: api.StatusLive, Sort: api.SortID},
				{Status: api.StatusLive, Sort: api.SortID},
				{Status: api.StatusActive, Sort: api.SortExpirationDate, Desc: true},
				{Status: api.StatusLive, Sort: api.SortName, Page: 50},
				{Status: api.StatusLive, Sort: api.SortID, Page: 999},   // the 1,000th page
				{Status: api.StatusLive, Sort: api.SortName, Page: 999}, // the 1,000th page
			} {
				q.Size, q.Today = 20, today
				name := fmt.Sprintf("search q=%q status=%s sort=%s", q.Query, q.Status, q.Sort)
				if q.Page > 0 {
					name += fmt.Sprintf(" page=%d", q.Page)
				}
				b.Run(name, func(b *testing.B) {
					p95(b, func() error { _, _, err := s.SearchTrainees(ctx, company, q); return err })
				})
			}
			// The 1,000th page by cursor: the cursor that page 999 (read
			// with page=) gives.
			for _, q := range []api.Search{
				{Status: api.StatusLive, Sort: api.SortID},
				{Status: api.StatusLive, Sort: api.SortName},
				{Status: api.StatusLive, Sort: api.SortLastTrained, Desc: true},
			} {
				q.Size, q.Today, q.Page = 20, today, 998
				page, total, err := s.SearchTrainees(ctx, company, q)
				if err != nil {
					b.Fatal(err)
				}
				next := q.NextCursor(page, total)
				if next == nil {
					b.Fatalf("%+v: no next page", q)
				}
				c, err := api.DecodeCursor(*next)
				if err != nil {
					b.Fatal(err)
				}
				q.Page, q.Cursor = 0, &c
				name := fmt.Sprintf("search status=%s sort=%s desc=%v cursor of page=999", q.Status, q.Sort, q.Desc)
				b.Run(name, func(b *testing.B) {
					p95(b, func() error { _, _, err := s.SearchTrainees(ctx, company, q); return err })
				})
			}
		})
	}
}
