package store_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/store"
	"github.com/traineed/traineed/store/storetest"
)

// referenceSearch is the search as plain SQL, without any of the store's
// plans: every trainee of the company read with LIKE and the status's
// condition, sorted by the sort key (nulls last in both directions, ties
// by id ascending). It returns the ids of every match in order.
func referenceSearch(t *testing.T, s *store.Store, company int64, q api.Search) []int64 {
	t.Helper()
	conds, args := []string{"t.company_id = ?"}, []any{company}
	rule, err := api.RuleOf(q.Status)
	if err != nil {
		t.Fatal(err)
	}
	if w, a := rule.SQL("t.enabled", "t.expiration_date", q.Today); w != "" {
		conds, args = append(conds, "("+w+")"), append(args, a...)
	}
	if q.Query != "" {
		esc := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)
		p := "%" + esc.Replace(strings.ToLower(q.Query)) + "%"
		c := `t.search_name LIKE ? ESCAPE '\' OR t.email LIKE ? ESCAPE '\'`
		args = append(args, p, p)
		if q.Digits != "" {
			c += ` OR t.phone LIKE ? ESCAPE '\'`
			args = append(args, "%"+q.Digits+"%")
		}
		conds = append(conds, "("+c+")")
	}
	col := map[string]string{api.SortID: "t.id", api.SortName: "t.search_name", api.SortEmail: "t.email",
		api.SortExpirationDate: "t.expiration_date", api.SortLastTrained: "t.last_trained"}[q.Sort]
	dir := "ASC"
	if q.Desc {
		dir = "DESC"
	}
	var out []int64
	err = store.DB(s).NewRaw("SELECT t.id FROM trainees AS t WHERE "+strings.Join(conds, " AND ")+
		" ORDER BY "+col+" "+dir+" NULLS LAST, t.id ASC", args...).Scan(ctx, &out)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestSearchMatchesReference: on a fixed data set of 10,600 trainees (more
// than api.ExactTotalBound match the densest q), every shape of search
// (kinds of q × status × sort and direction × paging by page and by
// cursor, deep pages included) answers the rows, the order and the totals
// that the reference (referenceSearch, a LIKE scan) and the documented
// bound give: total = min(matches, q.CountLimit()). It runs with the
// store's plans as they are, and with every way of SQLite's FTS5 index and
// of PostgreSQL's short-q sample forced.
func TestSearchMatchesReference(t *testing.T) {
	skipUnderRace(t)
	if testing.Short() {
		t.Skip("loads 10,600 trainees")
	}
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		company, _ := bulkLoad(t, s, 10_600)
		for _, sd := range []struct{ name, email, phone string }{
			{`Bob 100% Real`, `bob.pct@example.com`, ""},
			{`under_score Guy`, `guy_u@example.com`, "+12025550142"},
			{`Back\slash "Quote" Smith`, `back@example.com`, ""},
			{`Zoë Nowak-Łukasz`, `zoe.nowak@example.pl`, "+48601200300"},
		} {
			nt := storetest.NewTrainee(sd.name, sd.email)
			if sd.phone != "" {
				nt.PhoneNumber = ptr(sd.phone)
			}
			storetest.MustCreate(t, s, company, nt)
		}
		other, err := s.CreateCompany(ctx, "Other Gym", "UTC")
		if err != nil {
			t.Fatal(err)
		}
		storetest.MustTrainer(t, s, other.ID, "Other Coach", "coach@other.example.com")
		storetest.MustCreate(t, s, other.ID, storetest.NewTrainee("Anna Smith", "anna.smith@other.example.com"))

		today := api.Date{Year: 2025, Month: 7, Day: 15}
		// Every kind of q: none, dense (more than the bound match "a"),
		// one and two characters, names, e-mail fragments, phone digits,
		// LIKE's and FTS5's syntax, non-ASCII, no match. The first ones go
		// through every status and sort; all of them through the forced ways.
		queries := []string{"", "a", "zo", "ł", "smith", "b42", "+44 7900 0012", `"quote"`,
			"e", "an", "nowak", "NOWAK", "b1234.", "bench.example", "4479000", "7900", "%", "_", `\`, `"`,
			"anna OR", "zz", "müller", "yılmaz", "nowak-ł", "no-such-trainee"}
		check := func(t *testing.T, q api.Search) {
			t.Helper()
			q.Digits, q.Today = api.PhoneDigits(q.Query), today
			all := referenceSearch(t, s, company, q)
			name := fmt.Sprintf("q=%q status=%s sort=%s desc=%v", q.Query, q.Status, q.Sort, q.Desc)
			compare := func(how string, q api.Search) ([]*api.Trainee, int64) {
				got, total, err := s.SearchTrainees(ctx, company, q)
				if err != nil {
					t.Fatalf("%s %s: %v", name, how, err)
				}
				off := int(q.Offset())
				want := all[min(off, len(all)):min(off+q.Size, len(all))]
				if wantTotal := min(int64(len(all)), q.CountLimit()); !slices.Equal(ids(got), want) || total != wantTotal {
					t.Errorf("%s %s: ids %v total %d, want %v total %d", name, how, ids(got), total, want, wantTotal)
				}
				return got, total
			}
			q.Size = 20
			for _, page := range []int{0, len(all)/q.Size - 1, len(all) / q.Size, 600} {
				if page < 0 || (page == 600 && len(all) < api.ExactTotalBound) {
					continue
				}
				q.Page = page
				compare(fmt.Sprintf("page %d", page), q)
			}
			// By cursor: three pages from the first, then three from page 510
			// (past the bound when q is dense).
			for _, start := range []int{0, 510} {
				q.Page, q.Cursor = start, nil
				for i := range 3 {
					got, total := compare(fmt.Sprintf("cursor page %d", start+i), q)
					next := q.NextCursor(got, total)
					if next == nil {
						break
					}
					q.Page, q.Cursor = 0, cursorOf(t, next)
				}
				if len(all) < api.ExactTotalBound {
					break
				}
			}
		}
		sorts := []string{api.SortID, api.SortName, api.SortEmail, api.SortExpirationDate, api.SortLastTrained}
		statuses := []string{api.StatusLive, api.StatusActive, api.StatusExpired, api.StatusDeleted, api.StatusAll}
		// Each sort in both directions, a direction per status in turn (the
		// whole product took three minutes under the race detector).
		turn := 0
		for _, query := range queries[:8] {
			for _, status := range statuses {
				for _, sort := range sorts {
					turn++
					check(t, api.Search{Query: query, Status: status, Sort: sort, Desc: turn%2 == 0})
				}
			}
		}
		// Every way forced: SQLite's FTS5 list off for short q and dense
		// for longer q (the plain scan), or always the walk with the
		// candidates as a probe; PostgreSQL's sample saying rare (the
		// short-grams index) or read whole.
		for _, c := range []struct {
			limits    [3]int
			probeRows int
		}{{[3]int{1, 1, 1 << 30}, 1}, {[3]int{1, 1, 1}, 1}, {[3]int{1 << 30, 1 << 30, 1 << 30}, 1 << 30}} {
			restore := store.SetFTSLimits(c.limits[0], c.limits[1], c.limits[2])
			restoreProbe := store.SetWalkProbe(c.probeRows, 0.02)
			for _, query := range queries {
				for _, sort := range []string{api.SortID, api.SortName} {
					check(t, api.Search{Query: query, Status: api.StatusLive, Sort: sort, Desc: sort == api.SortName})
				}
			}
			restoreProbe()
			restore()
		}
		store.SetFTSOff(true)
		defer store.SetFTSOff(false)
		for _, query := range queries {
			check(t, api.Search{Query: query, Status: api.StatusLive, Sort: api.SortID})
		}
	})
}
