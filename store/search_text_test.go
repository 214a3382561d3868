package store_test

import (
	"testing"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/store"
	"github.com/traineed/traineed/store/storetest"
)

// TestSearchTextCopy: PostgreSQL's trainee_search (migration 000014), from
// which a search with q counts, holds exactly the searched columns of
// every trainee after each kind of write: bulk and single creates, a
// rename, a new e-mail, disabling, an expiration set and cleared, tracked
// data moving lastTrained (no copy written), and an erasure.
func TestSearchTextCopy(t *testing.T) {
	s := storetest.Postgres(t)
	company, _ := bulkLoad(t, s, 50)
	a := storetest.MustCreate(t, s, company, storetest.NewTrainee("Anna Copy", "anna.copy@example.com"))
	b := storetest.MustCreate(t, s, company, storetest.NewTrainee("Bert Copy", "bert.copy@example.com"))
	c := storetest.MustCreate(t, s, company, storetest.NewTrainee("Cleo Copy", "cleo.copy@example.com"))
	diff := func(when string) {
		t.Helper()
		var n int
		err := store.DB(s).NewRaw(`SELECT count(*) FROM (
			(SELECT id, company_id, enabled, expiration_date, search_name, email FROM trainees
			 EXCEPT SELECT id, company_id, enabled, expiration_date, search_name, email FROM trainee_search)
			UNION ALL
			(SELECT id, company_id, enabled, expiration_date, search_name, email FROM trainee_search
			 EXCEPT SELECT id, company_id, enabled, expiration_date, search_name, email FROM trainees)) AS d`).Scan(ctx, &n)
		if err != nil {
			t.Fatal(err)
		}
		if n != 0 {
			t.Errorf("%s: %d rows differ between trainees and trainee_search", when, n)
		}
	}
	diff("after the creates")
	for _, p := range []api.TraineePatch{
		{Name: api.Val("Anna Renamed")},
		{Email: api.Val("anna.new@example.com")},
		{Enabled: api.Val(false)},
		{ExpirationDate: api.Val(api.Date{Year: 2030, Month: 1, Day: 2})},
		{ExpirationDate: api.Optional[api.Date]{Set: true, Null: true}, Enabled: api.Val(true)},
	} {
		if _, err := s.UpdateTrainee(ctx, company, a.ID, p); err != nil {
			t.Fatal(err)
		}
		diff("after an update")
	}
	if _, err := store.DB(s).NewRaw("UPDATE trainees SET last_trained = 20260101 WHERE id = ?", b.ID).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	diff("after lastTrained moved")
	if _, err := s.EraseTrainee(ctx, company, c.ID, "cleo.copy@example.com"); err != nil {
		t.Fatal(err)
	}
	diff("after an erasure")
	if n := storetest.Count(t, s, "trainee_search", "id = ?", c.ID); n != 0 {
		t.Errorf("the erased trainee is still in trainee_search")
	}
	// The search's count reads the copy: its total is the trainees'.
	got, total, err := s.SearchTrainees(ctx, company, api.Search{Query: "renamed", Status: api.StatusAll, Size: 20})
	if err != nil {
		t.Fatal(err)
	}
	if total != 1 || len(got) != 1 || got[0].ID != a.ID {
		t.Errorf("q=renamed: %d trainees, total %d; want trainee %d, total 1", len(got), total, a.ID)
	}
}
