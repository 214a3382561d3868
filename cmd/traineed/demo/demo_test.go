package demo_test

import (
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/cmd/traineed/demo"
	"github.com/traineed/traineed/store"
	"github.com/traineed/traineed/store/storetest"
)

// demoTrainees returns every trainee of the demo company, by id.
func demoTrainees(t *testing.T, s *store.Store, company int64, today api.Date, status string) []*api.Trainee {
	t.Helper()
	var out []*api.Trainee
	for page := 0; ; page++ {
		got, total, err := s.SearchTrainees(ctx, company, api.Search{Status: status, Sort: api.SortID, Page: page, Size: 100, Today: today})
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, got...)
		if int64(len(out)) >= total {
			return out
		}
	}
}

// comparable strips what differs between databases: ids.
func demoView(ts []*api.Trainee) []api.Trainee {
	out := make([]api.Trainee, len(ts))
	for i, t := range ts {
		out[i] = *t
		out[i].ID, out[i].UserID, out[i].CompanyID, out[i].TrainerID = 0, 0, 0, nil
	}
	return out
}

func TestLoadDemo(t *testing.T) {
	now := time.Date(2026, 6, 15, 12, 0, 0, 0, time.UTC)
	today := date(t, "15-06-2026")
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		id, key, err := demo.Load(ctx, s, "$argon2id$demo", now)
		if err != nil {
			t.Fatal(err)
		}
		if !api.WellFormedKey(key) {
			t.Fatalf("key %q", key)
		}
		p, err := s.Authenticate(ctx, api.HashKey(key))
		if err != nil || p.CompanyID != id || p.Location.String() != "Europe/London" {
			t.Fatalf("demo key: %+v, %v", p, err)
		}
		trainers, err := s.Trainers(ctx, id)
		if err != nil || len(trainers) != 3 {
			t.Fatalf("trainers %v, %v", trainers, err)
		}

		all := demoTrainees(t, s, id, today, api.StatusAll)
		if len(all) < 50 || len(all) > 70 {
			t.Fatalf("%d demo trainees", len(all))
		}
		deleted := demoTrainees(t, s, id, today, api.StatusDeleted)
		expired := demoTrainees(t, s, id, today, api.StatusExpired)
		active := demoTrainees(t, s, id, today, api.StatusActive)
		if len(deleted) < 3 || len(deleted) > 8 || len(expired) < 3 || len(active) < 20 {
			t.Fatalf("deleted %d, expired %d, active %d", len(deleted), len(expired), len(active))
		}
		kinds := map[string]bool{}
		for _, tr := range all {
			kinds[tr.WeightUnit] = true
			kinds[tr.CreatedByType] = true
			if tr.PhoneNumber != nil {
				kinds["phone"] = true
			}
			if tr.DateOfBirth != nil {
				kinds["birth"] = true
			}
			if tr.ExpirationDate != nil && tr.ExpirationDate.After(today) {
				kinds["future"] = true
			}
			if tr.TrainerID == nil {
				t.Errorf("%s has no trainer", tr.Name)
			} else {
				kinds["trainer"+string(rune('0'+slices.IndexFunc(trainers, func(x *api.Trainer) bool { return x.ID == *tr.TrainerID })))] = true
			}
			if h := storetest.UserColumn(t, s, tr.UserID, "password_hash"); h != "$argon2id$demo" {
				t.Fatalf("%s: hash %q", tr.Name, h)
			}
		}
		for _, k := range []string{"KG", "LB", "ADMIN", "TRAINER", "SELF", "phone", "birth", "future", "trainer0", "trainer1", "trainer2"} {
			if !kinds[k] {
				t.Errorf("no demo trainee with %s", k)
			}
		}
		var nonASCII int
		for _, tr := range all {
			if strings.ContainsFunc(tr.Name, func(r rune) bool { return r > 127 }) {
				nonASCII++
			}
		}
		if nonASCII < 3 {
			t.Errorf("only %d non-ASCII names", nonASCII)
		}
		for _, n := range []string{"Zoë Martin", "Łukasz Nowak"} {
			if !slices.Contains(names(all), n) {
				t.Errorf("no %s", n)
			}
		}

		tracked := trackedView(t, s, id, all, today)
		checkDemoTracked(t, s, id, all, today, tracked)

		// Deterministic: a second database gets the same people and the
		// same year of tracked data. The PostgreSQL run compares itself with
		// SQLite; the SQLite run does so only when PostgreSQL is not tested
		// (a load is slow under the race detector).
		if s.Dialect() == store.DialectPostgres || os.Getenv(storetest.EnvPostgres) == "" {
			other := storetest.SQLite(t)
			id2, _, err := demo.Load(ctx, other, "$argon2id$demo", now)
			if err != nil {
				t.Fatal(err)
			}
			allOther := demoTrainees(t, other, id2, today, api.StatusAll)
			if a, b := demoView(all), demoView(allOther); !reflect.DeepEqual(a, b) {
				t.Fatalf("two loads differ:\n%+v\n%+v", a, b)
			}
			compareDemoTracked(t, tracked, trackedView(t, other, id2, allOther, today))
		}

		// Loading it again into the same database works: new addresses.
		id3, key3, err := demo.Load(ctx, s, "$argon2id$demo", now)
		if err != nil {
			t.Fatalf("second load: %v", err)
		}
		if id3 == id || key3 == key {
			t.Fatal("second load reused the company or key")
		}
		again := demoTrainees(t, s, id3, today, api.StatusAll)
		if !slices.Equal(names(again), names(all)) {
			t.Fatalf("second load has other names")
		}
	})
}
