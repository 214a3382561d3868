// Package store keeps companies, trainers, trainees and API keys in SQLite
// (modernc.org/sqlite, pure Go) or PostgreSQL (pgx v5) through uptrace/bun.
//
// Tenant scoping is structural: every method touching trainee data takes the
// caller's company id, and every trainee query starts from traineeQuery. The
// only unscoped lookup is Authenticate's lookup of an API key by its hash.
package store

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	_ "time/tzdata" // company time zones must load on machines without tzdata

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
	"github.com/uptrace/bun/dialect/sqlitedialect"
	"go.opentelemetry.io/otel/trace"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/traineed/traineed/api"
)

// Dialect names returned by (*Store).Dialect.
const (
	DialectSQLite   = "sqlite"
	DialectPostgres = "postgres"
)

//go:embed migrations/sqlite/*.sql migrations/postgres/*.sql
var migrationFiles embed.FS

// How long Open waits for another process's migration lock.
var migrateLockWait = 15 * time.Second

// Store is the database behind the service. It is safe for concurrent use.
type Store struct {
	db      *bun.DB
	dialect string
	now     func() time.Time

	locations sync.Map // time zone name -> *time.Location
	hot       sync.Map // *hotQuery -> its SQL in this store's dialect
	stmts     sync.Map // SQLite: a hot statement's text -> its *sql.Stmt
	inserts   sync.Map // model type -> its *hotInsert
	preparing sync.Map // SQLite: a hot statement's text being prepared in the background

	// hotTrace, when set (by a test, before the store is used), sees the
	// text and arguments of every hot statement before it runs: those run
	// below bun, which its query hooks do not see (TestQueryPlans).
	hotTrace func(text string, args []any)

	touchMu     sync.Mutex
	touched     map[int64]time.Time // key id -> last_used_at this process wrote or saw
	touchWG     sync.WaitGroup
	closed      bool
	touchPeriod time.Duration

	outbox bool          // record webhook events (benchmarks turn it off for a baseline)
	wake   chan struct{} // a committed change scheduled webhook deliveries

	url     string      // what Open was given (Listen connects with it)
	wakeOut *wakeSender // PostgreSQL: tells the other instances what committed (wake.go)

	idemMu sync.Mutex // SQLite: one idempotent transaction at a time

	maxIdle      int           // the pool's idle connections (flushIdle restores it)
	lastFlush    atomic.Int64  // when flushIdle last dropped them (Unix ns)
	suspectUntil *atomic.Int64 // until when every pooled connection is pinged before use (Unix ns)

	hookMu     sync.RWMutex
	eventHooks []func(companyID int64) // OnEvent listeners

	notes      migrationNotes // what this process's migrations reported
	allowNewer bool           // AllowNewerSchema

	tracer trace.Tracer // nil: tracing off (SetTracerProvider, tracing.go)
}

// SQLitePath is the file of a "sqlite:PATH" URL (sqlite://PATH
// tolerated); ok is false for any other URL.
func SQLitePath(url string) (path string, ok bool) {
	path, ok = strings.CutPrefix(url, "sqlite:")
	return strings.TrimPrefix(path, "//"), ok
}

// Open connects to url and brings the schema up to date. url is
// "sqlite:PATH" or "postgres://..." (also "postgresql://...").
//
// Open refuses (ErrNewerSchema) a database a newer traineed migrated,
// unless given AllowNewerSchema; WithoutMigrating opens it as it is.
func Open(ctx context.Context, url string, opts ...Option) (*Store, error) {
	var cfg openConfig
	for _, o := range opts {
		o(&cfg)
	}
	var (
		db      *bun.DB
		dialect string
		suspect = new(atomic.Int64) // Store.suspectUntil
	)
	switch {
	case strings.HasPrefix(url, "sqlite:"):
		path, _ := SQLitePath(url)
		if path == "" {
			return nil, errors.New("store: sqlite URL has no path: want sqlite:PATH")
		}
		sqldb, err := openSQLite(path)
		if err != nil {
			return nil, err
		}
		db, dialect = bun.NewDB(sqldb, sqlitedialect.New()), DialectSQLite
	case strings.HasPrefix(url, "postgres://"), strings.HasPrefix(url, "postgresql://"):
		sqldb, err := openPostgres(url, suspect)
		if err != nil {
			return nil, err
		}
		db, dialect = bun.NewDB(sqldb, pgdialect.New()), DialectPostgres
	default:
		scheme := url
		if i := strings.IndexByte(url, ':'); i >= 0 {
			scheme = url[:i]
		}
		return nil, fmt.Errorf("store: unsupported database URL scheme %q: want sqlite:PATH or a postgres:// URL", scheme)
	}
	s := &Store{
		db:           db,
		dialect:      dialect,
		now:          time.Now,
		touched:      map[int64]time.Time{},
		touchPeriod:  time.Minute,
		outbox:       true,
		wake:         make(chan struct{}, 1),
		maxIdle:      db.DB.Stats().MaxOpenConnections, // each opener sets as many idle as open
		suspectUntil: suspect,
		url:          url,
		allowNewer:   cfg.allowNewer,
	}
	if dialect == DialectPostgres {
		db.AddQueryHook(&lostHook{s})
	}
	if !cfg.noMigrate {
		if err := s.Migrate(ctx); err != nil {
			_ = db.Close()
			return nil, err
		}
	}
	if dialect == DialectPostgres {
		s.startWakeSender()
	}
	return s, nil
}

