package store

import (
	"context"
	"encoding/hex"
	"errors"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/uptrace/bun"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/traineed/traineed/api"
)

// idemTxKey carries the transaction of an idempotent request: inTx joins
// it (in a savepoint) instead of starting one of its own.
type idemTxKey struct{}

// idempotencyLockWait bounds how long a request waits on PostgreSQL for
// the first request with its key (another instance's) to finish.
var idempotencyLockWait = "30s"

// errNotKept rolls back a run whose answer is not kept (a 5xx, or
// api.IdempotentAnswer.NotKept).
var errNotKept = errors.New("answer not kept")

// Idempotent implements api.IdempotencyStore.
//
// The key's row is inserted at the start of one transaction that then
// runs the request, whose writes join it, and stores the answer: the
// change and its answer commit together or not at all. A second request
// with the same key meets the uncommitted row: on PostgreSQL its INSERT
// waits for the first transaction (at most idempotencyLockWait), on
// SQLite for the write lock (busy_timeout); then it reads the answer.
func (s *Store) Idempotent(ctx context.Context, companyID int64, key string, fingerprint [32]byte,
	run func(ctx context.Context) *api.IdempotentAnswer) (*api.IdempotentAnswer, error) {
	if s.dialect == DialectSQLite {
		// One writer at a time anyway: wait here rather than hold a
		// pooled connection in BEGIN IMMEDIATE while the holder may need
		// one to read.
		s.idemMu.Lock()
		defer s.idemMu.Unlock()
	}
	fp := hex.EncodeToString(fingerprint[:])
	var out *api.IdempotentAnswer
	ctx, eff := withEffects(ctx)
	err := s.runTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if s.dialect == DialectPostgres {
			if _, err := tx.ExecContext(ctx, "SET LOCAL lock_timeout = '"+idempotencyLockWait+"'"); err != nil {
				return err
			}
		}
		now := s.utcNow()
		if _, err := tx.ExecContext(ctx, "DELETE FROM idempotency_keys WHERE company_id = ? AND created_at < ?",
			companyID, now.Add(-api.IdempotencyTTLHours*time.Hour)); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, "INSERT INTO idempotency_keys (company_id, key, fingerprint, status, content_type, body, created_at) "+
			"VALUES (?, ?, ?, 0, '', '', ?) ON CONFLICT (company_id, key) DO NOTHING", companyID, key, fp, now)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			var row struct {
				Fingerprint string `bun:"fingerprint"`
				Status      int    `bun:"status"`
				ContentType string `bun:"content_type"`
				Body        string `bun:"body"`
				ETag        string `bun:"etag"`
			}
			if err := tx.NewRaw("SELECT fingerprint, status, content_type, body, etag FROM idempotency_keys WHERE company_id = ? AND key = ?",
				companyID, key).Scan(ctx, &row); err != nil {
				return err
			}
			if row.Fingerprint != fp {
				return api.ErrIdempotencyMismatch
			}
			out = &api.IdempotentAnswer{Status: row.Status, ContentType: row.ContentType, Body: []byte(row.Body), ETag: row.ETag, Replayed: true}
			return nil
		}
		out = run(context.WithValue(ctx, idemTxKey{}, tx))
		if out.Status >= 500 || out.NotKept {
			return errNotKept
		}
		_, err = tx.ExecContext(ctx, "UPDATE idempotency_keys SET status = ?, content_type = ?, body = ?, etag = ? WHERE company_id = ? AND key = ?",
			out.Status, out.ContentType, string(out.Body), out.ETag, companyID, key)
		return err
	})
	switch {
	case errors.Is(err, errNotKept):
		return out, nil
	case err != nil && lockWaitEnded(err):
		return nil, api.ErrIdempotencyInProgress
	case err != nil:
		return nil, dbError(err)
	}
	if !out.Replayed {
		// The change committed just now: its writes' effects, which they
		// marked on the request's transaction, take effect.
		s.afterCommit(eff)
	}
	return out, nil
}

// lockWaitEnded reports a lock wait that timed out: PostgreSQL's
// lock_timeout, SQLite's busy_timeout.
func lockWaitEnded(err error) bool {
	var pg *pgconn.PgError
	if errors.As(err, &pg) {
		return pg.Code == "55P03"
	}
	var se *sqlite.Error
	if errors.As(err, &se) {
		return se.Code()&0xff == sqlite3.SQLITE_BUSY
	}
	return false
}

// joinTx runs fn in a savepoint of the idempotent request's transaction
// when ctx carries one; ok is false when it does not.
func joinTx(ctx context.Context, fn func(ctx context.Context, tx bun.Tx) error) (ok bool, err error) {
	outer, ok := ctx.Value(idemTxKey{}).(bun.Tx)
	if !ok {
		return false, nil
	}
	sp, err := outer.BeginTx(ctx, nil)
	if err != nil {
		return true, err
	}
	if err := fn(ctx, sp); err != nil {
		_ = sp.Rollback()
		return true, err
	}
	return true, sp.Commit()
}
