package storetest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/traineed/traineed/store"
)

// templateMaxAge is how old another process's template may grow before a
// new one drops it. No hook runs when a test binary exits, so templates
// are never dropped by their own process; a test binary's -timeout is 10
// minutes unless told otherwise, so an hour-old template has no user.
const templateMaxAge = time.Hour

// templatePrefix names the templates: the prefix, the Unix second of
// their making, a random part.
const templatePrefix = "traineed_tmpl_"

// template is this test process's migrated database, made at its first
// Postgres(t) and kept for the process's life.
var template struct {
	sync.Mutex
	name string
}

// migratedTemplate returns the name of this process's migrated template
// database, making it first if need be.
func migratedTemplate(t testing.TB) string {
	t.Helper()
	template.Lock()
	defer template.Unlock()
	if template.name != "" {
		return template.name
	}
	base, u := postgresBase(t)
	var b [4]byte
	_, _ = rand.Read(b[:])
	name := fmt.Sprintf("%s%d_%s", templatePrefix, time.Now().Unix(), hex.EncodeToString(b[:]))
	u.Path = "/" + name
	err := withAdmin(base, 60*time.Second, func(ctx context.Context, admin *sql.DB) error {
		dropStaleTemplates(ctx, admin, time.Now())
		if err := createDatabase(ctx, admin, name, ""); err != nil {
			return fmt.Errorf("create template: %w", err)
		}
		s, err := store.Open(ctx, u.String())
		if err == nil {
			err = s.Close() // a template must have no connection when copied
		}
		if err != nil {
			_, _ = admin.ExecContext(ctx, `DROP DATABASE IF EXISTS "`+name+`" WITH (FORCE)`)
			return fmt.Errorf("migrate template: %w", err)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("storetest: %v", err)
	}
	template.name = name
	return name
}

// dropStaleTemplates drops the templates made more than templateMaxAge
// before now, by any process; a failure leaves them to the next one.
func dropStaleTemplates(ctx context.Context, admin *sql.DB, now time.Time) {
	rows, err := admin.QueryContext(ctx, `SELECT datname FROM pg_database WHERE starts_with(datname, $1)`, templatePrefix)
	if err != nil {
		return
	}
	var stale []string
	for rows.Next() {
		var name string
		if rows.Scan(&name) == nil && templateStale(name, now) {
			stale = append(stale, name)
		}
	}
	_ = rows.Close()
	for _, name := range stale {
		_, _ = admin.ExecContext(ctx, `DROP DATABASE IF EXISTS "`+name+`" WITH (FORCE)`)
	}
}

// templateStale reports whether the template name was made more than
// templateMaxAge before now (a name it cannot read is left alone).
func templateStale(name string, now time.Time) bool {
	secs, _, ok := strings.Cut(strings.TrimPrefix(name, templatePrefix), "_")
	n, err := strconv.ParseInt(secs, 10, 64)
	return ok && err == nil && now.Sub(time.Unix(n, 0)) > templateMaxAge
}
