package store_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/store"
	"github.com/traineed/traineed/store/storetest"
)

// The status rule's Go predicate and its SQL condition agree on every
// boundary (an expirationDate of yesterday, today, tomorrow or none, on a
// live and on a deleted trainee), for every status, on both databases; and
// a search by status (which uses the SQL) returns what the predicate says.
func TestStatusRuleAgrees(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		tn := storetest.SetupTenants(t, s)
		today := api.Today(time.Now(), time.UTC) // company A's zone
		var trainees []*api.Trainee
		for i, exp := range []*api.Date{nil, ptrDate(today.AddDays(-1)), &today, ptrDate(today.AddDays(1))} {
			for _, deleted := range []bool{false, true} {
				nt := storetest.NewTrainee(fmt.Sprintf("Boundary %d %v", i, deleted), fmt.Sprintf("b%d%v@example.com", i, deleted))
				nt.ExpirationDate = exp
				tr := storetest.MustCreate(t, s, tn.A, nt)
				if deleted {
					var err error
					if tr, err = s.UpdateTrainee(ctx, tn.A, tr.ID, api.TraineePatch{Enabled: api.Val(false)}); err != nil {
						t.Fatal(err)
					}
				}
				trainees = append(trainees, tr)
			}
		}
		db := storetest.DB(t, s)
		for _, status := range []string{api.StatusLive, api.StatusActive, api.StatusExpired, api.StatusDeleted, api.StatusAll} {
			r, err := api.RuleOf(status)
			if err != nil {
				t.Fatal(err)
			}
			var want []int64
			for _, tr := range trainees {
				if r.Holds(tr.Enabled, tr.ExpirationDate, today) != tr.HasStatus(status, today) {
					t.Fatalf("%s: Holds and HasStatus disagree on %+v", status, tr)
				}
				if tr.HasStatus(status, today) {
					want = append(want, tr.ID)
				}
			}
			q := db.NewSelect().Table("trainees").Column("id").Where("company_id = ?", tn.A).Order("id")
			if where, args := r.SQL("enabled", "expiration_date", today); where != "" {
				q = q.Where(where, args...)
			}
			var got []int64
			if err := q.Scan(ctx, &got); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, want) {
				t.Errorf("%s: SQL selects %v, the predicate %v", status, got, want)
			}
			page, _, err := s.SearchTrainees(ctx, tn.A, api.Search{Status: status, Size: 100, Sort: api.SortID, Today: today})
			if err != nil {
				t.Fatal(err)
			}
			var searched []int64
			for _, tr := range page {
				searched = append(searched, tr.ID)
			}
			if !slices.Equal(searched, want) {
				t.Errorf("%s: search returns %v, the predicate %v", status, searched, want)
			}
		}
		// The status a person sees is one of three, and the one that holds.
		for _, tr := range trainees {
			st := tr.Status(today)
			if !tr.HasStatus(st, today) || (st != api.StatusActive && st != api.StatusExpired && st != api.StatusDeleted) {
				t.Errorf("%+v shows as %s", tr, st)
			}
		}
	})
}

func ptrDate(d api.Date) *api.Date { return &d }
