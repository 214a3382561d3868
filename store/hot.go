package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/schema"
	"go.opentelemetry.io/otel/trace"
)

// hotQuery is a statement that runs on (nearly) every request, or on every
// change: the key lookup, the read of one trainee, the statements of a
// create. It is built once, by the same scoped query builders as
// everything else, but with $n placeholders instead of values written into
// the text, so that it runs prepared (runHot): parsing and planning a
// statement costs a database more than executing one of these. (bun writes
// values into the SQL text, which is why the store's other statements use
// PostgreSQL's simple protocol.)
type hotQuery struct {
	build func(s *Store) *bun.SelectQuery
}

// placeholder n, for a hot query's builder.
func placeholder(n int) bun.Safe { return bun.Safe("$" + strconv.Itoa(n)) }

// hotText is q's text in the store's dialect, built on first use.
func (s *Store) hotText(q *hotQuery) string {
	text, ok := s.hot.Load(q)
	if !ok {
		text, _ = s.hot.LoadOrStore(q, q.build(s).String())
	}
	return text.(string)
}

// runHot runs text with args bound to $1, $2, ... in tx, or on the pool
// when tx is nil, as a prepared statement: on PostgreSQL pgx prepares it
// once per connection (QueryExecModeCacheStatement); on SQLite the store
// keeps one *sql.Stmt per text, which database/sql prepares once per
// connection (modernc's driver would otherwise parse and compile the
// statement, its triggers included, on every call).
func (s *Store) runHot(ctx context.Context, tx *bun.Tx, text string, args ...any) (rows *sql.Rows, err error) {
	if s.hotTrace != nil {
		s.hotTrace(text, args)
	}
	if s.traced(ctx) {
		// The span ends when the statement has answered (its first rows),
		// not when they are read.
		var span trace.Span
		ctx, span = s.stmtSpan(ctx, operation(text))
		defer func() { endStmtSpan(span, err) }()
	}
	if s.dialect == DialectPostgres {
		args = append([]any{pgx.QueryExecModeCacheStatement}, args...)
		if tx != nil {
			return tx.Tx.QueryContext(ctx, text, args...)
		}
		return s.db.DB.QueryContext(ctx, text, args...)
	}
	if tx == nil {
		st, err := s.sqliteStmt(ctx, text)
		if err != nil {
			return nil, err
		}
		return st.QueryContext(ctx, args...)
	}
	st, ok := s.stmts.Load(text)
	if !ok {
		// Preparing on the pool here could wait for the connection tx
		// holds (an in-memory database has one): run it unprepared this
		// time, and prepare it for the next on the pool meanwhile.
		s.prepareLater(text)
		return tx.Tx.QueryContext(ctx, text, args...)
	}
	// The same statement on tx's connection (database/sql prepares it
	// there once), closed with tx.
	return tx.Tx.StmtContext(ctx, st.(*sql.Stmt)).QueryContext(ctx, args...)
}

// sqliteStmt is the store's prepared statement of text (SQLite).
func (s *Store) sqliteStmt(ctx context.Context, text string) (*sql.Stmt, error) {
	if st, ok := s.stmts.Load(text); ok {
		return st.(*sql.Stmt), nil
	}
	st, err := s.db.DB.PrepareContext(ctx, text)
	if err != nil {
		return nil, err
	}
	if prev, loaded := s.stmts.LoadOrStore(text, st); loaded {
		_ = st.Close()
		return prev.(*sql.Stmt), nil
	}
	return st, nil
}

// prepareLater prepares text on the pool in the background, once.
func (s *Store) prepareLater(text string) {
	if _, busy := s.preparing.LoadOrStore(text, true); busy {
		return
	}
	go func() {
		_, err := s.sqliteStmt(context.Background(), text)
		if err != nil {
			s.preparing.Delete(text) // the next use tries again
		}
	}()
}

// queryHot runs q on the pool with args bound to $1, $2, ... and scans
// its one row into dest (a pointer to a struct: a bun model, or a row type
// with bun tags); no row is api.ErrNotFound.
func (s *Store) queryHot(ctx context.Context, q *hotQuery, dest any, args ...any) error {
	if s.dialect == DialectPostgres {
		return dbError(s.queryHotPgx(ctx, s.hotText(q), dest, args))
	}
	rows, err := s.runHot(ctx, nil, s.hotText(q), args...)
	if err != nil {
		return dbError(err)
	}
	defer rows.Close()
	if err := firstRow(rows); err != nil {
		return dbError(err)
	}
	if err := s.db.ScanRow(ctx, rows, dest); err != nil {
		return dbError(err)
	}
	return dbError(rows.Err())
}

