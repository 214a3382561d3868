package store

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"time"

	"github.com/uptrace/bun/migrate"
)

// ErrNewerSchema is what Open answers when the database has applied
// migrations this build does not know: it was migrated by a newer
// traineed. Open then migrates nothing and changes nothing (unless
// AllowNewerSchema). The error is a *NewerSchemaError.
var ErrNewerSchema = errors.New("the database is newer than this traineed")

// NewerSchemaError names the applied migrations this build does not know.
type NewerSchemaError struct {
	Unknown []string // their names, oldest first
}

func (e *NewerSchemaError) Error() string {
	return fmt.Sprintf("this traineed is older than the database: it has applied migrations %s, which this build does not know. "+
		"Run the newer release (or restore a backup taken before the upgrade); during a rolling upgrade, "+
		"an older instance may still be started with --allow-newer-schema (migrations are expand-only: "+
		"docs/architecture.md)", strings.Join(e.Unknown, ", "))
}

func (e *NewerSchemaError) Is(target error) bool { return target == ErrNewerSchema }

// Option changes what Open does.
type Option func(*openConfig)

type openConfig struct {
	allowNewer bool
	noMigrate  bool
}

// AllowNewerSchema lets Open use a database migrated by a newer traineed
// (an older instance restarted during a rolling upgrade: every migration
// is expand-only, so the previous release keeps working on the new
// schema). The migrations this build knows are still applied.
func AllowNewerSchema() Option { return func(c *openConfig) { c.allowNewer = true } }

// WithoutMigrating opens the database as it is: no migration is applied
// and no version is checked (`migrate --status`, `backup`).
func WithoutMigrating() Option { return func(c *openConfig) { c.noMigrate = true } }

// MigrationState is one migration as `traineed migrate --status` lists it.
type MigrationState struct {
	Name      string
	AppliedAt time.Time // zero when pending
	Known     bool      // false: applied by a newer traineed
}

// Pending reports whether the migration is not applied yet.
func (m MigrationState) Pending() bool { return m.AppliedAt.IsZero() }

// migrator is the bun migrator of the store's dialect over every
// migration this build knows, and those migrations.
func (s *Store) migrator() (*migrate.Migrator, *migrate.Migrations, error) {
	sub, err := fs.Sub(migrationFiles, "migrations/"+s.dialect)
	if err != nil {
		return nil, nil, err
	}
	migrations := migrate.NewMigrations()
	if err := migrations.Discover(sub); err != nil {
		return nil, nil, fmt.Errorf("store: migrations: %w", err)
	}
	s.addGoMigrations(migrations)
	return migrate.NewMigrator(s.db, migrations, migrate.WithMarkAppliedOnSuccess(true)), migrations, nil
}

// migrationsTable reports whether the database has bun's bookkeeping
// table, that is whether anything was ever migrated.
func (s *Store) migrationsTable(ctx context.Context) (bool, error) {
	var n int
	q := "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'bun_migrations'"
	if s.dialect == DialectPostgres {
		q = "SELECT count(*) FROM pg_catalog.pg_tables WHERE tablename = 'bun_migrations' AND schemaname = ANY (current_schemas(false))"
	}
	if err := s.db.NewRaw(q).Scan(ctx, &n); err != nil {
		return false, fmt.Errorf("store: read the migrations: %w", unavailable(err))
	}
	return n > 0, nil
}

// newerMigrations returns a *NewerSchemaError when the database has
// applied migrations m does not know, else nil. It only reads.
func (s *Store) newerMigrations(ctx context.Context, m *migrate.Migrator) error {
	if ok, err := s.migrationsTable(ctx); err != nil || !ok {
		return err
	}
	missing, err := m.MissingMigrations(ctx)
	if err != nil {
		return fmt.Errorf("store: read the migrations: %w", unavailable(err))
	}
	if len(missing) == 0 {
		return nil
	}
	names := make([]string, len(missing))
	for i, mg := range missing {
		names[i] = mg.Name
	}
	slices.Sort(names)
	return &NewerSchemaError{Unknown: names}
}

// MigrationStatus lists every migration, oldest first: those this build
// knows, applied (with when) or pending, and those a newer traineed
// applied (Known false). It only reads.
func (s *Store) MigrationStatus(ctx context.Context) ([]MigrationState, error) {
	m, migrations, err := s.migrator()
	if err != nil {
		return nil, err
	}
	ok, err := s.migrationsTable(ctx)
	if err != nil {
		return nil, err
	}
	var (
		known   migrate.MigrationSlice
		unknown migrate.MigrationSlice
	)
	if ok {
		if known, err = m.MigrationsWithStatus(ctx); err == nil {
			unknown, err = m.MissingMigrations(ctx)
		}
		if err != nil {
			return nil, fmt.Errorf("store: read the migrations: %w", unavailable(err))
		}
	} else {
		known = migrations.Sorted()
	}
	out := make([]MigrationState, 0, len(known)+len(unknown))
	for _, mg := range known {
		out = append(out, MigrationState{Name: mg.Name, AppliedAt: appliedAt(mg), Known: true})
	}
	for _, mg := range unknown {
		out = append(out, MigrationState{Name: mg.Name, AppliedAt: appliedAt(mg)})
	}
	slices.SortStableFunc(out, func(a, b MigrationState) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// appliedAt is when mg was applied, zero when it is not.
func appliedAt(mg migrate.Migration) time.Time {
	if mg.GroupID == 0 {
		return time.Time{}
	}
	if mg.MigratedAt.IsZero() {
		return time.Unix(0, 0).UTC() // applied, time unknown
	}
	return mg.MigratedAt.UTC()
}
