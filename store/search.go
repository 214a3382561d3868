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

// searchSort is how the store orders a search by one sort key: the
// trainees column, whether it can be null, and whether it needs id as a
// tie-break (e-mails are unique, ids are the key).
type searchSort struct {
	col      string
	nullable bool
	ties     bool
}

var searchSorts = map[string]searchSort{
	api.SortID:             {col: "id"},
	api.SortName:           {col: "search_name", ties: true},
	api.SortEmail:          {col: "email"},
	api.SortExpirationDate: {col: "expiration_date", nullable: true, ties: true},
	api.SortLastTrained:    {col: "last_trained", nullable: true, ties: true},
}

// likeEscaper escapes LIKE's wildcards and its escape character '\'.
var likeEscaper = strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)

// SearchTrainees returns one page of the company's trainees and how many
// match in all, counted up to q.CountLimit(): a total below it is exact,
// a total equal to it says that at least that many match (see api.Search).
// The count and the page are read in one snapshot, so the total always
// agrees with the page: q.NextCursor(page, total) is nil exactly when no
// row follows the page.
//
// The search reads trainees alone (search_name, email and phone are
// copies of the user's), so PostgreSQL walks one index of the sort key
// and stops after the page; users are joined for the page's rows only.
// A nullable sort reads its non-null part, then its null part, each an
// index range. With q.Cursor the page starts after the cursor's row
// (keyset) instead of at an offset.
func (s *Store) SearchTrainees(ctx context.Context, companyID int64, q api.Search) ([]*api.Trainee, int64, error) {
	srt, err := checkSearch(&q)
	if err != nil {
		return nil, 0, err
	}
	var (
		out   []*api.Trainee
		total int64
	)
	err = s.readTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		var err error
		out, total, err = s.searchIn(ctx, tx, companyID, q, srt)
		return err
	})
	if err != nil {
		return nil, 0, err
	}
	return out, total, nil
}

// checkSearch gives q its default sort (by id) and refuses what the API
// never sends: an unknown sort or status, a page without rows, a cursor
// of another order.
func checkSearch(q *api.Search) (searchSort, error) {
	if q.Sort == "" {
		q.Sort = api.SortID
	}
	srt, ok := searchSorts[q.Sort]
	if !ok {
		return srt, fmt.Errorf("store: unknown sort %q", q.Sort)
	}
	if q.Size <= 0 || q.Page < 0 {
		return srt, fmt.Errorf("store: invalid page %d or size %d", q.Page, q.Size)
	}
	if c := q.Cursor; c != nil && (c.Sort != q.Sort || c.Desc != q.Desc) {
		return srt, fmt.Errorf("store: cursor of sort %q desc %v for sort %q desc %v", c.Sort, c.Desc, q.Sort, q.Desc)
	}
	_, _, err := statusWhere(*q)
	return srt, err
}

// searchIn is SearchTrainees in its transaction: the page (never nil)
// and its total.
func (s *Store) searchIn(ctx context.Context, tx bun.Tx, companyID int64, q api.Search, srt searchSort) ([]*api.Trainee, int64, error) {
	plan, err := s.newSearchPlan(ctx, tx, companyID, q)
	if err != nil {
		return nil, 0, err
	}
	offset := q.Offset()
	if offset >= api.ExactTotalBound {
		// A deep page: one row past the page tells whether more match,
		// which is all a bounded count would say (q.CountLimit is the
		// page's end plus one), without a second pass over the offset.
		out, err := s.searchPage(ctx, tx, companyID, plan, q, srt, q.Size+1)
		switch {
		case err != nil:
			return nil, 0, err
		case len(out) > q.Size:
			return out[:q.Size], q.CountLimit(), nil
		case len(out) > 0:
			return out, offset + int64(len(out)), nil
		}
		// Past the end: count to say where the end is.
	}
	total, err := s.searchTotal(ctx, tx, companyID, plan, q)
	if err != nil {
		return nil, 0, err
	}
	if q.Cursor == nil && (total == 0 || offset >= total) {
		return []*api.Trainee{}, total, nil
	}
	out, err := s.searchPage(ctx, tx, companyID, plan, q, srt, q.Size+1)
	if err != nil {
		return nil, 0, err
	}
	if q.Cursor != nil {
		total = cursorTotal(q, len(out), total)
	}
	return out[:min(len(out), q.Size)], total, nil
}

