package store_test

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/store"
	"github.com/traineed/traineed/store/storetest"
)

// searchFixture is a company whose trainees cover every search case, with
// the trainees as stored (the model the expectations are computed from).
type searchFixture struct {
	s        *store.Store
	company  int64
	today    api.Date
	trainees []*api.Trainee
}

type seedTrainee struct {
	name, email, phone string
	exp, last          *int // days from today
	deleted            bool
}

func setupSearch(t *testing.T, s *store.Store) *searchFixture {
	t.Helper()
	tn := storetest.SetupTenants(t, s)
	f := &searchFixture{s: s, company: tn.A, today: date(t, "15-06-2026")}
	seeds := []seedTrainee{
		{name: "Anna Smith", email: "anna.smith@example.com", phone: "+447700900123", exp: ptr(-10), last: ptr(-1)},
		{name: "ANNABEL Jones", email: "bel@example.org", exp: ptr(0)},
		{name: "Joanna Brown", email: "jo@example.net", phone: "+12025550142", exp: ptr(1), last: ptr(-1)},
		{name: "Zoë Martin", email: "zoe@example.com", phone: "+447700900124", last: ptr(-5)},
		{name: "Łukasz Nowak", email: "lukasz@example.com", exp: ptr(30), last: ptr(-5)},
		{name: "Bob 100% Real", email: "bob@example.com", exp: ptr(30), deleted: true},
		{name: "under_score Guy", email: "guy@example.com", exp: ptr(-3), deleted: true},
		{name: `Back\slash`, email: "back@example.com", last: ptr(-30)},
		{name: "Carl 7700", email: "carl7700@example.com"},
		{name: "Émile Zola", email: "emile@example.com", exp: ptr(400)},
	}
	rng := rand.New(rand.NewPCG(7, 7))
	for i := range 22 {
		sd := seedTrainee{name: fmt.Sprintf("Member %02d", 21-i), email: fmt.Sprintf("m%02d@example.com", i)}
		if v := rng.IntN(5); v > 0 {
			sd.exp = ptr(v*20 - 50) // ties, past and future
		}
		if v := rng.IntN(4); v > 0 {
			sd.last = ptr(-v * 3)
		}
		sd.deleted = rng.IntN(6) == 0
		seeds = append(seeds, sd)
	}
	for _, sd := range seeds {
		nt := storetest.NewTrainee(sd.name, sd.email)
		if sd.phone != "" {
			nt.PhoneNumber = ptr(sd.phone)
		}
		if sd.exp != nil {
			nt.ExpirationDate = ptr(f.today.AddDays(*sd.exp))
		}
		nt.Enabled = !sd.deleted
		tr := storetest.MustCreate(t, s, tn.A, nt)
		if sd.last != nil {
			d := f.today.AddDays(*sd.last)
			if _, err := store.DB(s).NewUpdate().Table("trainees").Set("last_trained = ?", d.Int()).Where("id = ?", tr.ID).Exec(ctx); err != nil {
				t.Fatal(err)
			}
			tr.LastTrained = &d
		}
		f.trainees = append(f.trainees, tr)
	}
	// Another company's look-alikes never show up.
	b := storetest.NewTrainee("Anna Other", "anna@beta.example.com")
	b.PhoneNumber = ptr("+447700900125")
	storetest.MustCreate(t, s, tn.B, b)
	return f
}

