package demo_test

import (
	"io"
	"strings"
	"testing"
	"time"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/cmd/traineed/demo"
	"github.com/traineed/traineed/store"
	"github.com/traineed/traineed/store/storetest"
)

// demo --trainees N: N more trainees in the demo company, varied, unique,
// found by search, sharing the one password hash, on both databases.
func TestAddTrainees(t *testing.T) {
	const n = 2500 // three INSERTs of 1,000 rows
	now := time.Date(2026, 6, 15, 12, 0, 0, 0, time.UTC)
	today := date(t, "15-06-2026")
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		company, _, err := demo.Load(ctx, s, "$argon2id$demo", now)
		if err != nil {
			t.Fatal(err)
		}
		var progress strings.Builder
		if err := demo.AddTrainees(ctx, s, company, n, "$argon2id$bulk", now, &progress); err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(progress.String(), "added 2500 of 2500 trainees (") || strings.Count(progress.String(), "\n") != 1 {
			t.Errorf("progress %q", progress.String())
		}
		all := demoTrainees(t, s, company, today, api.StatusAll)
		if len(all) != 60+n {
			t.Fatalf("%d trainees, want %d", len(all), 60+n)
		}
		trainers, err := s.Trainers(ctx, company)
		if err != nil {
			t.Fatal(err)
		}
		ours := map[int64]bool{}
		for _, tr := range trainers {
			ours[tr.ID] = true
		}
		emails, phones, distinct := map[string]bool{}, map[string]bool{}, map[string]bool{}
		var deleted, expired, future, phoned, trained, withTrainer, nonASCII int
		for _, tr := range all[60:] {
			if emails[tr.Email] {
				t.Fatalf("e-mail %q twice", tr.Email)
			}
			emails[tr.Email] = true
			distinct[tr.Name] = true
			if tr.PhoneNumber != nil {
				if phones[*tr.PhoneNumber] {
					t.Fatalf("phone %q twice", *tr.PhoneNumber)
				}
				phones[*tr.PhoneNumber] = true
				phoned++
			}
			if !tr.Enabled {
				deleted++
			}
			if tr.ExpirationDate != nil {
				if tr.ExpirationDate.Before(today) {
					expired++
				} else {
					future++
				}
			}
			if tr.LastTrained != nil {
				trained++
			}
			if tr.TrainerID != nil {
				if !ours[*tr.TrainerID] {
					t.Fatalf("trainer %d is not the company's", *tr.TrainerID)
				}
				withTrainer++
			}
			if strings.ContainsFunc(tr.Name, func(r rune) bool { return r > 127 }) {
				nonASCII++
			}
		}
		for what, got := range map[string][2]int{ // got, want about (per mille)
			"deleted": {deleted, 30}, "expired": {expired, 200}, "future": {future, 350}, "phoned": {phoned, 800},
			"trained": {trained, 600}, "withTrainer": {withTrainer, 700},
		} {
			if lo, hi := got[1]*n/1000/2, got[1]*n/1000*3/2; got[0] < lo || got[0] > hi {
				t.Errorf("%s: %d of %d, want about %d", what, got[0], n, got[1]*n/1000)
			}
		}
		if nonASCII < n/10 || len(distinct) < 500 {
			t.Errorf("%d non-ASCII names, %d distinct names of %d", nonASCII, len(distinct), n)
		}
		if h := storetest.UserColumn(t, s, all[60+n/2].UserID, "password_hash"); h != "$argon2id$bulk" {
			t.Errorf("password hash %q", h)
		}
		// Search finds them: by e-mail, by phone digits, by a non-ASCII name.
		pick := all[60+1234]
		got, total, err := s.SearchTrainees(ctx, company, api.Search{Query: pick.Email, Status: api.StatusAll, Sort: api.SortID, Size: 20, Today: today})
		if err != nil || total != 1 || len(got) != 1 || got[0].ID != pick.ID {
			t.Errorf("search %q: %d, %v", pick.Email, total, err)
		}
		var phoneOf *api.Trainee
		for _, tr := range all[60:] {
			if tr.PhoneNumber != nil && tr.Enabled {
				phoneOf = tr
				break
			}
		}
		digits := api.PhoneDigits(*phoneOf.PhoneNumber)
		got, _, err = s.SearchTrainees(ctx, company, api.Search{Query: digits, Digits: digits, Sort: api.SortID, Size: 20, Today: today})
		if err != nil || len(got) != 1 || got[0].ID != phoneOf.ID {
			t.Errorf("search %q: %v, %v", digits, names(got), err)
		}
		_, total, err = s.SearchTrainees(ctx, company, api.Search{Query: "łukasz", Status: api.StatusAll, Sort: api.SortID, Size: 20, Today: today})
		if err != nil || total < 5 {
			t.Errorf("search łukasz: %d, %v", total, err)
		}
		// Another company gets its own e-mails and phones: no collision.
		other, err := s.CreateCompany(ctx, "Other Gym", "UTC")
		if err != nil {
			t.Fatal(err)
		}
		storetest.MustTrainer(t, s, other.ID, "Coach", "coach@other.example")
		if err := demo.AddTrainees(ctx, s, other.ID, 300, "$argon2id$bulk", now, io.Discard); err != nil {
			t.Fatalf("a second company: %v", err)
		}
		if got := demoTrainees(t, s, other.ID, today, api.StatusAll); len(got) != 300 {
			t.Errorf("other company: %d trainees", len(got))
		}
	})
}
