package store_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/store"
	"github.com/traineed/traineed/store/storetest"
)

// mirrorMismatches lists the trainees whose copies of their user's
// search_name, email and phone differ from the user's.
func mirrorMismatches(t *testing.T, s *store.Store) []string {
	t.Helper()
	var rows []struct {
		ID                         int64
		TName, TEmail, UName, UEml string
		TPhone, UPhone             *string
	}
	err := storetest.DB(t, s).NewRaw(`SELECT t.id, t.search_name AS t_name, t.email AS t_email, t.phone AS t_phone,
		u.search_name AS u_name, u.email AS u_eml, u.phone AS u_phone
		FROM trainees AS t JOIN users AS u ON u.id = t.user_id ORDER BY t.id`).Scan(ctx, &rows)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) == 0 {
		t.Fatal("no trainees")
	}
	var out []string
	for _, r := range rows {
		if r.TName != r.UName || r.TEmail != r.UEml || (r.TPhone == nil) != (r.UPhone == nil) ||
			r.TPhone != nil && *r.TPhone != *r.UPhone || r.TName == "" || r.TEmail == "" {
			out = append(out, fmt.Sprintf("trainee %d: %q %q %v, user %q %q %v", r.ID, r.TName, r.TEmail, r.TPhone, r.UName, r.UEml, r.UPhone))
		}
	}
	return out
}

// TestSearchColumnsFollowUser: the copies on trainees of the user's
// search_name, email and phone stay equal to the user's through creates,
// updates of each (and of nothing of the user), clearing the phone, and a
// load (the import and demo path).
func TestSearchColumnsFollowUser(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		tn := storetest.SetupTenants(t, s)
		nt := storetest.NewTrainee("Ada Lovelace", "Ada@Example.com")
		nt.PhoneNumber = ptr("+447700900001")
		a := storetest.MustCreate(t, s, tn.A, nt)
		b := storetest.MustCreate(t, s, tn.A, storetest.NewTrainee("Grace Hopper", "grace@example.com"))
		if m := mirrorMismatches(t, s); m != nil {
			t.Fatalf("after create: %q", m)
		}
		for _, p := range []api.TraineePatch{
			{Name: api.Val("ÉMILE Zola")},
			{Email: api.Val("Emile@Example.org")},
			{PhoneNumber: api.Val("+447700900002")},
			{PhoneNumber: api.Null[string]()},
			{Name: api.Val("Ada King"), Email: api.Val("ada.king@example.com"), PhoneNumber: api.Val("+447700900003")},
			{Enabled: api.Val(false)}, // no user column
		} {
			if _, err := s.UpdateTrainee(ctx, tn.A, a.ID, p); err != nil {
				t.Fatal(err)
			}
			if m := mirrorMismatches(t, s); m != nil {
				t.Fatalf("after %+v: %q", p, m)
			}
		}
		if _, err := s.UpdateTrainee(ctx, tn.A, b.ID, api.TraineePatch{PhoneNumber: api.Val("+12025550100")}); err != nil {
			t.Fatal(err)
		}
		err := s.Load(ctx, func(ctx context.Context, l *store.Loader) error {
			nt := storetest.NewTrainee("Loaded One", "LOADED@example.com")
			nt.PhoneNumber = ptr("+447700900009")
			_, err := l.CreateTrainee(ctx, tn.B, nt, false)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		if m := mirrorMismatches(t, s); m != nil {
			t.Fatalf("after update and load: %q", m)
		}
		// And search finds them by the new values only.
		f := &searchFixture{s: s, company: tn.A, today: date(t, "15-06-2026")}
		got, _ := f.search(t, api.Search{Query: "king", Status: api.StatusAll})
		old, _ := f.search(t, api.Search{Query: "lovelace", Status: api.StatusAll})
		phone, _ := f.search(t, api.Search{Query: "900003", Digits: "900003", Status: api.StatusAll})
		if len(got) != 1 || len(old) != 0 || len(phone) != 1 || got[0].ID != a.ID {
			t.Errorf("search after update: %q, %q, %q", names(got), names(old), names(phone))
		}
	})
}

