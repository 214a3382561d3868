package store_test

import (
	"fmt"
	"testing"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/store"
	"github.com/traineed/traineed/store/storetest"
)

// AddTraineesBulk writes whole trainees of the company only: another
// company's trainer is refused before anything is written, a taken
// e-mail fails its chunk and leaves the chunks before it.
func TestAddTraineesBulk(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ten := storetest.SetupTenants(t, s)
		mk := func(from, n int) []api.NewTrainee {
			var ts []api.NewTrainee
			for i := from; i < from+n; i++ {
				tr := api.NewTrainee{Name: fmt.Sprintf(" Bulk Zoë %d ", i), Email: fmt.Sprintf("Bulk%d@Example.com", i), Enabled: i%10 != 0}
				if i%3 == 0 {
					tr.PhoneNumber = ptr(fmt.Sprintf("+4479%08d", i))
				}
				if i%2 == 0 {
					tr.TrainerID = &ten.TrainerA2
					exp := date(t, "01-02-2027")
					tr.ExpirationDate, tr.LastTrained = &exp, &exp
				}
				ts = append(ts, tr)
			}
			return ts
		}
		bad := mk(0, 3)
		bad[2].TrainerID = &ten.TrainerB
		err := s.AddTraineesBulk(ctx, ten.A, bad, "$argon2id$bulk")
		wantCode(t, err, api.CodeUnknownTrainer, "trainerId")
		if n := storetest.Count(t, s, "trainees", "company_id = ?", ten.A); n != 0 {
			t.Fatalf("%d trainees after a refused load", n)
		}
		if err := s.AddTraineesBulk(ctx, ten.A, mk(0, 1500), "$argon2id$bulk"); err != nil {
			t.Fatal(err)
		}
		got := storetest.MustGet(t, s, ten.A, firstID(t, s, ten.A))
		if got.Name != "Bulk Zoë 0" || got.Email != "bulk0@example.com" || got.Enabled || got.TrainerID == nil || *got.TrainerID != ten.TrainerA2 ||
			got.ExpirationDate == nil || got.LastTrained == nil || got.WeightUnit != api.UnitKG || got.CreatedByType != api.CreatedByAdmin {
			t.Errorf("first trainee %+v", got)
		}
		if n := storetest.Count(t, s, "trainees", "company_id = ? AND deleted_at IS NOT NULL", ten.A); n != 150 {
			t.Errorf("%d soft-deleted, want 150", n)
		}
		// 1,000 new ones, then 1000..1499 again: the second chunk fails.
		err = s.AddTraineesBulk(ctx, ten.A, mk(1500, 1000), "x")
		if err != nil {
			t.Fatal(err)
		}
		if err := s.AddTraineesBulk(ctx, ten.A, append(mk(2500, 1000), mk(1000, 10)...), "x"); err == nil {
			t.Fatal("a taken e-mail was stored")
		}
		if n := storetest.Count(t, s, "trainees", "company_id = ?", ten.A); n != 3500 {
			t.Errorf("%d trainees, want 3500 (the failed chunk's none)", n)
		}
		if n := storetest.Count(t, s, "trainees", "company_id = ?", ten.B); n != 0 {
			t.Errorf("company B has %d trainees", n)
		}
		// The trainees' copies of the users' search columns are the users'.
		var differ, phoned int
		err = storetest.DB(t, s).NewRaw(`SELECT
			count(CASE WHEN t.email <> u.email OR t.search_name <> u.search_name OR COALESCE(t.phone, '') <> COALESCE(u.phone, '') THEN 1 END),
			count(t.phone)
			FROM trainees t JOIN users u ON u.id = t.user_id`).Scan(ctx, &differ, &phoned)
		if err != nil || differ != 0 || phoned != 1167 {
			t.Errorf("%d trainees whose search columns differ from their user's, %d with a phone: %v", differ, phoned, err)
		}
		found, total, err := s.SearchTrainees(ctx, ten.A, api.Search{Query: "zoë 1234", Status: api.StatusAll, Sort: api.SortID, Size: 5})
		if err != nil || total != 1 || found[0].Email != "bulk1234@example.com" {
			t.Errorf("search: %d, %v", total, err)
		}
	})
}

func firstID(t *testing.T, s *store.Store, company int64) int64 {
	t.Helper()
	got, _, err := s.SearchTrainees(ctx, company, api.Search{Status: api.StatusAll, Sort: api.SortID, Size: 1})
	if err != nil || len(got) != 1 {
		t.Fatalf("first trainee: %v", err)
	}
	return got[0].ID
}