func openSQLite(path string) (*sql.DB, error) {
	// A plain file name (not a file: URI): the driver strips the query and
	// applies the underscore parameters itself. busy_timeout first, so that
	// switching to WAL waits for other connections. _txlock=immediate takes
	// the write lock at BEGIN, so concurrent read-then-write transactions
	// queue on busy_timeout instead of failing with SQLITE_BUSY.
	// secure_delete(1) overwrites with zeros the bytes SQLite frees (a
	// deleted row, the old copy of an updated one), so that an erased
	// trainee's data does not survive in free pages of the file (issue
	// 35; its cost is in docs/performance.md).
	dsn := path + "?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)" +
		"&_pragma=foreign_keys(1)&_pragma=synchronous(NORMAL)&_pragma=secure_delete(1)&_txlock=immediate"
	sqldb, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("store: open sqlite %s: %w", path, err)
	}
	n := max(4, 2*runtime.GOMAXPROCS(0))
	if path == ":memory:" {
		n = 1 // every connection would have a database of its own
	}
	sqldb.SetMaxOpenConns(n)
	sqldb.SetMaxIdleConns(n)
	sqldb.SetConnMaxIdleTime(0)
	sqldb.SetConnMaxLifetime(0)
	return sqldb, nil
}

// openPostgres opens the pool. A pooled connection is pinged before its
// next use when it sat idle over a second (pgx's default), and any
// connection while suspect (a Unix time in ns) is in the future: for a
// while after a lost connection was seen (lostSeen), when the others may
// have gone with it; a ping that fails makes database/sql take another.
func openPostgres(url string, suspect *atomic.Int64) (*sql.DB, error) {
	cfg, err := pgConnConfig(url)
	if err != nil {
		return nil, err
	}
	sqldb := stdlib.OpenDB(*cfg, stdlib.OptionShouldPing(func(_ context.Context, p stdlib.ShouldPingParams) bool {
		return p.IdleDuration > time.Second || time.Now().UnixNano() < suspect.Load()
	}))
	n := max(10, 4*runtime.GOMAXPROCS(0))
	sqldb.SetMaxOpenConns(n)
	sqldb.SetMaxIdleConns(n)
	sqldb.SetConnMaxIdleTime(5 * time.Minute)
	sqldb.SetConnMaxLifetime(time.Hour)
	return sqldb, nil
}

// pgConnConfig is the configuration of every connection to url: the
// pool's and the wake listener's.
func pgConnConfig(url string) (*pgx.ConnConfig, error) {
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("store: postgres URL: %w", err)
	}
	// bun writes arguments into the SQL text itself, so every statement is
	// new to pgx: preparing it would cost a second round trip for nothing.
	if !strings.Contains(url, "default_query_exec_mode") {
		cfg.DefaultQueryExecMode = pgx.QueryExecModeSimpleProtocol
	}
	// bun quotes strings the standard way; never let a server setting make
	// a backslash special.
	cfg.RuntimeParams["standard_conforming_strings"] = "on"
	if cfg.RuntimeParams["application_name"] == "" {
		cfg.RuntimeParams["application_name"] = "traineed"
	}
	return cfg, nil
}