// cursorOf decodes a page's nextCursor as the API would.
func cursorOf(t *testing.T, next *string) *api.Cursor {
	t.Helper()
	c, err := api.DecodeCursor(*next)
	if err != nil {
		t.Fatalf("nextCursor %q: %v", *next, err)
	}
	return &c
}

// walkByCursor reads q from its first page by following nextCursor,
// checking each page's totals against the same page read with page=.
func walkByCursor(t *testing.T, f *searchFixture, q api.Search) []*api.Trainee {
	t.Helper()
	var walked []*api.Trainee
	for i := 0; ; i++ {
		if i > 1000 {
			t.Fatalf("%+v: no end", q)
		}
		got, total := f.search(t, q)
		byPage := q
		byPage.Cursor, byPage.Page = nil, i
		want, wantTotal := f.search(t, byPage)
		if !slices.Equal(ids(got), ids(want)) || total != wantTotal || q.PageInfo(total) != byPage.PageInfo(wantTotal) {
			t.Fatalf("%s desc=%v q=%q status=%s page %d: by cursor %v total %d %+v, by page %v total %d %+v",
				q.Sort, q.Desc, q.Query, q.Status, i, ids(got), total, q.PageInfo(total), ids(want), wantTotal, byPage.PageInfo(wantTotal))
		}
		walked = append(walked, got...)
		next := q.NextCursor(got, total)
		if next == nil {
			if more, _ := f.search(t, api.Search{Query: q.Query, Digits: q.Digits, Status: q.Status, Sort: q.Sort, Desc: q.Desc,
				Size: q.Size, Page: i + 1}); len(more) != 0 {
				t.Fatalf("%+v: no nextCursor on page %d, but page %d has %d rows", q, i, i+1, len(more))
			}
			return walked
		}
		if len(got) != q.Size {
			t.Fatalf("%+v: a nextCursor after a short page %d", q, i)
		}
		q.Cursor = cursorOf(t, next)
	}
}

// TestSearchCursorWalk: following nextCursor gives exactly the rows and
// totals of walking page by page, for every sort and direction (nulls and
// ties included), every status, with and without q; the last page has no
// nextCursor.
func TestSearchCursorWalk(t *testing.T) {
	skipUnderRace(t)
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		f := setupSearch(t, s)
		// Ties in the name sort: equal names, and names equal lower-cased.
		for i, name := range []string{"Twin Name", "TWIN NAME", "Twin Name", "twin name"} {
			nt := storetest.NewTrainee(name, fmt.Sprintf("twin%d@example.com", i))
			nt.Enabled = i != 2
			f.trainees = append(f.trainees, storetest.MustCreate(t, s, f.company, nt))
		}
		walks := 0
		for _, sort := range []string{api.SortID, api.SortName, api.SortEmail, api.SortExpirationDate, api.SortLastTrained} {
			for _, desc := range []bool{false, true} {
				for _, status := range []string{api.StatusLive, api.StatusActive, api.StatusExpired, api.StatusDeleted, api.StatusAll} {
					for _, query := range []string{"", "example.com", "nobody"} {
						q := api.Search{Query: query, Status: status, Sort: sort, Desc: desc, Size: 3, Today: f.today}
						want := f.expect(q)
						got := walkByCursor(t, f, q)
						if !slices.Equal(ids(got), ids(want)) {
							t.Errorf("cursor walk %s desc=%v status=%s q=%q:\n got %v\nwant %v", sort, desc, status, query, ids(got), ids(want))
						}
						if len(want) > 3 {
							walks++
						}
					}
				}
			}
		}
		if walks < 50 {
			t.Errorf("only %d walks cross a page", walks)
		}
	})
}

