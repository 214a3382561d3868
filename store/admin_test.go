package store_test

import (
	"errors"
	"testing"
	"time"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/store"
	"github.com/traineed/traineed/store/storetest"
)

func TestCompanies(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		if has, err := s.HasCompany(ctx); err != nil || has {
			t.Fatalf("HasCompany on an empty database: %v, %v", has, err)
		}
		a, err := s.CreateCompany(ctx, " Alpha ", "")
		if err != nil {
			t.Fatal(err)
		}
		if a.Name != "Alpha" || a.TimeZone != "UTC" || a.ID <= 0 || time.Since(a.CreatedAt) > time.Minute {
			t.Fatalf("company %+v", a)
		}
		b, err := s.CreateCompany(ctx, "Beta", "America/New_York")
		if err != nil {
			t.Fatal(err)
		}
		for _, tz := range []string{"Mars/Olympus", "Local", "+01:00"} {
			if _, err := s.CreateCompany(ctx, "Bad", tz); err == nil {
				t.Errorf("time zone %q accepted", tz)
			}
		}
		if _, err := s.CreateCompany(ctx, "  ", ""); err == nil {
			t.Error("blank name accepted")
		}
		list, err := s.Companies(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(list) != 2 || list[0].ID != a.ID || list[1].ID != b.ID || list[1].TimeZone != "America/New_York" ||
			!list[0].CreatedAt.Equal(a.CreatedAt) {
			t.Fatalf("companies %+v", list)
		}
		if has, err := s.HasCompany(ctx); err != nil || !has {
			t.Fatalf("HasCompany: %v, %v", has, err)
		}
	})
}

func TestTrainers(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		tn := storetest.SetupTenants(t, s)
		tr, err := s.CreateTrainer(ctx, tn.A, " Nia Coach ", " NIA@Example.com ")
		if err != nil {
			t.Fatal(err)
		}
		if tr.Name != "Nia Coach" || tr.Email != "nia@example.com" || tr.CompanyID != tn.A || tr.UserID == tr.ID && tr.ID < 3 {
			t.Fatalf("trainer %+v", tr)
		}
		_, err = s.CreateTrainer(ctx, tn.B, "Nia Again", "nia@example.com")
		wantConflict(t, err, "email")
		if _, err := s.CreateTrainer(ctx, 999999, "Nobody", "nobody@example.com"); !errors.Is(err, api.ErrNotFound) {
			t.Fatalf("unknown company: %v", err)
		}
		_, err = s.CreateTrainer(ctx, tn.A, "Bad Mail", "not-an-address")
		wantCode(t, err, api.CodeInvalidEmail, "email")
		_, err = s.CreateTrainer(ctx, tn.A, "", "empty@example.com")
		wantCode(t, err, api.CodeTextLength, "name")

		list, err := s.Trainers(ctx, tn.A)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, x := range list {
			if x.CompanyID != tn.A {
				t.Errorf("trainer of company %d listed for %d", x.CompanyID, tn.A)
			}
			got = append(got, x.Email)
		}
		want := []string{"tess@alpha.example.com", "tom@alpha.example.com", "nia@example.com"}
		if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
			t.Fatalf("trainers %q, want %q", got, want)
		}
		if list[2].ID != tr.ID || list[2].UserID != tr.UserID || !list[2].CreatedAt.Equal(tr.CreatedAt) {
			t.Fatalf("listed %+v, created %+v", list[2], tr)
		}
		// A trainee cannot take a trainer's e-mail, nor a trainer a trainee's.
		storetest.MustCreate(t, s, tn.A, storetest.NewTrainee("Tia", "tia@example.com"))
		_, err = s.CreateTrainer(ctx, tn.A, "Tia Coach", "tia@example.com")
		wantConflict(t, err, "email")
	})
}

