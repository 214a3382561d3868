// Package storetest opens real databases for tests: a SQLite file in the
// test's temporary directory, and a uniquely named PostgreSQL database
// created through TRAINEED_TEST_POSTGRES and dropped when the test ends.
//
// Without TRAINEED_TEST_POSTGRES the PostgreSQL tests are skipped, unless
// TRAINEED_REQUIRE_POSTGRES=1 turns the skip into a failure.
package storetest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the admin connection

	"github.com/traineed/traineed/store"
)

// Environment variables read by the helpers.
const (
	EnvPostgres        = "TRAINEED_TEST_POSTGRES"
	EnvRequirePostgres = "TRAINEED_REQUIRE_POSTGRES"
)

// Each runs fn as the subtests "sqlite" and "postgres", each on a fresh
// database.
func Each(t *testing.T, fn func(t *testing.T, s *store.Store)) {
	t.Helper()
	t.Run("sqlite", func(t *testing.T) { fn(t, SQLite(t)) })
	t.Run("postgres", func(t *testing.T) { fn(t, Postgres(t)) })
}

// EachURL runs fn as the subtests "sqlite" and "postgres", each with the URL
// of a fresh, empty database (for tests that open it themselves, maybe
// more than once).
func EachURL(t *testing.T, fn func(t *testing.T, url string)) {
	t.Helper()
	t.Run("sqlite", func(t *testing.T) { fn(t, SQLiteURL(t)) })
	t.Run("postgres", func(t *testing.T) { fn(t, PostgresURL(t)) })
}

// SQLiteURL returns the URL of a new SQLite database in t.TempDir().
func SQLiteURL(t testing.TB) string {
	t.Helper()
	return "sqlite:" + filepath.Join(t.TempDir(), "traineed.db")
}

// SQLite opens a new SQLite database, closed when the test ends.
func SQLite(t testing.TB) *store.Store {
	t.Helper()
	return open(t, SQLiteURL(t))
}

// Postgres opens a new PostgreSQL database, migrated, closed and dropped
// when the test ends; it skips the test when PostgreSQL is not configured.
// It is a copy of a template this test process migrated once (CREATE
// DATABASE ... TEMPLATE): the same schema as migrating it, without
// running 18 migrations for each of several hundred tests. Tests of the
// migrations themselves start from PostgresURL's empty database.
func Postgres(t testing.TB) *store.Store {
	t.Helper()
	return open(t, postgresDatabase(t, migratedTemplate(t)))
}

// PostgresURL creates a new, empty PostgreSQL database and returns its URL;
// it is dropped (WITH (FORCE)) when the test ends. It skips the test when
// TRAINEED_TEST_POSTGRES is not set, or fails it when
// TRAINEED_REQUIRE_POSTGRES=1.
func PostgresURL(t testing.TB) string {
	t.Helper()
	return postgresDatabase(t, "")
}

// postgresBase returns TRAINEED_TEST_POSTGRES parsed, or skips (fails
// under TRAINEED_REQUIRE_POSTGRES=1) the test without it.
func postgresBase(t testing.TB) (string, *url.URL) {
	t.Helper()
	base := os.Getenv(EnvPostgres)
	if base == "" {
		if os.Getenv(EnvRequirePostgres) == "1" {
			t.Fatalf("%s=1 but %s is not set", EnvRequirePostgres, EnvPostgres)
		}
		t.Skipf("PostgreSQL tests need %s (a DSN such as postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable)", EnvPostgres)
	}
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
		t.Fatalf("%s must be a postgres:// URL", EnvPostgres)
	}
	return base, u
}

// postgresDatabase creates a uniquely named database, a copy of template
// ("": empty), dropped when the test ends, and returns its URL.
func postgresDatabase(t testing.TB, template string) string {
	t.Helper()
	base, u := postgresBase(t)
	var b [6]byte
	_, _ = rand.Read(b[:])
	name := "traineed_test_" + strings.ToLower(sanitize(t.Name())) + "_" + hex.EncodeToString(b[:])
	if err := withAdmin(base, 30*time.Second, func(ctx context.Context, admin *sql.DB) error {
		return createDatabase(ctx, admin, name, template)
	}); err != nil {
		t.Fatalf("storetest: create database: %v", err)
	}
	t.Cleanup(func() { dropDatabase(t, base, name) })
	u.Path = "/" + name
	return u.String()
}

// createDatabase creates name, a copy of template when it is not "". A
// template's last connection may still be closing (a copy needs it to
// have none): that is retried for a few seconds.
func createDatabase(ctx context.Context, admin *sql.DB, name, template string) error {
	stmt := `CREATE DATABASE "` + name + `"`
	if template != "" {
		stmt += ` TEMPLATE "` + template + `"`
	}
	for {
		_, err := admin.ExecContext(ctx, stmt)
		if err == nil || template == "" || !strings.Contains(err.Error(), "being accessed by other users") {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(20 * time.Millisecond):
		}
	}
}

func dropDatabase(t testing.TB, base, name string) {
	if err := withAdmin(base, 30*time.Second, func(ctx context.Context, admin *sql.DB) error {
		_, err := admin.ExecContext(ctx, `DROP DATABASE IF EXISTS "`+name+`" WITH (FORCE)`)
		return err
	}); err != nil {
		t.Errorf("storetest: drop database %s: %v", name, err)
	}
}

// withAdmin runs fn over a pool of connections to base (the server's
// maintenance database), closed after it, within timeout.
func withAdmin(base string, timeout time.Duration, fn func(ctx context.Context, admin *sql.DB) error) error {
	admin, err := sql.Open("pgx", base)
	if err != nil {
		return err
	}
	defer admin.Close()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	return fn(ctx, admin)
}

// sanitize keeps a short, identifier-safe part of a test name (PostgreSQL
// names are at most 63 bytes).
func sanitize(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	out := b.String()
	if len(out) > 30 {
		out = out[len(out)-30:]
	}
	return out
}

func open(t testing.TB, url string) *store.Store {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	s, err := store.Open(ctx, url)
	if err != nil {
		t.Fatalf("storetest: open %s: %v", redact(url), err)
	}
	urls.Store(s, url)
	t.Cleanup(func() {
		forget(s)
		if err := s.Close(); err != nil {
			t.Errorf("storetest: close: %v", err)
		}
	})
	return s
}

// Open opens the database at url (migrating it), closed when the test ends.
func Open(t testing.TB, url string) *store.Store {
	t.Helper()
	return open(t, url)
}

func redact(raw string) string {
	if u, err := url.Parse(raw); err == nil && u.Scheme != "" {
		return u.Redacted()
	}
	return raw
}