// queryHotPgx is queryHot on PostgreSQL, run on the pool's connection but
// below database/sql: pgx scans the row straight into dest's fields
// (found by column name in bun's table of dest's type, as bun's ScanRow
// finds them). database/sql's driver adapter would build a converter per
// column for every result, about 50 allocations for a trainee read with
// its key, a third of a GET's, and then bun would scan what it converted.
// The statement is the one the pool's other users prepare (pgx's cache
// is per connection). A column that can be NULL needs a pointer field
// (pgx refuses NULL into a plain one, where bun wrote the zero value);
// every nullable column of the rows read this way has one.
//
// A connection found lost (connLost: found dead before anything was sent,
// or its backend ended) is dropped and the query tried again on a new
// one (each try discards one dead connection; there are at most the
// pool's idle ones): every hot query run this way is a read.
func (s *Store) queryHotPgx(ctx context.Context, text string, dest any, args []any) (err error) {
	v := reflect.ValueOf(dest)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return fmt.Errorf("store: queryHot into %T: want a pointer to a struct", dest)
	}
	v = v.Elem()
	if s.hotTrace != nil {
		s.hotTrace(text, args)
	}
	if s.traced(ctx) {
		var span trace.Span
		ctx, span = s.stmtSpan(ctx, operation(text))
		defer func() { endStmtSpan(span, err) }()
	}
	args = append([]any{pgx.QueryExecModeCacheStatement}, args...)
	for try := 1; ; try++ {
		err = s.queryHotPgxOnce(ctx, text, v, args)
		if try <= s.maxIdle && connLost(err) && ctx.Err() == nil {
			s.flushIdle() // the next try opens a new connection
			continue
		}
		return err
	}
}

// queryHotPgxOnce is one try of queryHotPgx, on one connection of the
// pool.
func (s *Store) queryHotPgxOnce(ctx context.Context, text string, v reflect.Value, args []any) error {
	conn, err := s.db.DB.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	var lost error
	err = conn.Raw(func(dc any) error {
		sc, ok := dc.(*stdlib.Conn)
		if !ok {
			return fmt.Errorf("store: queryHot: driver connection %T is not pgx's", dc)
		}
		err := s.scanHotPgx(ctx, sc.Conn(), text, v, args)
		if connLost(err) {
			lost = err
			return driver.ErrBadConn // database/sql closes this connection
		}
		return err
	})
	if lost != nil {
		return lost // the driver's error, not ErrBadConn
	}
	return err
}

// scanHotPgx runs text on conn and scans its first row into v's fields.
// pgx reports a failure to send in the rows, not from Query.
func (s *Store) scanHotPgx(ctx context.Context, conn *pgx.Conn, text string, v reflect.Value, args []any) error {
	rows, err := conn.Query(ctx, text, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	if err := firstRow(rows); err != nil {
		return err
	}
	table := s.db.Table(v.Type())
	cols := rows.FieldDescriptions()
	targets := make([]any, len(cols))
	for i, c := range cols {
		f := table.LookupField(c.Name)
		if f == nil {
			return fmt.Errorf("store: queryHot into %s: no field for column %q", v.Type(), c.Name)
		}
		targets[i] = f.Value(v).Addr().Interface()
	}
	if err := rows.Scan(targets...); err != nil {
		return err
	}
	rows.Close()
	return rows.Err()
}

// firstRow moves rows (database/sql's or pgx's) to their first row; none
// is sql.ErrNoRows.
func firstRow(rows interface {
	Next() bool
	Err() error
}) error {
	if rows.Next() {
		return nil
	}
	if err := rows.Err(); err != nil {
		return err
	}
	return sql.ErrNoRows
}

// scanHot runs text (with $n placeholders) in tx with args bound to $1,
// $2, ... and scans every row into dest (a pointer to a slice of models
// or of values); no row leaves it empty.
func (s *Store) scanHot(ctx context.Context, tx bun.Tx, text string, dest any, args ...any) error {
	rows, err := s.runHot(ctx, &tx, text, args...)
	if err != nil {
		return err
	}
	return s.db.ScanRows(ctx, rows, dest) // closes rows
}

// insertHot inserts row (a pointer to a model with an autoincrement
// primary key) in tx, prepared: every data column of the model is a $n
// parameter of one INSERT built per model type, and the key it returns is
// set in row. Values are bound as bun would write them: times in UTC, as
// bun's text on SQLite.
func (s *Store) insertHot(ctx context.Context, tx bun.Tx, row any) error {
	v := reflect.ValueOf(row).Elem()
	ins := s.insertFor(v.Type())
	args := make([]any, len(ins.table.DataFields))
	for i, f := range ins.table.DataFields {
		args[i] = s.bindValue(f.Value(v))
	}
	rows, err := s.runHot(ctx, &tx, ins.text, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	if err := firstRow(rows); err != nil {
		return err
	}
	if err := rows.Scan(ins.table.PKs[0].Value(v).Addr().Interface()); err != nil {
		return err
	}
	return rows.Err()
}

// hotInsert is the prepared INSERT of one model type.
type hotInsert struct {
	table *schema.Table
	text  string
}

func (s *Store) insertFor(t reflect.Type) *hotInsert {
	if ins, ok := s.inserts.Load(t); ok {
		return ins.(*hotInsert)
	}
	table := s.db.Table(t)
	var cols, params []string
	for i, f := range table.DataFields {
		cols = append(cols, string(f.SQLName))
		params = append(params, "$"+strconv.Itoa(i+1))
	}
	ins := &hotInsert{table: table, text: "INSERT INTO " + string(table.SQLName) +
		" (" + strings.Join(cols, ", ") + ") VALUES (" + strings.Join(params, ", ") + ")" +
		" RETURNING " + string(table.PKs[0].SQLName)}
	got, _ := s.inserts.LoadOrStore(t, ins)
	return got.(*hotInsert)
}

// bindValue is a model field's value as a statement parameter: nil for a
// nil pointer, times in UTC (as bun's text on SQLite: the same bytes as the
// store's other writes, so that comparisons and orderings hold).
func (s *Store) bindValue(v reflect.Value) any {
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return nil
		}
		v = v.Elem()
	}
	if t, ok := v.Interface().(time.Time); ok {
		return s.timeArg(t)
	}
	return v.Interface()
}

