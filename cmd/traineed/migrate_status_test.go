package main

import (
	"context"
	"strings"
	"testing"

	"github.com/traineed/traineed/store/storetest"
)

// migrate --status lists every migration pending on a new database
// (applying none) and applied after migrate. A database a newer traineed
// migrated is refused by serve and the other commands (exit 1, the
// unknown migration named, nothing applied), listed by --status, and
// used with --allow-newer-schema.
func TestMigrateStatusAndNewerDatabase(t *testing.T) {
	storetest.EachURL(t, func(t *testing.T, db string) {
		// status is the rows of migrate --status: name, state, applied.
		status := func() [][]string {
			t.Helper()
			var rows [][]string
			for _, line := range strings.Split(strings.TrimSpace(ok(t, db, "migrate", "--status")), "\n")[1:] {
				rows = append(rows, strings.Split(line, "\t"))
			}
			return rows
		}
		table := ok(t, db, "migrate", "--status")
		if !strings.HasPrefix(table, "MIGRATION\tSTATE\tAPPLIED\n20260101000001\tpending\t-\n") || strings.Contains(table, "applied") {
			t.Fatalf("status of a new database:\n%s", table)
		}
		fresh := status()
		if len(fresh) < 15 || fresh[len(fresh)-1][1] != "pending" {
			t.Fatalf("--status migrated: %+v", fresh)
		}
		ok(t, db, "migrate")
		for _, r := range status() {
			if r[1] != "applied" || r[2] == "-" {
				t.Fatalf("after migrate: %+v", r)
			}
		}

		s := storetest.Open(t, db)
		raw := storetest.DB(t, s)
		ctx := context.Background()
		_, err := raw.NewRaw("DELETE FROM bun_migrations WHERE name = '20260101000016'").Exec(ctx)
		must(t, err)
		_, err = raw.NewRaw("INSERT INTO bun_migrations (name, group_id, migrated_at) VALUES ('20991231000001', 99, CURRENT_TIMESTAMP)").Exec(ctx)
		must(t, err)
		for _, args := range [][]string{{"serve", "--addr", "127.0.0.1:0"}, {"migrate"}, {"company", "list"}} {
			out, errOut, code := traineed(t, db, args...)
			if code != 1 || out != "" || !strings.Contains(errOut, "error: this traineed is older than the database: it has applied migrations 20991231000001") ||
				!strings.Contains(errOut, "Run the newer release") || !strings.Contains(errOut, "--allow-newer-schema") {
				t.Fatalf("%v on a newer database: exit %d, %q, %s", args, code, out, errOut)
			}
		}
		if n := storetest.Count(t, s, "bun_migrations", "name = '20260101000016'"); n != 0 {
			t.Fatal("a refused command migrated")
		}
		if table := ok(t, db, "migrate", "--status"); !strings.Contains(table, "20260101000016\tpending\t-\n") ||
			!strings.Contains(table, "20991231000001\tapplied, newer than this traineed\t") {
			t.Fatalf("status of a newer database:\n%s", table)
		}
		ok(t, db, "--allow-newer-schema", "migrate")
		rows := status()
		if last := rows[len(rows)-1]; last[0] != "20991231000001" || last[1] != "applied, newer than this traineed" || rows[len(rows)-2][1] != "applied" {
			t.Fatalf("after --allow-newer-schema migrate: %+v", rows)
		}
		_, cmd, logs := startServer(t, db, "--allow-newer-schema")
		stop(t, cmd, logs)
	})
}
