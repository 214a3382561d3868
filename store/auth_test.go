package store_test

import (
	"errors"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/store"
	"github.com/traineed/traineed/store/storetest"
)

func TestAuthenticate(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		tn := storetest.SetupTenants(t, s)
		keyA, ka := newKey(t, s, tn.A)
		keyB, kb := newKey(t, s, tn.B)

		auth := func(key string) (*api.Principal, error) {
			t.Helper()
			return s.Authenticate(ctx, api.HashKey(key))
		}
		p, err := auth(keyA)
		if err != nil {
			t.Fatal(err)
		}
		if p.CompanyID != tn.A || p.KeyID != ka.ID || p.Location == nil || p.Location.String() != "Europe/London" {
			t.Fatalf("principal %+v", p)
		}
		p, err = auth(keyB)
		if err != nil || p.CompanyID != tn.B || p.KeyID != kb.ID || p.Location.String() != "UTC" {
			t.Fatalf("principal %+v, %v", p, err)
		}

		wantUnauthorized := func(what, key string) {
			t.Helper()
			if p, err := auth(key); !errors.Is(err, api.ErrUnauthorized) {
				t.Fatalf("%s: %+v, %v; want ErrUnauthorized", what, p, err)
			}
		}
		wantUnauthorized("unknown key", api.GenerateKey())

		if err := s.SetKeyDisabled(ctx, ka.ID, true); err != nil {
			t.Fatal(err)
		}
		wantUnauthorized("disabled key", keyA)
		if _, err := auth(keyB); err != nil {
			t.Fatalf("disabling A's key refused B's: %v", err)
		}
		if err := s.SetKeyDisabled(ctx, ka.ID, false); err != nil {
			t.Fatal(err)
		}
		if _, err := auth(keyA); err != nil {
			t.Fatalf("re-enabled key: %v", err)
		}
		if err := s.DeleteKey(ctx, ka.ID); err != nil {
			t.Fatal(err)
		}
		wantUnauthorized("deleted key", keyA)
		if err := s.DeleteKey(ctx, ka.ID); !errors.Is(err, api.ErrNotFound) {
			t.Fatalf("deleting again: %v", err)
		}
		if err := s.SetKeyDisabled(ctx, ka.ID, true); !errors.Is(err, api.ErrNotFound) {
			t.Fatalf("disabling a deleted key: %v", err)
		}
	})
}

// Revocation through one Store is seen by another on the same database at
// once: nothing is cached.
func TestRevocationAcrossInstances(t *testing.T) {
	storetest.EachURL(t, func(t *testing.T, url string) {
		s1, s2 := open(t, url), open(t, url)
		c, err := s1.CreateCompany(ctx, "Gym", "")
		if err != nil {
			t.Fatal(err)
		}
		key := api.GenerateKey()
		k, err := s1.CreateKey(ctx, c.ID, "k", api.HashKey(key), api.KeyDisplayPrefix(key))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s2.Authenticate(ctx, api.HashKey(key)); err != nil {
			t.Fatal(err)
		}
		if err := s1.SetKeyDisabled(ctx, k.ID, true); err != nil {
			t.Fatal(err)
		}
		if _, err := s2.Authenticate(ctx, api.HashKey(key)); !errors.Is(err, api.ErrUnauthorized) {
			t.Fatalf("disabled through s1, s2 says %v", err)
		}
	})
}

