package store_test

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/uptrace/bun/migrate"

	"github.com/traineed/traineed/store"
	"github.com/traineed/traineed/store/storetest"
)

func TestOpenURLs(t *testing.T) {
	for _, url := range []string{"mysql://localhost/x", "traineed.db", "sqlite:", "http://example.com"} {
		if s, err := store.Open(ctx, url); err == nil {
			_ = s.Close()
			t.Errorf("Open(%q) succeeded", url)
		}
	}
	if _, err := store.Open(ctx, "mysql://localhost/x"); err == nil || !strings.Contains(err.Error(), "unsupported") {
		t.Errorf("unsupported scheme: %v", err)
	}
}

func TestDialect(t *testing.T) {
	if d := storetest.SQLite(t).Dialect(); d != "sqlite" {
		t.Errorf("dialect %q", d)
	}
	if s := storetest.Postgres(t); s.Dialect() != "postgres" {
		t.Errorf("dialect %q", s.Dialect())
	}
}

// Opening migrates under a lock: concurrent opens of one new database all
// succeed, and opening an up-to-date database changes nothing.
func TestMigrateConcurrently(t *testing.T) {
	storetest.EachURL(t, func(t *testing.T, url string) {
		const n = 4
		stores := make([]*store.Store, n)
		errs := make([]error, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() { stores[i], errs[i] = store.Open(ctx, url) })
		}
		wg.Wait()
		for i := range n {
			if errs[i] != nil {
				t.Fatalf("open %d: %v", i, errs[i])
			}
			defer stores[i].Close()
		}
		if _, err := stores[0].CreateCompany(ctx, "Gym", ""); err != nil {
			t.Fatal(err)
		}
		if err := stores[1].Migrate(ctx); err != nil {
			t.Fatal(err)
		}
		list, err := stores[2].Companies(ctx)
		if err != nil || len(list) != 1 {
			t.Fatalf("companies %v, %v", list, err)
		}
		if err := stores[3].Ping(ctx); err != nil {
			t.Fatal(err)
		}
	})
}

// A lock nobody releases ends in a clear error, not a hang.
func TestMigrateLocked(t *testing.T) {
	storetest.EachURL(t, func(t *testing.T, url string) {
		s := open(t, url)
		if err := migrate.NewMigrator(store.DB(s), migrate.NewMigrations()).Lock(ctx); err != nil {
			t.Fatal(err)
		}
		defer store.SetMigrateLockWait(300 * time.Millisecond)()
		_, err := store.Open(ctx, url)
		if err == nil || !strings.Contains(err.Error(), "locked") {
			t.Fatalf("open with a stale lock: %v", err)
		}
	})
}

func TestSQLitePragmas(t *testing.T) {
	s := storetest.SQLite(t)
	for pragma, want := range map[string]string{"journal_mode": "wal", "foreign_keys": "1", "busy_timeout": "10000", "synchronous": "1"} {
		var got string
		if err := store.DB(s).NewRaw("PRAGMA "+pragma).Scan(ctx, &got); err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("PRAGMA %s = %s, want %s", pragma, got, want)
		}
	}
}

func TestSQLiteMemory(t *testing.T) {
	s, err := store.Open(ctx, "sqlite::memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	tn := storetest.SetupTenants(t, s)
	tr := storetest.MustCreate(t, s, tn.A, storetest.NewTrainee("Mem", "mem@example.com"))
	if g := storetest.MustGet(t, s, tn.A, tr.ID); g.Email != "mem@example.com" {
		t.Fatalf("got %+v", g)
	}
}
