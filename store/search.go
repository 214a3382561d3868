package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/uptrace/bun"

	"github.com/traineed/traineed/api"
)

// sortColumns maps the API's sort keys to columns of traineeQuery.
var sortColumns = map[string]string{
	api.SortID:             "t.id",
	api.SortName:           "u.search_name",
	api.SortEmail:          "u.email",
	api.SortExpirationDate: "t.expiration_date",
	api.SortLastTrained:    "t.last_trained",
}

// likeEscaper escapes LIKE's wildcards and its escape character '\'.
var likeEscaper = strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)

// SearchTrainees returns one page of the company's trainees and how many
// match in all, counted up to q.CountLimit(): a total below it is exact,
// a total equal to it says that at least that many match (see api.Search).
// The count and the page are read in one snapshot, so the total always
// agrees with the page.
func (s *Store) SearchTrainees(ctx context.Context, companyID int64, q api.Search) ([]*api.Trainee, int64, error) {
	col, ok := sortColumns[q.Sort]
	if q.Sort == "" {
		col, ok = sortColumns[api.SortID], true
	}
	if !ok {
		return nil, 0, fmt.Errorf("store: unknown sort %q", q.Sort)
	}
	if q.Size <= 0 || q.Page < 0 {
		return nil, 0, fmt.Errorf("store: invalid page %d or size %d", q.Page, q.Size)
	}
	if _, _, err := statusWhere(q); err != nil {
		return nil, 0, err
	}
	var (
		out   = []*api.Trainee{}
		total int64
	)
	err := s.readTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		var err error
		offset := int64(q.Page) * int64(q.Size)
		if offset >= api.ExactTotalBound {
			// A deep page: one row past the page tells whether more match,
			// which is all a bounded count would say (q.CountLimit is the
			// page's end plus one), without a second pass over the offset.
			if out, err = s.searchPage(ctx, tx, companyID, q, col, offset, q.Size+1); err != nil {
				return err
			}
			if len(out) > q.Size {
				out, total = out[:q.Size], q.CountLimit()
				return nil
			}
			if len(out) > 0 {
				total = offset + int64(len(out))
				return nil
			}
			// Past the end: count to say where the end is.
		}
		if total, err = s.searchCount(ctx, tx, companyID, q); err != nil {
			return err
		}
		if total == 0 || offset >= total {
			return nil
		}
		out, err = s.searchPage(ctx, tx, companyID, q, col, offset, q.Size)
		return err
	})
	if err != nil {
		return nil, 0, err
	}
	return out, total, nil
}

// statusWhere is the condition of a search's status.
func statusWhere(q api.Search) (string, []any, error) {
	switch q.Status {
	case api.StatusLive, "":
		return "t.enabled", nil, nil
	case api.StatusActive:
		return "t.enabled AND (t.expiration_date IS NULL OR t.expiration_date > ?)", []any{q.Today.Int()}, nil
	case api.StatusExpired:
		return "t.enabled AND t.expiration_date <= ?", []any{q.Today.Int()}, nil
	case api.StatusDeleted:
		return "NOT t.enabled", nil, nil
	case api.StatusAll:
		return "", nil, nil
	}
	return "", nil, fmt.Errorf("store: unknown status %q", q.Status)
}

// searchFilter adds the WHERE of a search (status and q) to a query over
// traineeScope with the users joined as u.
func searchFilter(sel *bun.SelectQuery, q api.Search) (*bun.SelectQuery, error) {
	where, args, err := statusWhere(q)
	if err != nil {
		return nil, err
	}
	if where != "" {
		sel = sel.Where(where, args...)
	}
	if q.Query != "" {
		pattern := "%" + likeEscaper.Replace(strings.ToLower(q.Query)) + "%"
		if q.Digits != "" {
			sel = sel.Where(`(u.search_name LIKE ? ESCAPE '\' OR u.email LIKE ? ESCAPE '\' OR u.phone LIKE ? ESCAPE '\')`,
				pattern, pattern, "%"+likeEscaper.Replace(q.Digits)+"%")
		} else {
			sel = sel.Where(`(u.search_name LIKE ? ESCAPE '\' OR u.email LIKE ? ESCAPE '\')`, pattern, pattern)
		}
	}
	return sel, nil
}

