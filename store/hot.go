package store

import (
	"context"
	"database/sql"
	"strconv"

	"github.com/jackc/pgx/v5"
	"github.com/uptrace/bun"
)

// hotQuery is a statement that runs on (nearly) every request: the key
// lookup and the read of one trainee. It is built once, by the same scoped
// query builders as everything else, but with $n placeholders instead of
// values written into the text, so that PostgreSQL can run it as a
// prepared statement cached on each connection: parsing and planning a
// statement costs PostgreSQL more than executing one of these. (bun writes
// values into the SQL text, which is why the store's other statements use
// the simple protocol.)
type hotQuery struct {
	build func(s *Store) *bun.SelectQuery
}

// placeholder n, for a hot query's builder.
func placeholder(n int) bun.Safe { return bun.Safe("$" + strconv.Itoa(n)) }

// queryHot runs q with args bound to $1, $2, ... and scans its one row into
// dest (a bun model, or columns); no row is api.ErrNotFound.
func (s *Store) queryHot(ctx context.Context, q *hotQuery, dest any, args ...any) error {
	text, ok := s.hot.Load(q)
	if !ok {
		text, _ = s.hot.LoadOrStore(q, q.build(s).String())
	}
	if s.dialect == DialectPostgres {
		args = append([]any{pgx.QueryExecModeCacheStatement}, args...)
	}
	rows, err := s.db.DB.QueryContext(ctx, text.(string), args...)
	if err != nil {
		return dbError(err)
	}
	defer rows.Close()
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return dbError(err)
		}
		return dbError(sql.ErrNoRows)
	}
	if err := s.db.ScanRow(ctx, rows, dest); err != nil {
		return dbError(err)
	}
	return dbError(rows.Err())
}