// searchTotal is the search's total up to q.CountLimit(): the sample's
// count when it read the whole company (planSearch), else searchCount.
func (s *Store) searchTotal(ctx context.Context, tx bun.Tx, companyID int64, plan *searchPlan, q api.Search) (int64, error) {
	if plan.small {
		return min(int64(plan.matches), q.CountLimit()), nil
	}
	return s.searchCount(ctx, tx, companyID, plan, q)
}

// cursorTotal is the total of a cursor's page of rows rows read (up to
// q.Size+1) kept consistent with the page. The cursor's offset is where
// the next row was when the cursor was made; rows created or deleted
// before it since then move the real position.
func cursorTotal(q api.Search, rows int, total int64) int64 {
	end := q.Offset() + int64(min(rows, q.Size))
	if rows > q.Size {
		return max(total, min(end+1, q.CountLimit()))
	}
	if total > end && total < q.CountLimit() {
		return end
	}
	return total
}

// statusWhere is the condition of a search's status (api.StatusRule).
func statusWhere(q api.Search) (string, []any, error) {
	r, err := api.RuleOf(q.Status)
	if err != nil {
		return "", nil, fmt.Errorf("store: %w", err)
	}
	where, args := r.SQL("t.enabled", "t.expiration_date", q.Today)
	return where, args, nil
}

// searchCond is the condition of a search (its filters and q) over
// trainees as t, "" for none.
func searchCond(q api.Search) (string, []any, error) {
	return searchConds(q, true)
}

// filterCond is searchCond without q: what the count of SQLite's FTS5
// matches checks beside the index (see ftsMatches).
func filterCond(q api.Search) (string, []any, error) {
	return searchConds(q, false)
}

// searchConds builds the conditions of a search: the filters (status,
// then the cockpit's: cockpitCond), then q's when withQ.
func searchConds(q api.Search, withQ bool) (string, []any, error) {
	where, args, err := statusWhere(q)
	if err != nil {
		return "", nil, err
	}
	var conds []string
	if where != "" {
		conds = append(conds, "("+where+")")
	}
	if f, fargs := cockpitCond(q); f != "" {
		conds = append(conds, "("+f+")")
		args = append(args, fargs...)
	}
	if withQ && q.Query != "" {
		pattern := qPattern(q)
		if q.Digits != "" {
			conds = append(conds, `(t.search_name LIKE ? ESCAPE '\' OR t.email LIKE ? ESCAPE '\' OR t.phone LIKE ? ESCAPE '\')`)
			args = append(args, pattern, pattern, "%"+likeEscaper.Replace(q.Digits)+"%")
		} else {
			conds = append(conds, `(t.search_name LIKE ? ESCAPE '\' OR t.email LIKE ? ESCAPE '\')`)
			args = append(args, pattern, pattern)
		}
	}
	return strings.Join(conds, " AND "), args, nil
}

// qPattern is q as the LIKE pattern of a substring, lower-cased.
func qPattern(q api.Search) string {
	return "%" + likeEscaper.Replace(strings.ToLower(q.Query)) + "%"
}

// searchFilter adds the WHERE of a search (status and q) to a query over
// traineeScope.
func searchFilter(sel *bun.SelectQuery, q api.Search) (*bun.SelectQuery, error) {
	cond, args, err := searchCond(q)
	if err != nil {
		return nil, err
	}
	if cond != "" {
		sel = sel.Where(cond, args...)
	}
	return sel, nil
}

// shortQuery reports whether q is one or two characters (not phone
// digits): no trigram to look up.
func shortQuery(q api.Search) bool {
	return q.Query != "" && q.Digits == "" && utf8.RuneCountInString(q.Query) <= 2
}

// readTx runs fn in one read-only transaction that sees one snapshot:
// REPEATABLE READ on PostgreSQL; on SQLite a deferred transaction (it
// takes no write lock) reads from one WAL snapshot.
func (s *Store) readTx(ctx context.Context, fn func(ctx context.Context, tx bun.Tx) error) error {
	opts := &sql.TxOptions{ReadOnly: true}
	if s.dialect == DialectPostgres {
		opts.Isolation = sql.LevelRepeatableRead
	}
	return dbError(s.runTx(ctx, opts, fn))
}