// Migrate applies the embedded migrations of the store's dialect that are
// not applied yet, under bun/migrate's lock. Open calls it. A database a
// newer traineed migrated (applied migrations this build does not know)
// is a *NewerSchemaError, and nothing is changed, unless the store was
// opened with AllowNewerSchema.
func (s *Store) Migrate(ctx context.Context) error {
	m, _, err := s.migrator()
	if err != nil {
		return err
	}
	// Checked before anything is written (the lock is a row), and again
	// under the lock: a newer traineed may have migrated meanwhile.
	if err := s.newerMigrations(ctx, m); err != nil && !(s.allowNewer && errors.Is(err, ErrNewerSchema)) {
		return err
	}

	// Init creates the bookkeeping tables; two processes starting at once
	// can collide on that too, so it is retried with the lock.
	deadline := time.Now().Add(migrateLockWait)
	for {
		err = m.Init(ctx)
		if err == nil {
			err = m.Lock(ctx)
		}
		if err == nil {
			break
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("store: migrations are locked by another process (waited %s; "+
				"if no other traineed is migrating, a crashed one left the lock: "+
				"DELETE FROM bun_migration_locks): %w", migrateLockWait, err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
	defer func() {
		uctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer cancel()
		_ = m.Unlock(uctx)
	}()
	if err := s.newerMigrations(ctx, m); err != nil && !(s.allowNewer && errors.Is(err, ErrNewerSchema)) {
		return err
	}
	if _, err := m.Migrate(ctx); err != nil {
		return fmt.Errorf("store: migrate: %w", err)
	}
	return nil
}

// Close waits for background writes and closes the database.
func (s *Store) Close() error {
	s.touchMu.Lock()
	s.closed = true
	s.touchMu.Unlock()
	s.touchWG.Wait()
	if s.wakeOut != nil {
		s.wakeOut.close() // after the last commit's afterCommit
	}
	s.stmts.Range(func(_, st any) bool {
		_ = st.(*sql.Stmt).Close()
		return true
	})
	return s.db.Close()
}

// Dialect returns "sqlite" or "postgres".
func (s *Store) Dialect() string { return s.dialect }

// Ping checks the database for /readyz.
func (s *Store) Ping(ctx context.Context) error { return s.db.PingContext(ctx) }

// dbError is the one place database errors become api errors: a unique
// violation is a *api.ConflictError naming the API field, a missing row
// api.ErrNotFound, a foreign key that points nowhere api.ErrNotFound, and a
// lost connection api.ErrUnavailable (connLost).
func dbError(err error) error {
	if err == nil {
		return nil
	}
	if connLost(err) {
		return markLost(err)
	}
	if errors.Is(err, sql.ErrNoRows) {
		return api.ErrNotFound
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch pgErr.Code {
		case "23505": // unique_violation
			if f := conflictField(pgErr.ConstraintName); f != "" {
				return &api.ConflictError{Field: f}
			}
		case "23503": // foreign_key_violation
			return api.ErrNotFound
		}
		return err
	}
	var liteErr *sqlite.Error
	if errors.As(err, &liteErr) {
		switch liteErr.Code() {
		case sqlite3.SQLITE_CONSTRAINT_UNIQUE, sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY:
			// "UNIQUE constraint failed: users.email"
			msg := liteErr.Error()
			if i := strings.LastIndex(msg, "failed: "); i >= 0 {
				if f := conflictField(msg[i+len("failed: "):]); f != "" {
					return &api.ConflictError{Field: f}
				}
			}
		case sqlite3.SQLITE_CONSTRAINT_FOREIGNKEY:
			return api.ErrNotFound
		}
	}
	return err
}

// conflictField names the API field of a unique constraint: a PostgreSQL
// constraint name ("users_email_key") or SQLite's "table.column" list.
func conflictField(constraint string) string {
	switch {
	case strings.Contains(constraint, "users_email"), strings.Contains(constraint, "users.email"):
		return "email"
	case strings.Contains(constraint, "users_phone"), strings.Contains(constraint, "users.phone"):
		return "phoneNumber"
	}
	return ""
}

// inTx runs fn in one transaction; fn's error (mapped by dbError) rolls it
// back.
// Inside an idempotent request (Idempotent) it joins that request's
// transaction, in a savepoint.
func (s *Store) inTx(ctx context.Context, fn func(ctx context.Context, tx bun.Tx) error) error {
	if ok, err := joinTx(ctx, fn); ok {
		return dbError(err) // the effects go with the joined transaction's
	}
	ctx, eff := withEffects(ctx)
	if err := s.runTx(ctx, nil, fn); err != nil {
		return dbError(err)
	}
	s.afterCommit(eff)
	return nil
}

// forUpdate locks the selected rows until the transaction ends on
// PostgreSQL; SQLite's immediate transactions already hold the write lock.
func (s *Store) forUpdate(q *bun.SelectQuery) *bun.SelectQuery {
	if s.dialect == DialectPostgres {
		return q.For("UPDATE")
	}
	return q
}

// utcNow is the current instant, in UTC, at microsecond precision (what
// both databases keep).
func (s *Store) utcNow() time.Time { return s.now().UTC().Truncate(time.Microsecond) }

// location loads a time zone once per process; zones never change meaning.
func (s *Store) location(name string) (*time.Location, error) {
	if v, ok := s.locations.Load(name); ok {
		return v.(*time.Location), nil
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil, err
	}
	s.locations.Store(name, loc)
	return loc, nil
}

// PoolStats returns the statistics of the store's connection pool (open,
// in use, idle, waits), for the server's metrics.
func (s *Store) PoolStats() sql.DBStats { return s.db.DB.Stats() }
