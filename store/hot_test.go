package store_test

import (
	"testing"

	"github.com/jackc/pgx/v5/stdlib"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/store"
	"github.com/traineed/traineed/store/storetest"
)

// A pooled PostgreSQL connection whose socket died without pgx noticing
// (a database restart, a proxy's reset) fails the next read before it
// sends anything; the read runs again on a new connection instead of
// failing, as database/sql's own queries do.
func TestHotReadRetriesADeadConnection(t *testing.T) {
	s := storetest.Postgres(t)
	co, err := s.CreateCompany(ctx, "Dead", "UTC")
	if err != nil {
		t.Fatal(err)
	}
	key, _ := newKey(t, s, co.ID)
	pool := store.DB(s).DB
	pool.SetMaxOpenConns(1) // every read on the one connection the test kills
	auth := func() (*api.Principal, error) { return s.Authenticate(ctx, api.HashKey(key)) }
	for range 2 { // the second use checks the connection (a ping): none in the next second
		if _, err := auth(); err != nil {
			t.Fatal(err)
		}
	}
	conn, err := pool.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := conn.Raw(func(dc any) error { return dc.(*stdlib.Conn).Conn().PgConn().Conn().Close() }); err != nil {
		t.Fatal(err)
	}
	conn.Close() // back to the pool, its socket closed
	p, err := auth()
	if err != nil {
		t.Fatalf("read after the connection died: %v", err)
	}
	if p.CompanyID != co.ID {
		t.Fatalf("company %d, want %d", p.CompanyID, co.ID)
	}
}
