package store_test

import (
	"database/sql"
	"database/sql/driver"
	"errors"
	"testing"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/store"
	"github.com/traineed/traineed/store/storetest"
)

// TestLostConnections ends the pool's PostgreSQL backends (as a restart,
// a failover or pg_terminate_backend does) under connections pgx will not
// ping before their next use (each was last used less than a second
// before), then uses them: a hot read (the key lookup) and a read
// transaction are retried on a new connection, a plain read fails once
// with an error ClassifyError marks api.ErrUnavailable (the server
// retries it) and has dropped the dead idle connections for the next, a
// write whose BEGIN met a dead connection is begun again and lands once.
func TestLostConnections(t *testing.T) {
	s := storetest.Postgres(t)
	tn := storetest.SetupTenants(t, s)
	key, k := newKey(t, s, tn.A)
	pool := store.DB(s).DB
	// warm leaves three connections idle, each reset (pinged) by
	// database/sql within the last second: pgx pings a connection before
	// reusing it only when it sat idle longer.
	warm := func(t *testing.T) {
		t.Helper()
		for round := 0; round < 2; round++ {
			var conns []*sql.Conn
			for tries := 0; len(conns) < 3; tries++ {
				c, err := pool.Conn(ctx)
				if err != nil {
					t.Fatal(err)
				}
				if err := c.PingContext(ctx); err != nil {
					_ = c.Raw(func(any) error { return driver.ErrBadConn }) // discard it
					_ = c.Close()
					if tries > 20 {
						t.Fatal(err)
					}
					continue
				}
				conns = append(conns, c)
			}
			for _, c := range conns {
				_ = c.Close()
			}
		}
	}
	drop := func(t *testing.T) {
		t.Helper()
		warm(t)
		if n := storetest.TerminateBackends(t, s); n < 3 {
			t.Fatalf("ended %d backends, want the 3 idle ones at least", n)
		}
	}

	t.Run("hot read", func(t *testing.T) {
		drop(t)
		p, err := s.Authenticate(ctx, api.HashKey(key))
		if err != nil {
			t.Fatalf("key lookup after the backends ended: %v", err)
		}
		if p.CompanyID != tn.A || p.KeyID != k.ID {
			t.Fatalf("key lookup: company %d key %d, want %d %d", p.CompanyID, p.KeyID, tn.A, k.ID)
		}
	})
	t.Run("read transaction", func(t *testing.T) {
		storetest.MustCreate(t, s, tn.A, storetest.NewTrainee("Ann Reader", "ann.reader@example.com"))
		drop(t)
		page, total, err := s.SearchTrainees(ctx, tn.A, api.Search{Status: "live", Size: 20, Sort: "id", Query: "reader"})
		if err != nil {
			t.Fatalf("search after the backends ended: %v", err)
		}
		if total != 1 || len(page) != 1 || page[0].Email != "ann.reader@example.com" {
			t.Fatalf("search: total %d, %d rows, want the one trainee", total, len(page))
		}
	})
	t.Run("plain read", func(t *testing.T) {
		drop(t)
		_, err := s.Trainers(ctx, tn.A)
		if err != nil && !errors.Is(s.ClassifyError(err), api.ErrUnavailable) {
			t.Fatalf("trainers after the backends ended: %v, want nil or what ClassifyError marks api.ErrUnavailable", err)
		}
		// The first lost connection dropped the other dead idle ones:
		// the next read gets a new connection.
		trs, err := s.Trainers(ctx, tn.A)
		if err != nil {
			t.Fatalf("trainers, second read: %v", err)
		}
		if len(trs) == 0 {
			t.Fatal("trainers: none")
		}
		warm(t)
		if idle := pool.Stats().Idle; idle < 2 {
			t.Fatalf("%d idle connections after warming, want the pool's idle limit restored", idle)
		}
	})
	t.Run("write", func(t *testing.T) {
		drop(t)
		tr, err := s.CreateTrainee(ctx, tn.A, storetest.NewTrainee("Wes Writer", "wes.writer@example.com"))
		if err != nil {
			t.Fatalf("create after the backends ended: %v", err)
		}
		if n := storetest.Count(t, s, "users", "email = ?", "wes.writer@example.com"); n != 1 {
			t.Fatalf("%d rows for the created trainee, want 1", n)
		}
		if got := storetest.MustGet(t, s, tn.A, tr.ID); got.Email != "wes.writer@example.com" {
			t.Fatalf("stored e-mail %q", got.Email)
		}
	})
}