func TestLastUsed(t *testing.T) {
	storetest.EachURL(t, func(t *testing.T, url string) {
		s1, s2 := open(t, url), open(t, url)
		var mu sync.Mutex
		t0 := time.Date(2026, 6, 15, 10, 0, 0, 123456000, time.UTC)
		now := t0
		clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
		set := func(d time.Duration) { mu.Lock(); defer mu.Unlock(); now = t0.Add(d) }
		store.SetNow(s1, clock)
		store.SetNow(s2, clock)

		c, err := s1.CreateCompany(ctx, "Gym", "")
		if err != nil {
			t.Fatal(err)
		}
		key := api.GenerateKey()
		if _, err := s1.CreateKey(ctx, c.ID, "k", api.HashKey(key), api.KeyDisplayPrefix(key)); err != nil {
			t.Fatal(err)
		}
		lastUsed := func() *time.Time {
			t.Helper()
			keys, err := s1.Keys(ctx, c.ID)
			if err != nil || len(keys) != 1 {
				t.Fatalf("keys %v, %v", keys, err)
			}
			return keys[0].LastUsedAt
		}
		use := func(s *store.Store) {
			t.Helper()
			if _, err := s.Authenticate(ctx, api.HashKey(key)); err != nil {
				t.Fatal(err)
			}
			store.WaitTouches(s)
		}
		wantLastUsed := func(d time.Duration) {
			t.Helper()
			got := lastUsed()
			if got == nil || !got.Equal(t0.Add(d)) {
				t.Fatalf("last used %v, want %v", got, t0.Add(d))
			}
		}

		if lastUsed() != nil {
			t.Fatal("a new key has a last use")
		}
		use(s1)
		wantLastUsed(0)
		set(30 * time.Second)
		use(s1)
		wantLastUsed(0) // within the minute: not written again
		set(59 * time.Second)
		use(s2) // another instance sees the stored value
		wantLastUsed(0)
		set(61 * time.Second)
		use(s2)
		wantLastUsed(61 * time.Second)
		set(90 * time.Second)
		use(s1) // s1 wrote at 0 but sees 61 s stored
		wantLastUsed(61 * time.Second)
		set(125 * time.Second)
		use(s1)
		wantLastUsed(125 * time.Second)
	})
}

func open(t *testing.T, url string) *store.Store {
	t.Helper()
	s, err := store.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// AuthenticateTrainee is Authenticate and Trainee in one statement: the
// trainee of the key's company only, never another's, and nothing for a
// disabled or unknown key.
func TestAuthenticateTrainee(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		tn := storetest.SetupTenants(t, s)
		keyA, ka := newKey(t, s, tn.A)
		keyB, _ := newKey(t, s, tn.B)
		nt := storetest.NewTrainee("Anna Alpha", "anna@alpha.example.com")
		phone := "+441234567890"
		nt.PhoneNumber = &phone
		ta := storetest.MustCreate(t, s, tn.A, nt)
		tb := storetest.MustCreate(t, s, tn.B, storetest.NewTrainee("Bob Beta", "bob@beta.example.com"))

		p, tr, found, err := s.AuthenticateTrainee(ctx, api.HashKey(keyA), ta.ID)
		if err != nil || !found {
			t.Fatalf("found %v, %v", found, err)
		}
		if p.CompanyID != tn.A || p.KeyID != ka.ID || p.Scope != api.KeyScopeFull || p.Location.String() != "Europe/London" {
			t.Fatalf("principal %+v", p)
		}
		want := storetest.MustGet(t, s, tn.A, ta.ID)
		if !reflect.DeepEqual(tr, want) {
			t.Fatalf("trainee\n%+v\nwant (Trainee)\n%+v", tr, want)
		}
		for what, c := range map[string]struct {
			key string
			id  int64
		}{
			"another company's trainee": {keyA, tb.ID},
			"no such trainee":           {keyA, tb.ID + 1000},
			"unknown key":               {api.GenerateKey(), ta.ID},
		} {
			if p, tr, found, err := s.AuthenticateTrainee(ctx, api.HashKey(c.key), c.id); found || p != nil || tr != nil || err != nil {
				t.Errorf("%s: %+v, %+v, %v, %v", what, p, tr, found, err)
			}
		}
		if err := s.SetKeyDisabled(ctx, ka.ID, true); err != nil {
			t.Fatal(err)
		}
		if _, _, found, err := s.AuthenticateTrainee(ctx, api.HashKey(keyA), ta.ID); found || err != nil {
			t.Errorf("disabled key: found %v, %v", found, err)
		}
		if _, tr, found, err := s.AuthenticateTrainee(ctx, api.HashKey(keyB), tb.ID); !found || err != nil || tr.Email != "bob@beta.example.com" {
			t.Errorf("B's key, B's trainee: %+v, %v, %v", tr, found, err)
		}
	})
}

// newKey creates an API key "ci" of company and returns it and its row.
func newKey(t *testing.T, s *store.Store, company int64) (string, *api.APIKey) {
	t.Helper()
	key := api.GenerateKey()
	k, err := s.CreateKey(ctx, company, "ci", api.HashKey(key), api.KeyDisplayPrefix(key))
	if err != nil {
		t.Fatal(err)
	}
	return key, k
}
