package store_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/store"
	"github.com/traineed/traineed/store/storetest"
)

type recHook struct{ qs []string }

func (h *recHook) BeforeQuery(ctx context.Context, e *bun.QueryEvent) context.Context { return ctx }
func (h *recHook) AfterQuery(ctx context.Context, e *bun.QueryEvent) {
	h.qs = append(h.qs, e.Query)
}

func TestExplore(t *testing.T) {
	if os.Getenv("EXPLORE") == "" {
		t.Skip()
	}
	s := storetest.SQLite(t)
	company, _ := bulkLoad(t, s, 100000)
	today := api.Date{Year: 2026, Month: 3, Day: 1}
	h := &recHook{}
	store.DB(s).AddQueryHook(h)
	qs := []api.Search{
		{Query: "anna", Status: api.StatusLive, Sort: api.SortID},
		{Query: "nowak", Status: api.StatusLive, Sort: api.SortName},
		{Query: "b4242", Status: api.StatusAll, Sort: api.SortID},
		{Query: "zz", Status: api.StatusLive, Sort: api.SortID},
		{Query: "an", Status: api.StatusLive, Sort: api.SortID},
		{Query: "a", Status: api.StatusLive, Sort: api.SortID},
		{Query: "7900 1234", Digits: "79001234", Status: api.StatusLive, Sort: api.SortID},
		{Status: api.StatusLive, Sort: api.SortID},
		{Status: api.StatusActive, Sort: api.SortExpirationDate, Desc: true},
		{Status: api.StatusLive, Sort: api.SortName, Page: 50},
	}
	if v := os.Getenv("EXPLORE_Q"); v != "" {
		qs = qs[:0]
		for _, x := range strings.Split(v, ",") {
			qs = append(qs, api.Search{Query: x, Status: api.StatusLive, Sort: api.SortID})
		}
	}
	for _, q := range qs {
		q.Size, q.Today = 20, today
		h.qs = nil
		var best time.Duration = time.Hour
		var total int64
		for range 5 {
			start := time.Now()
			_, n, err := s.SearchTrainees(ctx, company, q)
			if err != nil {
				t.Fatal(err)
			}
			total = n
			best = min(best, time.Since(start))
		}
		fmt.Printf("== %+v: best %s total %d\n", q, best, total)
		for _, sql := range h.qs {
			if strings.HasPrefix(sql, "BEGIN") || strings.HasPrefix(sql, "COMMIT") {
				continue
			}
			start := time.Now()
			store.DB(s).NewRaw(sql).Exec(ctx)
			fmt.Printf("  %s  %s\n", time.Since(start), sql)
			rows, err := store.DB(s).QueryContext(ctx, "EXPLAIN QUERY PLAN "+sql)
			if err != nil {
				t.Fatal(err)
			}
			for rows.Next() {
				var id, parent, notused int
				var detail string
				rows.Scan(&id, &parent, &notused, &detail)
				fmt.Printf("    %d %d %s\n", id, parent, detail)
			}
			rows.Close()
		}
	}
}

func TestExploreSQL(t *testing.T) {
	if os.Getenv("EXPLORE_SQL") == "" {
		t.Skip()
	}
	s := storetest.SQLite(t)
	bulkLoad(t, s, 100000)
	b, _ := os.ReadFile(os.Getenv("EXPLORE_SQL"))
	for _, sql := range strings.Split(string(b), "\n;\n") {
		sql = strings.TrimSpace(sql)
		if sql == "" {
			continue
		}
		best := time.Hour
		var n int
		for range 7 {
			start := time.Now()
			rows, err := store.DB(s).QueryContext(ctx, sql)
			if err != nil {
				t.Fatal(sql, err)
			}
			n = 0
			for rows.Next() {
				n++
			}
			rows.Close()
			best = min(best, time.Since(start))
		}
		fmt.Printf("%s rows=%d  %s\n", best, n, sql)
		rows, err := store.DB(s).QueryContext(ctx, "EXPLAIN QUERY PLAN "+sql)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var id, parent, notused int
			var detail string
			rows.Scan(&id, &parent, &notused, &detail)
			fmt.Printf("    %d %d %s\n", id, parent, detail)
		}
		rows.Close()
	}
}
