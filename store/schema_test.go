package store_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/traineed/traineed/store"
	"github.com/traineed/traineed/store/storetest"
)

// newerMigration is the name of a migration no build knows yet.
const newerMigration = "20991231000001"

// MigrationStatus lists every migration pending on a new database and
// applied once migrated; a database a newer traineed migrated is refused
// by Open without a change (the phone data migration, unapplied on
// purpose, stays unapplied and no lock is left), is opened with
// AllowNewerSchema (which applies what this build knows), and its newer
// migration is listed as applied and unknown.
func TestMigrationStatusAndNewerSchema(t *testing.T) {
	storetest.EachURL(t, func(t *testing.T, url string) {
		ctx := context.Background()
		fresh, err := store.Open(ctx, url, store.WithoutMigrating())
		must(t, err)
		st, err := fresh.MigrationStatus(ctx)
		must(t, err)
		must(t, fresh.Close())
		if len(st) < 15 || st[0].Name != "20260101000001" || !st[0].Pending() || !st[len(st)-1].Pending() || !st[0].Known {
			t.Fatalf("fresh database: %+v", st)
		}
		s := storetest.Open(t, url)
		after, err := s.MigrationStatus(ctx)
		must(t, err)
		if len(after) != len(st) {
			t.Fatalf("%d migrations after migrating, %d before", len(after), len(st))
		}
		for _, m := range after {
			if m.Pending() || !m.Known {
				t.Fatalf("after migrating: %+v", m)
			}
		}
		raw := storetest.DB(t, s)
		_, err = raw.NewRaw("DELETE FROM bun_migrations WHERE name = '20260101000016'").Exec(ctx)
		must(t, err)
		_, err = raw.NewRaw("INSERT INTO bun_migrations (name, group_id, migrated_at) VALUES (?, 99, CURRENT_TIMESTAMP)", newerMigration).Exec(ctx)
		must(t, err)

		_, err = store.Open(ctx, url)
		var ne *store.NewerSchemaError
		if !errors.Is(err, store.ErrNewerSchema) || !errors.As(err, &ne) || len(ne.Unknown) != 1 || ne.Unknown[0] != newerMigration ||
			!strings.Contains(err.Error(), "this traineed is older than the database") || !strings.Contains(err.Error(), "--allow-newer-schema") {
			t.Fatalf("open a newer database: %v", err)
		}
		if n := storetest.Count(t, s, "bun_migrations", "name = '20260101000016'"); n != 0 {
			t.Fatal("the refused open migrated")
		}
		if n := storetest.Count(t, s, "bun_migration_locks", "1 = 1"); n != 0 {
			t.Fatalf("the refused open left %d locks", n)
		}

		old, err := store.Open(ctx, url, store.AllowNewerSchema())
		must(t, err)
		st, err = old.MigrationStatus(ctx)
		must(t, err)
		must(t, old.Close())
		last := st[len(st)-1]
		if last.Name != newerMigration || last.Known || last.Pending() || len(st) != len(after)+1 {
			t.Fatalf("status with a newer migration: %+v", st)
		}
		for _, m := range st[:len(st)-1] {
			if m.Pending() || !m.Known {
				t.Fatalf("AllowNewerSchema did not apply %+v", m)
			}
		}
	})
}

// Backup writes a copy that opens as the same database, refuses an
// existing file unless told to replace it (which it then does), and is
// refused on PostgreSQL.
func TestBackup(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		path := filepath.Join(t.TempDir(), "copy.db")
		if s.Dialect() == store.DialectPostgres {
			if err := s.Backup(ctx, path, false); !errors.Is(err, store.ErrBackupUnsupported) {
				t.Fatalf("backup on PostgreSQL: %v", err)
			}
			return
		}
		tn := storetest.SetupTenants(t, s)
		a := storetest.MustCreate(t, s, tn.A, storetest.NewTrainee("Back Up", "back.up@example.com"))
		must(t, os.WriteFile(path, []byte("precious"), 0o600))
		if err := s.Backup(ctx, path, false); !errors.Is(err, store.ErrBackupExists) {
			t.Fatalf("backup over a file: %v", err)
		}
		if b, _ := os.ReadFile(path); string(b) != "precious" {
			t.Fatalf("the refused backup wrote %q", b)
		}
		must(t, s.Backup(ctx, path, true))
		b := storetest.MustCreate(t, s, tn.A, storetest.NewTrainee("After Wards", "after.wards@example.com"))
		c := storetest.Open(t, "sqlite:"+path)
		if got := storetest.MustGet(t, c, tn.A, a.ID); got.Name != "Back Up" {
			t.Fatalf("restored %+v", got)
		}
		if _, err := c.Trainee(ctx, tn.A, b.ID); err == nil {
			t.Fatal("a trainee created after the backup is in it")
		}
		if left, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".copy.db.partial-*")); len(left) != 0 {
			t.Fatalf("temporary files left: %v", left)
		}
	})
}
