package store_test

import (
	"context"
	"strings"
	"testing"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/store/storetest"
)

// The data migration of phone numbers stored before libphonenumber's rule:
// a number that parses is brought to E.164 in users and in trainees' copy
// (the search finds it by its digits); one that does not parse, or whose
// E.164 form another person has, is left as it was and reported once, by
// the process that applied the migration; the start never fails.
func TestStoredPhonesBroughtToE164(t *testing.T) {
	storetest.EachURL(t, func(t *testing.T, url string) {
		ctx := context.Background()
		s := storetest.Open(t, url)
		if notes := s.MigrationNotes(); len(notes) != 0 {
			t.Fatalf("a new database's migrations reported %q", notes)
		}
		co, err := s.CreateCompany(ctx, "Phones", "UTC")
		must(t, err)
		storetest.MustTrainer(t, s, co.ID, "Coach", "coach@phones.example")
		raw := map[string]string{ // e-mail -> the number as an older release stored it
			"ada@example.com": "+4407700900123",  // "+44 (0)7700 900123": to +447700900123
			"bob@example.com": "+99912345678",    // no such country code
			"cy@example.com":  "+15550100",       // a local-only length
			"dan@example.com": "+447700900124",   // already E.164
			"eve@example.com": "+4407700900124",  // its E.164 form is dan's
			"fay@example.com": "+1 202 555 0123", // to +12025550123
		}
		db := storetest.DB(t, s)
		ids := map[string]int64{}
		for email, phone := range raw {
			tr := storetest.MustCreate(t, s, co.ID, storetest.NewTrainee(strings.Split(email, "@")[0], email))
			ids[email] = tr.ID
			_, err := db.NewRaw("UPDATE users SET phone = ? WHERE id = ?", phone, tr.UserID).Exec(ctx)
			must(t, err)
			_, err = db.NewRaw("UPDATE trainees SET phone = ? WHERE id = ?", phone, tr.ID).Exec(ctx)
			must(t, err)
		}
		_, err = db.NewRaw("DELETE FROM bun_migrations WHERE name = '20260101000016'").Exec(ctx)
		must(t, err)

		again := storetest.Open(t, url) // applies the migration again
		want := map[string]string{
			"ada@example.com": "+447700900123", "bob@example.com": "+99912345678", "cy@example.com": "+15550100",
			"dan@example.com": "+447700900124", "eve@example.com": "+4407700900124", "fay@example.com": "+12025550123",
		}
		for email, phone := range want {
			got := storetest.MustGet(t, again, co.ID, ids[email])
			if got.PhoneNumber == nil || *got.PhoneNumber != phone {
				t.Errorf("%s: phone %v, want %s", email, got.PhoneNumber, phone)
			}
			if n := storetest.Count(t, again, "trainees", "id = ? AND phone = ?", ids[email], phone); n != 1 {
				t.Errorf("%s: trainees' copy of the phone is not %s", email, phone)
			}
		}
		page, total, err := again.SearchTrainees(ctx, co.ID, api.Search{Query: "+447700900123", Digits: "447700900123", Status: api.StatusAll, Size: 20})
		must(t, err)
		if total != 1 || page[0].ID != ids["ada@example.com"] {
			t.Errorf("a search by the new number's digits finds %d", total)
		}
		notes := strings.Join(again.MigrationNotes(), "\n")
		for _, w := range []string{`"+99912345678" left as it is: phone number has no known country code`,
			`"+15550100" left as it is: phone number is not a full number of its country code +1`,
			`"+4407700900124" left as it is: its E.164 form +447700900124 is another user's`,
			"phone numbers: 2 brought to E.164, 3 left as they were"} {
			if !strings.Contains(notes, w) {
				t.Errorf("the notes lack %q:\n%s", w, notes)
			}
		}
		if third := storetest.Open(t, url); len(third.MigrationNotes()) != 0 {
			t.Errorf("the migration reported again: %q", third.MigrationNotes())
		}
	})
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