// expect computes the search result from the model.
func (f *searchFixture) expect(q api.Search) []*api.Trainee {
	var out []*api.Trainee
	lq := strings.ToLower(q.Query)
	for _, tr := range f.trainees {
		if q.Query != "" && !strings.Contains(strings.ToLower(tr.Name), lq) && !strings.Contains(tr.Email, lq) &&
			!(q.Digits != "" && tr.PhoneNumber != nil && strings.Contains(*tr.PhoneNumber, q.Digits)) {
			continue
		}
		st := tr.Status(f.today)
		switch q.Status {
		case api.StatusLive:
			if st == api.StatusDeleted {
				continue
			}
		case api.StatusActive, api.StatusExpired, api.StatusDeleted:
			if st != q.Status {
				continue
			}
		}
		out = append(out, tr)
	}
	dateKey := func(d *api.Date) *int {
		if d == nil {
			return nil
		}
		return ptr(d.Int())
	}
	slices.SortStableFunc(out, func(a, b *api.Trainee) int {
		var c int
		switch q.Sort {
		case api.SortID:
			c = cmp.Compare(a.ID, b.ID)
			if q.Desc {
				c = -c
			}
			return c
		case api.SortName:
			c = strings.Compare(strings.ToLower(a.Name), strings.ToLower(b.Name))
		case api.SortEmail:
			c = strings.Compare(a.Email, b.Email)
		case api.SortExpirationDate, api.SortLastTrained:
			x, y := dateKey(a.ExpirationDate), dateKey(b.ExpirationDate)
			if q.Sort == api.SortLastTrained {
				x, y = dateKey(a.LastTrained), dateKey(b.LastTrained)
			}
			switch {
			case x == nil && y == nil:
			case x == nil:
				return 1 // nulls last in both directions
			case y == nil:
				return -1
			default:
				c = cmp.Compare(*x, *y)
			}
		}
		if q.Desc {
			c = -c
		}
		if c == 0 {
			c = cmp.Compare(a.ID, b.ID)
		}
		return c
	})
	return out
}

func (f *searchFixture) search(t *testing.T, q api.Search) ([]*api.Trainee, int64) {
	t.Helper()
	if q.Size == 0 {
		q.Size = 100
	}
	if q.Sort == "" {
		q.Sort = api.SortID
	}
	if q.Status == "" {
		q.Status = api.StatusLive
	}
	q.Today = f.today
	got, total, err := f.s.SearchTrainees(ctx, f.company, q)
	if err != nil {
		t.Fatalf("search %+v: %v", q, err)
	}
	return got, total
}

func names(ts []*api.Trainee) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.Name
	}
	return out
}

func ids(ts []*api.Trainee) []int64 {
	out := make([]int64, len(ts))
	for i, t := range ts {
		out[i] = t.ID
	}
	return out
}