// timeArg is t as a statement parameter: in UTC, and on SQLite as bun's
// text.
func (s *Store) timeArg(t time.Time) any {
	if s.dialect == DialectSQLite {
		return t.UTC().Format(sqliteTime)
	}
	return t.UTC()
}

// sqliteTime is how bun writes a time into SQLite's text (its
// schema.BaseDialect.AppendTime).
const sqliteTime = "2006-01-02 15:04:05.999999-07:00"

// hotStep is one statement of a change's batch (runSteps): an insert of a
// model (insert; its key is scanned into it, and into keyTo when set), or
// a query (q built, or text written with $n placeholders) whose rows go
// into dest: all of them (a pointer to a slice), or with one the first
// row's one column (a pointer to a value), none being the step's answer
// when there is no row. A step's arguments are bound when it runs, so a
// driver.Valuer among them (keyOf, an event's body) is valued after the
// steps before it have answered.
type hotStep struct {
	insert any
	keyTo  *int64

	q    *hotQuery
	text string
	args []any
	dest any
	one  bool
	none error
}

// runSteps runs a change's statements in tx, in order, each prepared
// (runHot): its rows, its event with the event's deliveries, and the read
// of the automations the event may fire. A change's later statements take
// the keys its earlier ones were given (keyOf), so the whole change is
// built before any of it runs, and runs here in one pass. The steps go one
// after another, each its own round trip: a later step's arguments are
// valued only once the earlier steps have answered, which is why they
// cannot be sent as one pipelined batch (pgx's SendBatch encodes every
// argument first).
func (s *Store) runSteps(ctx context.Context, tx bun.Tx, steps []hotStep) error {
	for i := range steps {
		if err := s.runStep(ctx, tx, &steps[i]); err != nil {
			return dbError(err)
		}
	}
	return nil
}

func (s *Store) runStep(ctx context.Context, tx bun.Tx, st *hotStep) error {
	if st.insert != nil {
		if err := s.insertHot(ctx, tx, st.insert); err != nil {
			return err
		}
		if st.keyTo != nil {
			v := reflect.ValueOf(st.insert).Elem()
			*st.keyTo = s.insertFor(v.Type()).table.PKs[0].Value(v).Int()
		}
		return nil
	}
	text := st.text
	if st.q != nil {
		text = s.hotText(st.q)
	}
	if !st.one {
		return s.scanHot(ctx, tx, text, st.dest, st.args...)
	}
	rows, err := s.runHot(ctx, &tx, text, st.args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	if err := firstRow(rows); err != nil {
		if errors.Is(err, sql.ErrNoRows) && st.none != nil {
			return st.none
		}
		return err
	}
	if err := rows.Scan(st.dest); err != nil {
		return err
	}
	return rows.Err()
}

// keyOf is a key that an earlier step of a batch is given, as an argument
// of a later one: valued when the later step binds it.
type keyOf struct{ p *int64 }

func (k keyOf) Value() (driver.Value, error) { return *k.p, nil }

// String is the key as a failed plan's arguments show it.
func (k keyOf) String() string { return strconv.FormatInt(*k.p, 10) }
