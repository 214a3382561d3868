package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"io"
	"net"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/uptrace/bun"

	"github.com/traineed/traineed/api"
)

// Lost connections (PostgreSQL). A backend ends under a pooled connection
// when the database restarts or fails over, an operator runs
// pg_terminate_backend, or a session times out. pgx learns of it only
// when it next uses the connection: the statement then fails (57P01 and
// its kin), and database/sql retries on its own only when the driver
// could tell that nothing had been sent (driver.ErrBadConn). So:
//
//   - every such error becomes api.ErrUnavailable (dbError), which the
//     server retries once for a GET or HEAD, and answers with a 503 if the
//     retry fails too;
//   - the first one drops the pool's idle connections (flushIdle), which
//     were most likely ended with it, so that a retry opens a new one;
//   - the hot reads (the key lookup, GET by id) are retried here on a new
//     connection;
//   - a transaction whose BEGIN failed that way never reached the
//     database, so it is begun again on another connection (beginTx): a
//     write is retried only then.

// connLost reports whether err says the database connection was lost (or
// the database is not accepting connections), rather than that a
// statement failed.
func connLost(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch pgErr.Code {
		case "57P01", // admin_shutdown: pg_terminate_backend, a fast shutdown
			"57P02", // crash_shutdown
			"57P03", // cannot_connect_now: starting up or in recovery
			"57P05": // idle_session_timeout
			return true
		}
		return strings.HasPrefix(pgErr.Code, "08") // connection_exception
	}
	if errors.Is(err, driver.ErrBadConn) || errors.Is(err, pgconn.ErrConnClosed) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, net.ErrClosed) {
		return true
	}
	if pgconn.SafeToRetry(err) {
		return true
	}
	var ne net.Error
	if errors.As(err, &ne) && !ne.Timeout() {
		return true
	}
	var ce *pgconn.ConnectError
	return errors.As(err, &ce)
}

// unavailable is err marked api.ErrUnavailable when the connection was
// lost, else err.
func unavailable(err error) error {
	if connLost(err) {
		return markLost(err)
	}
	return err
}

// markLost is err, a lost connection's, marked api.ErrUnavailable (once).
func markLost(err error) error {
	if errors.Is(err, api.ErrUnavailable) {
		return err
	}
	return &lostError{err}
}

// ClassifyError is api.ErrorClassifier: err marked api.ErrUnavailable
// when it says the connection was lost, else err.
func (s *Store) ClassifyError(err error) error { return unavailable(err) }

// lostError is a lost connection's error: api.ErrUnavailable, wrapping
// the driver's.
type lostError struct{ err error }

func (e *lostError) Error() string { return "database connection lost: " + e.err.Error() }

func (e *lostError) Unwrap() []error { return []error{api.ErrUnavailable, e.err} }

// How often at most the idle connections are dropped: one lost connection
// drops them once, not once per request that meets one of them.
const flushEvery = 100 * time.Millisecond

// How long after a lost connection every pooled one is pinged before use.
const suspectFor = 2 * time.Second

// flushIdle is what the store does on seeing a lost connection
// (PostgreSQL): the others likely went with it (a restart, a failover, a
// mass termination). It closes the pool's idle connections, and for
// suspectFor has every connection taken from the pool pinged first (a
// dead one is then replaced before a statement is sent on it): so a retry
// runs on a live connection, and so does a connection that was busy, not
// sending, when its backend ended. Connections that fail on their own are
// discarded by database/sql.
func (s *Store) flushIdle() {
	if s.dialect != DialectPostgres {
		return
	}
	now := time.Now().UnixNano()
	s.suspectUntil.Store(now + int64(suspectFor))
	last := s.lastFlush.Load()
	if now-last < int64(flushEvery) || !s.lastFlush.CompareAndSwap(last, now) {
		return
	}
	s.db.DB.SetMaxIdleConns(0) // closes every idle connection
	s.db.DB.SetMaxIdleConns(s.maxIdle)
}

// lostHook drops the idle connections when any statement bun runs meets
// a lost connection (its BEGIN and COMMIT included).
type lostHook struct{ s *Store }

func (h *lostHook) BeforeQuery(ctx context.Context, _ *bun.QueryEvent) context.Context { return ctx }

func (h *lostHook) AfterQuery(_ context.Context, ev *bun.QueryEvent) {
	if connLost(ev.Err) {
		h.s.flushIdle()
	}
}

// beginTx begins a transaction, and begins it again once on a new
// connection when the BEGIN met a lost one: nothing had reached the
// database, so nothing can be done twice.
// Each BEGIN that fails that way discards one dead connection; there are
// at most the pool's idle ones (fewer once flushIdle has run).
func (s *Store) beginTx(ctx context.Context, opts *sql.TxOptions) (bun.Tx, error) {
	for try := 0; ; try++ {
		tx, err := s.db.BeginTx(ctx, opts)
		if err == nil || !connLost(err) || ctx.Err() != nil || try > s.maxIdle {
			return tx, err
		}
		s.flushIdle()
	}
}

// runTx is bun's RunInTx begun with beginTx: fn's error, or a panic,
// rolls the transaction back; else it is committed. A COMMIT that meets
// a lost connection is not retried: whether it committed is unknown.
func (s *Store) runTx(ctx context.Context, opts *sql.TxOptions, fn func(ctx context.Context, tx bun.Tx) error) error {
	tx, err := s.beginTx(ctx, opts)
	if err != nil {
		return err
	}
	done := false
	defer func() {
		if !done {
			_ = tx.Rollback()
		}
	}()
	if err := fn(ctx, tx); err != nil {
		return err
	}
	done = true
	return tx.Commit()
}