func TestSearchQuery(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		f := setupSearch(t, s)
		for _, c := range []struct {
			q, digits string
			status    string
			want      []string // in id order
		}{
			{q: "anna", want: []string{"Anna Smith", "ANNABEL Jones", "Joanna Brown"}},
			{q: "ANNA", want: []string{"Anna Smith", "ANNABEL Jones", "Joanna Brown"}},
			{q: "ZOË", want: []string{"Zoë Martin"}},
			{q: "zoë martin", want: []string{"Zoë Martin"}},
			{q: "ŁUKASZ", want: []string{"Łukasz Nowak"}},
			{q: "émile", want: []string{"Émile Zola"}},
			{q: "example.org", want: []string{"ANNABEL Jones"}},
			{q: "SMITH@EXAMPLE", want: []string{"Anna Smith"}},
			{q: "%", status: api.StatusAll, want: []string{"Bob 100% Real"}},
			{q: "_", status: api.StatusAll, want: []string{"under_score Guy"}},
			{q: `\`, want: []string{`Back\slash`}},
			{q: "7700 900", digits: "7700900", want: []string{"Anna Smith", "Zoë Martin"}},
			{q: "+44 7700-900.124", digits: "447700900124", want: []string{"Zoë Martin"}},
			{q: "0142", digits: "0142", want: []string{"Joanna Brown"}},
			{q: "7700", digits: "7700", want: []string{"Anna Smith", "Zoë Martin", "Carl 7700"}},
			// A q with letters never matches by phone.
			{q: "7700900a", want: nil},
			{q: "x7700", want: nil},
			{q: "nobody", want: nil},
		} {
			status := c.status
			if status == "" {
				status = api.StatusLive
			}
			q := api.Search{Query: c.q, Digits: c.digits, Status: status, Sort: api.SortID}
			got, total := f.search(t, q)
			if !slices.Equal(names(got), c.want) || total != int64(len(c.want)) {
				t.Errorf("q %q: got %q (total %d), want %q", c.q, names(got), total, c.want)
			}
			if want := names(f.expect(q)); !slices.Equal(want, c.want) {
				t.Errorf("q %q: the test's model says %q", c.q, want)
			}
		}
	})
}

func TestSearchStatus(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		f := setupSearch(t, s)
		counts := map[string]int{}
		for _, status := range []string{api.StatusLive, api.StatusActive, api.StatusExpired, api.StatusDeleted, api.StatusAll} {
			q := api.Search{Status: status, Sort: api.SortID}
			got, total := f.search(t, q)
			want := f.expect(q)
			if !slices.Equal(ids(got), ids(want)) || total != int64(len(want)) {
				t.Errorf("status %s: got %q (total %d), want %q", status, names(got), total, names(want))
			}
			counts[status] = len(got)
		}
		if counts[api.StatusLive] != counts[api.StatusActive]+counts[api.StatusExpired] ||
			counts[api.StatusAll] != counts[api.StatusLive]+counts[api.StatusDeleted] ||
			counts[api.StatusActive] == 0 || counts[api.StatusExpired] == 0 || counts[api.StatusDeleted] == 0 {
			t.Errorf("status counts %v", counts)
		}
		// The edges of "expired": expiration today is expired, tomorrow active.
		expired, _ := f.search(t, api.Search{Query: "annabel", Status: api.StatusExpired, Sort: api.SortID})
		active, _ := f.search(t, api.Search{Query: "joanna", Status: api.StatusActive, Sort: api.SortID})
		if len(expired) != 1 || len(active) != 1 {
			t.Errorf("expiring today: %q; expiring tomorrow: %q", names(expired), names(active))
		}
		// A search with q and a status combines both.
		got, _ := f.search(t, api.Search{Query: "example.com", Status: api.StatusDeleted, Sort: api.SortID})
		if want := f.expect(api.Search{Query: "example.com", Status: api.StatusDeleted, Sort: api.SortID}); !slices.Equal(ids(got), ids(want)) {
			t.Errorf("deleted example.com: %q, want %q", names(got), names(want))
		}
	})
}

func TestSearchSort(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		f := setupSearch(t, s)
		for _, sort := range []string{api.SortID, api.SortName, api.SortEmail, api.SortExpirationDate, api.SortLastTrained} {
			for _, desc := range []bool{false, true} {
				q := api.Search{Status: api.StatusAll, Sort: sort, Desc: desc}
				got, _ := f.search(t, q)
				want := f.expect(q)
				if !slices.Equal(ids(got), ids(want)) {
					t.Errorf("sort %s desc=%v:\n got %q\nwant %q", sort, desc, names(got), names(want))
				}
			}
		}
		// Spot checks that do not rely on the model.
		byName, _ := f.search(t, api.Search{Status: api.StatusAll, Sort: api.SortName})
		if n := names(byName); n[0] != "ANNABEL Jones" && n[0] != "Anna Smith" || n[len(n)-1] != "Łukasz Nowak" {
			t.Errorf("by name: %q", n)
		}
		for _, desc := range []bool{false, true} {
			byExp, _ := f.search(t, api.Search{Status: api.StatusAll, Sort: api.SortExpirationDate, Desc: desc})
			seenNull := false
			for _, tr := range byExp {
				if tr.ExpirationDate == nil {
					seenNull = true
				} else if seenNull {
					t.Errorf("expirationDate desc=%v: a date after a null: %q", desc, names(byExp))
					break
				}
			}
			if !seenNull {
				t.Error("fixture has no null expiration dates")
			}
		}
	})
}

func TestSearchPagination(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		f := setupSearch(t, s)
		for _, q := range []api.Search{
			{Status: api.StatusAll, Sort: api.SortID},
			{Status: api.StatusAll, Sort: api.SortID, Desc: true},
			{Status: api.StatusAll, Sort: api.SortName, Desc: true},
			{Status: api.StatusLive, Sort: api.SortEmail},
			{Status: api.StatusAll, Sort: api.SortExpirationDate},
			{Status: api.StatusAll, Sort: api.SortExpirationDate, Desc: true},
			{Status: api.StatusAll, Sort: api.SortLastTrained, Desc: true},
			{Status: api.StatusLive, Sort: api.SortLastTrained},
			{Query: "example.com", Status: api.StatusAll, Sort: api.SortLastTrained},
		} {
			want := f.expect(q)
			var walked []*api.Trainee
			q.Size = 7
			pages := (len(want) + 6) / 7
			for q.Page = 0; q.Page <= pages; q.Page++ {
				got, total := f.search(t, q)
				if total != int64(len(want)) {
					t.Fatalf("%+v: total %d, want %d", q, total, len(want))
				}
				if q.Page < pages && (len(got) == 0 || len(got) > 7) || q.Page == pages && len(got) != 0 {
					t.Fatalf("%+v: %d rows on page %d of %d", q, len(got), q.Page, pages)
				}
				walked = append(walked, got...)
			}
			if !slices.Equal(ids(walked), ids(want)) {
				t.Errorf("walk %s desc=%v:\n got %v\nwant %v", q.Sort, q.Desc, ids(walked), ids(want))
			}
			if len(want) < 15 {
				t.Errorf("walk %+v covers only %d trainees", q, len(want))
			}
		}
	})
}

// TestSearchBoundedTotal: past api.ExactTotalBound matches a search
// counts only up to the end of its page (plus one), so totalElements is a
// lower bound that still promises a next page; near the end of the
// matches, and whenever they are few, the total is exact.
func TestSearchBoundedTotal(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		const n = api.ExactTotalBound + 500
		company, _ := bulkLoad(t, s, n)
		if got := storetest.Count(t, s, "trainees", "company_id = ?", company); got != n {
			t.Fatalf("loaded %d trainees, want %d", got, n)
		}
		for _, c := range []struct {
			q         api.Search
			total     int64
			exact     bool
			rows, min int // rows on the page; totalPages at least
		}{
			{api.Search{Status: api.StatusAll, Sort: api.SortID, Size: 20}, api.ExactTotalBound + 1, false, 20, 2},
			{api.Search{Status: api.StatusAll, Sort: api.SortName, Size: 20, Page: 510}, 511*20 + 1, false, 20, 512},
			{api.Search{Status: api.StatusAll, Sort: api.SortID, Size: 100, Page: 104}, n, true, 100, 105},
			{api.Search{Status: api.StatusAll, Sort: api.SortID, Size: 100, Page: 103}, 104*100 + 1, false, 100, 105},
			{api.Search{Status: api.StatusAll, Sort: api.SortID, Size: 100, Page: 105}, n, true, 0, 105},
			{api.Search{Query: "b42", Status: api.StatusAll, Sort: api.SortID, Size: 20}, 111, true, 20, 6},
			{api.Search{Query: "anna", Status: api.StatusAll, Sort: api.SortID, Size: 20}, 478, true, 20, 24},
		} {
			got, total, err := s.SearchTrainees(ctx, company, c.q)
			if err != nil {
				t.Fatal(err)
			}
			pi := c.q.PageInfo(total)
			if total != c.total || pi.TotalExact != c.exact || len(got) != c.rows || pi.TotalPages < c.min {
				t.Errorf("%+v: total %d exact %v, %d rows, %d pages; want %d %v, %d rows, at least %d pages",
					c.q, total, pi.TotalExact, len(got), pi.TotalPages, c.total, c.exact, c.rows, c.min)
			}
			if !c.exact && pi.TotalPages < c.q.Page+2 {
				t.Errorf("%+v: an inexact total promises no next page (%d pages)", c.q, pi.TotalPages)
			}
		}
	})
}
