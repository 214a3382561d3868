package store_test

import (
	"fmt"
	"testing"

	"modernc.org/sqlite"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/store"
	"github.com/traineed/traineed/store/storetest"
)

// sqliteWorkBudget is the most SQLite-internal allocations (lookaside
// attempts, sqlite3_db_status) one GET by id may cost, its key lookup
// included: measured 29.8 on 28-11-2026, and 308 with the regression
// below put back. SQLite's own
// memory is not Go's, so testing.AllocsPerRun does not see it: when the
// STAT4 samples of an index leading with id made SQLite prepare the
// statement again on every call (issue 36: half of GET by id's CPU), the
// Go allocation count did not move, this one does.
const sqliteWorkBudget = 40

// TestSQLiteGetByIDIsNotReprepared holds GET by id's statements, run as
// the server runs them (prepared once per connection), to
// sqliteWorkBudget on a database analyzed as a bulk import leaves it.
func TestSQLiteGetByIDIsNotReprepared(t *testing.T) {
	s := storetest.SQLite(t)
	tn := storetest.SetupTenants(t, s)
	key, _ := newKey(t, s, tn.A)
	var ids []int64
	for i := range 300 {
		tr := storetest.MustCreate(t, s, tn.A, storetest.NewTrainee(fmt.Sprintf("Work %d", i), fmt.Sprintf("work.%d@example.com", i)))
		ids = append(ids, tr.ID)
	}
	if err := s.AnalyzeTrainees(ctx); err != nil {
		t.Fatal(err)
	}
	pool := store.DB(s).DB
	pool.SetMaxOpenConns(1) // one connection: its counters are every call's
	lookaside := func() int {
		t.Helper()
		conn, err := pool.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		n := 0
		err = conn.Raw(func(dc any) error {
			for _, op := range []sqlite.DBStatusOp{sqlite.DBStatusLookasideHit, sqlite.DBStatusLookasideMissSize, sqlite.DBStatusLookasideMissFull} {
				_, high, err := dc.(sqlite.DBStatus).Status(op, false)
				if err != nil {
					return err
				}
				n += high
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	hash := api.HashKey(key)
	get := func(id int64) {
		t.Helper()
		if _, _, _, found, err := s.AuthenticateTraineeVersion(ctx, hash, id); err != nil || !found {
			t.Fatalf("GET %d: found %v, %v", id, found, err)
		}
		if _, err := s.Trainee(ctx, tn.A, id); err != nil {
			t.Fatal(err)
		}
	}
	for _, id := range ids[:20] {
		get(id) // prepared on the connection
	}
	before := lookaside()
	const calls = 200
	for i := range calls {
		get(ids[i%len(ids)])
	}
	per := float64(lookaside()-before) / calls
	t.Logf("SQLite allocations per GET by id: %.1f (budget %d)", per, sqliteWorkBudget)
	if per > sqliteWorkBudget {
		t.Errorf("GET by id costs SQLite %.1f allocations a call, over the budget of %d: its statement is prepared "+
			"again on every call (an index or statistics change made SQLite weigh the bound id: see store.byRowID)", per, sqliteWorkBudget)
	}
}