func TestKeys(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		tn := storetest.SetupTenants(t, s)
		key := api.GenerateKey()
		k, err := s.CreateKey(ctx, tn.A, "ci", api.HashKey(key), api.KeyDisplayPrefix(key))
		if err != nil {
			t.Fatal(err)
		}
		if k.Name != "ci" || k.Prefix != key[:8] || k.State != api.KeyActive || k.LastUsedAt != nil || k.ID <= 0 {
			t.Fatalf("key %+v", k)
		}
		if _, err := s.CreateKey(ctx, 999999, "x", api.HashKey(api.GenerateKey()), "pk_xxxxx"); !errors.Is(err, api.ErrNotFound) {
			t.Fatalf("unknown company: %v", err)
		}
		if _, err := s.CreateKey(ctx, tn.B, "same", api.HashKey(key), api.KeyDisplayPrefix(key)); err == nil {
			t.Fatal("the same key hash stored twice")
		}
		k2key := api.GenerateKey()
		k2, err := s.CreateKey(ctx, tn.A, "second", api.HashKey(k2key), api.KeyDisplayPrefix(k2key))
		if err != nil {
			t.Fatal(err)
		}
		if err := s.SetKeyDisabled(ctx, k2.ID, true); err != nil {
			t.Fatal(err)
		}
		list, err := s.Keys(ctx, tn.A)
		if err != nil {
			t.Fatal(err)
		}
		if len(list) != 2 || list[0].ID != k.ID || list[0].State != api.KeyActive || list[1].ID != k2.ID ||
			list[1].State != api.KeyDisabled || list[1].Name != "second" || !list[0].CreatedAt.Equal(k.CreatedAt) {
			t.Fatalf("keys %+v %+v", list[0], list[1])
		}
		if other, err := s.Keys(ctx, tn.B); err != nil || len(other) != 0 {
			t.Fatalf("B's keys: %v, %v", other, err)
		}
		if n := storetest.Count(t, s, "api_keys", "prefix = ?", key[:8]); n != 1 {
			t.Fatalf("%d rows with the prefix", n)
		}
		// Only the hash is stored.
		var stored []byte
		if err := store.DB(s).NewSelect().Table("api_keys").Column("key_hash").Where("id = ?", k.ID).Scan(ctx, &stored); err != nil {
			t.Fatal(err)
		}
		if h := api.HashKey(key); string(stored) != string(h[:]) {
			t.Fatalf("stored %x, want the SHA-256 %x", stored, h)
		}
	})
}

// TestAdminNamesRefuseHostileText: the names of companies, trainers and
// keys (shown by traineectl whoami and trainers list) refuse a control or
// bidirectional formatting character with the API's 1016, and nothing is
// stored.
func TestAdminNamesRefuseHostileText(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		tn := storetest.SetupTenants(t, s)
		for _, bad := range []string{"Evil\x1b[2J", "C1 \u009b31m", "Bidi \u202egnp.exe", "del\x7f"} {
			_, err := s.CreateCompany(ctx, bad, "")
			wantCode(t, err, api.CodeControlChar, "name")
			_, err = s.CreateKey(ctx, tn.A, bad, api.HashKey(api.GenerateKey()), "pk_xxxxx")
			wantCode(t, err, api.CodeControlChar, "name")
			_, err = s.CreateTrainer(ctx, tn.A, bad, "hostile@example.com")
			wantCode(t, err, api.CodeControlChar, "name")
		}
		// A trainer is a person: an invisible character is refused in the
		// name (1016) and the e-mail (1002), as for a trainee
		// (`traineed trainer create`).
		_, err := s.CreateTrainer(ctx, tn.A, "Sam\u200bCoach", "sam@example.com")
		wantCode(t, err, api.CodeControlChar, "name")
		_, err = s.CreateTrainer(ctx, tn.A, "Sam Coach", "sam\ufeff@example.com")
		wantCode(t, err, api.CodeInvalidEmail, "email")
		if n := storetest.Count(t, s, "trainers", "company_id = ?", tn.A); n != 2 {
			t.Errorf("%d trainers in company A, want its 2", n)
		}
		if n := storetest.Count(t, s, "companies", "1 = 1"); n != 2 {
			t.Errorf("%d companies, want the 2 tenants", n)
		}
		if n := storetest.Count(t, s, "api_keys", "company_id = ?", tn.A); n != 0 {
			t.Errorf("%d keys stored", n)
		}
	})
}