// qMatch narrows a search with q, on SQLite, to the users that the FTS5
// trigram index users_fts (migration 20260101000008_fts) says may match:
// it is a superset prefilter, and searchFilter's LIKE rechecks every
// candidate, so the result is the same as PostgreSQL's (which serves the
// LIKE from pg_trgm indexes). The index holds lower() of search_name and
// of the e-mail, each followed by two char(1), and the phone. sorted is
// the page's sort column, "" for the count.
//
// A q of three characters or more is one FTS5 phrase (the string quoted,
// so no character of q is query syntax): its trigrams in a row, in the
// name or the e-mail, or q's digits in the phone. The trainees are then
// read from the candidates (by trainees.user_id), except for a page
// sorted by id when q has many candidates: there walking the trainees in
// id order and probing the candidates stops after the page, where the
// candidates would all be read and sorted.
//
// A q of one or two characters has no trigram of its own, but every
// occurrence of it begins a trigram of the padded text: its candidates
// are the users of the indexed terms that begin with q (a range of the
// term dictionary, users_fts_terms). When they are many (a q such as "a"
// or "an"), the matches are dense and the plain scan finds a page and
// its bounded count sooner than the prefilter could list them.
//
// q with a NUL or that is not UTF-8 is left to the scan.
func (s *Store) qMatch(ctx context.Context, tx bun.Tx, sel *bun.SelectQuery, q api.Search, sorted string) (*bun.SelectQuery, error) {
	if s.dialect != DialectSQLite || q.Query == "" || ftsOff {
		return sel, nil
	}
	lq := strings.ToLower(q.Query)
	if strings.IndexByte(lq, 0) >= 0 || !utf8.ValidString(lq) {
		return sel, nil
	}
	if n := utf8.RuneCountInString(lq); n < 3 {
		if q.Digits != "" { // never: Digits has three digits or more
			return sel, nil
		}
		terms := "SELECT doc FROM users_fts_terms WHERE term >= ? AND term <= ? AND col <> 'phone'"
		args := []any{lq, lq + strings.Repeat(string(utf8.MaxRune), 3-n)}
		if dense, err := s.ftsMany(ctx, tx, terms, args, ftsShortLimit); err != nil || dense {
			return sel, err
		}
		return sel.Where("t.user_id IN ("+terms+")", args...), nil
	}
	match := "{search_name email}: " + ftsString(lq)
	if q.Digits != "" {
		match += " OR phone: " + ftsString(q.Digits)
	}
	const candidates = "SELECT rowid FROM users_fts WHERE users_fts MATCH ?"
	if sorted == "t.id" {
		dense, err := s.ftsMany(ctx, tx, candidates, []any{match}, ftsWalkLimit)
		if err != nil {
			return nil, err
		}
		if dense { // the unary + keeps SQLite from reading t by user_id
			return sel.Where("+t.user_id IN ("+candidates+")", match), nil
		}
	}
	return sel.Where("t.user_id IN ("+candidates+")", match), nil
}

// The candidate counts from which qMatch leaves the FTS5 list: a short
// q's term instances (from there, the plain scan), and a longer q's users
// for a page by id (from there, the walk in id order). Variables for the
// tests, which force each way.
var (
	ftsShortLimit = 2000
	ftsWalkLimit  = 500
)

// ftsOff turns the prefilter off, for the benchmark that compares it with
// the scan.
var ftsOff bool

// ftsMany says whether the query of candidates returns limit rows or more.
func (s *Store) ftsMany(ctx context.Context, tx bun.Tx, candidates string, args []any, limit int) (bool, error) {
	var n int
	err := tx.NewRaw("SELECT count(*) FROM ("+candidates+" LIMIT ?)", append(args, limit)...).Scan(ctx, &n)
	return n >= limit, err
}

// ftsString quotes s as an FTS5 string: between double quotes, with each
// double quote doubled, every character stands for itself.
func ftsString(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// searchCount counts the matches up to q.CountLimit(); it joins the users
// only to match q. Counting stops at the limit, so a search whose q
// matches most of a million trainees costs a bounded scan, not a full one.
func (s *Store) searchCount(ctx context.Context, tx bun.Tx, companyID int64, q api.Search) (int64, error) {
	count := s.traineeScope(tx, companyID)
	if q.Query != "" {
		count = count.Join("JOIN users AS u ON u.id = t.user_id")
	}
	count, err := searchFilter(count, q)
	if err != nil {
		return 0, err
	}
	if count, err = s.qMatch(ctx, tx, count, q, ""); err != nil {
		return 0, err
	}
	var n int64
	err = tx.NewSelect().TableExpr("(?) AS m", count.ColumnExpr("1").Limit(q.CountLimit())).
		ColumnExpr("count(*)").Scan(ctx, &n)
	return n, err
}

// searchPage reads limit rows at offset, sorted by col with nulls last in
// both directions and ties by id, so pages never overlap.
func (s *Store) searchPage(ctx context.Context, tx bun.Tx, companyID int64, q api.Search, col string, offset int64, limit int) ([]*api.Trainee, error) {
	sel, err := searchFilter(s.traineeQuery(tx, companyID), q)
	if err != nil {
		return nil, err
	}
	if sel, err = s.qMatch(ctx, tx, sel, q, col); err != nil {
		return nil, err
	}
	dir := "ASC"
	if q.Desc {
		dir = "DESC"
	}
	if col == "t.id" {
		sel = sel.OrderExpr("t.id " + dir)
	} else {
		sel = sel.OrderExpr(col + " " + dir + " NULLS LAST").OrderExpr("t.id ASC")
	}
	var rows []traineeRow
	if err := sel.Limit(int64(limit)).Offset(offset).Scan(ctx, &rows); err != nil {
		return nil, err
	}
	out := make([]*api.Trainee, len(rows))
	for i := range rows {
		out[i] = rows[i].toAPI()
	}
	return out, nil
}

// readTx runs fn in one read-only transaction that sees one snapshot:
// REPEATABLE READ on PostgreSQL; on SQLite a deferred transaction (it
// takes no write lock) reads from one WAL snapshot.
func (s *Store) readTx(ctx context.Context, fn func(ctx context.Context, tx bun.Tx) error) error {
	opts := &sql.TxOptions{ReadOnly: true}
	if s.dialect == DialectPostgres {
		opts.Isolation = sql.LevelRepeatableRead
	}
	return dbError(s.db.RunInTx(ctx, opts, fn))
}