// TestSearchCursorConcurrentCreate: trainees created between two cursor
// calls neither repeat a row nor hide one: the walk goes on after the
// cursor's row, and shows a new trainee that sorts after it.
func TestSearchCursorConcurrentCreate(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		f := setupSearch(t, s)
		for _, sort := range []string{api.SortName, api.SortID, api.SortLastTrained} {
			q := api.Search{Status: api.StatusLive, Sort: sort, Size: 4, Today: f.today}
			before := f.expect(q)
			first, total := f.search(t, q)
			q.Cursor = cursorOf(t, q.NextCursor(first, total))
			// One sorts before the cursor's row, one after every row.
			early := storetest.MustCreate(t, s, f.company, storetest.NewTrainee("AAA "+sort, "aaa."+sort+"@example.com"))
			late := storetest.MustCreate(t, s, f.company, storetest.NewTrainee("zzz "+sort, "zzz."+sort+"@example.com"))
			walked := slices.Clone(first)
			for {
				got, total := f.search(t, q)
				walked = append(walked, got...)
				next := q.NextCursor(got, total)
				if next == nil {
					break
				}
				q.Cursor = cursorOf(t, next)
			}
			seen := map[int64]bool{}
			for _, tr := range walked {
				if seen[tr.ID] {
					t.Fatalf("sort %s: trainee %d twice: %v", sort, tr.ID, ids(walked))
				}
				seen[tr.ID] = true
			}
			for _, tr := range before {
				if !seen[tr.ID] {
					t.Errorf("sort %s: trainee %d skipped", sort, tr.ID)
				}
			}
			if !seen[late.ID] {
				t.Errorf("sort %s: the trainee created after the cursor's row is missing", sort)
			}
			if sort == api.SortName && seen[early.ID] {
				t.Errorf("sort %s: the trainee created before the cursor's row shows up", sort)
			}
			f.trainees = append(f.trainees, early, late)
		}
	})
}

// TestSearchCursorDeep: past api.ExactTotalBound a cursor page gives the
// rows and the lower-bound totals of the same page read with page=.
func TestSearchCursorDeep(t *testing.T) {
	skipUnderRace(t)
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		company, _ := bulkLoad(t, s, api.ExactTotalBound+500)
		f := &searchFixture{s: s, company: company, today: date(t, "01-03-2026")}
		for _, q := range []api.Search{
			{Status: api.StatusAll, Sort: api.SortID, Size: 100},
			{Status: api.StatusLive, Sort: api.SortName, Size: 100, Desc: true},
			{Status: api.StatusLive, Sort: api.SortExpirationDate, Size: 100, Desc: true},
			{Status: api.StatusLive, Sort: api.SortLastTrained, Size: 100},
		} {
			q.Today = f.today
			got := walkByCursor(t, f, q)
			if len(got) <= api.ExactTotalBound || len(slices.Compact(slices.Sorted(slices.Values(ids(got))))) != len(got) {
				t.Errorf("%+v: walked %d rows, or some twice", q, len(got))
			}
		}
	})
}

// TestSearchShortQuery: a q of one or two characters (no trigram; on
// PostgreSQL the short-grams index serves it) finds exactly what the
// substring rule finds, multi-byte characters and LIKE's specials included.
func TestSearchShortQuery(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		f := setupSearch(t, s)
		found := 0
		// A short q is served by an index of q (short grams on PostgreSQL,
		// FTS5 terms on SQLite) or by the walk of the page's index, chosen
		// by a sample (walkFinds): both ways (forced), and the choice
		// itself, must find the same.
		for _, probe := range []struct {
			rows  int
			share float64
		}{{5000, 0.02}, {1, 2}, {1 << 30, 0}} {
			restore := store.SetWalkProbe(probe.rows, probe.share)
			defer restore()
			for _, query := range []string{"an", "AN", "zo", "ë", "Ł", "łu", "ë ", " m", "@e", ".c", "%", "0%", "_", "r_", `\`, `k\`, "00", "7", "zz", "q"} {
				for _, status := range []string{api.StatusLive, api.StatusAll} {
					q := api.Search{Query: strings.TrimSpace(query), Status: status, Sort: api.SortName}
					got, total := f.search(t, q)
					want := f.expect(q)
					if !slices.Equal(ids(got), ids(want)) || total != int64(len(want)) {
						t.Errorf("q=%q status=%s: got %q (%d), want %q", query, status, names(got), total, names(want))
					}
					found += len(want)
				}
			}
			restore()
		}
		if found < 150 {
			t.Errorf("the short queries found only %d", found)
		}
	})
}
