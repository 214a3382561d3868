package store

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
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
	if q.Sort == "" {
		q.Sort = api.SortID
	}
	srt, ok := searchSorts[q.Sort]
	if !ok {
		return nil, 0, fmt.Errorf("store: unknown sort %q", q.Sort)
	}
	if q.Size <= 0 || q.Page < 0 {
		return nil, 0, fmt.Errorf("store: invalid page %d or size %d", q.Page, q.Size)
	}
	if c := q.Cursor; c != nil && (c.Sort != q.Sort || c.Desc != q.Desc) {
		return nil, 0, fmt.Errorf("store: cursor of sort %q desc %v for sort %q desc %v", c.Sort, c.Desc, q.Sort, q.Desc)
	}
	if _, _, err := statusWhere(q); err != nil {
		return nil, 0, err
	}
	var (
		out   = []*api.Trainee{}
		total int64
	)
	err := s.readTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		plan, err := s.newSearchPlan(ctx, tx, companyID, q)
		if err != nil {
			return err
		}
		offset := q.Offset()
		if offset >= api.ExactTotalBound {
			// A deep page: one row past the page tells whether more match,
			// which is all a bounded count would say (q.CountLimit is the
			// page's end plus one), without a second pass over the offset.
			if out, err = s.searchPage(ctx, tx, companyID, plan, q, srt, q.Size+1); err != nil {
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
		if plan.small { // the sample read every trainee of the company
			total = min(int64(plan.matches), q.CountLimit())
		} else if total, err = s.searchCount(ctx, tx, companyID, plan, q); err != nil {
			return err
		}
		if q.Cursor == nil && (total == 0 || offset >= total) {
			return nil
		}
		if out, err = s.searchPage(ctx, tx, companyID, plan, q, srt, q.Size+1); err != nil {
			return err
		}
		if q.Cursor != nil {
			// The cursor's offset is where the next row was when the cursor
			// was made; rows created or deleted before it since then move
			// the real position. Keep the totals consistent with the page.
			end := offset + int64(min(len(out), q.Size))
			if len(out) > q.Size {
				total = max(total, min(end+1, q.CountLimit()))
			} else if total > end && total < q.CountLimit() {
				total = end
			}
		}
		out = out[:min(len(out), q.Size)]
		return nil
	})
	if err != nil {
		return nil, 0, err
	}
	return out, total, nil
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

// searchPlan is what a sample of the company says about a PostgreSQL
// search with a short q (planSearch): a company of fewer than
// walkProbeRows trainees is read whole by the sample, which then is the
// exact count, and the short-grams index is skipped (the plain scan of
// so few rows costs less than a look-up); in a bigger one, matches (in
// the company's first walkProbeRows by id) tells qMatch whether q is
// common enough for walking the page's index to find the page and the
// bounded count soon. The zero plan (every other search) changes nothing.
type searchPlan struct {
	small   bool
	matches int

	// SQLite: the FTS5 candidates of q, counted up to a limit
	// (ftsCount), once for the whole search.
	ftsCandidates int
	ftsCounted    bool

	// SQLite: q of three characters or more as an FTS5 query of
	// trainees_fts (ftsQuery), "" when the index is not used; and the
	// search's matches, once the count has read them (ftsMatchCount).
	fts        string
	ftsMatches int64
	ftsMatched bool
}

// newSearchPlan is the plan of a search: planSearch's sample for a short
// q on PostgreSQL, q as an FTS5 query on SQLite.
func (s *Store) newSearchPlan(ctx context.Context, tx bun.Tx, companyID int64, q api.Search) (*searchPlan, error) {
	if s.dialect == DialectPostgres && shortQuery(q) {
		return s.planSearch(ctx, tx, companyID, q)
	}
	plan := &searchPlan{}
	if s.dialect == DialectSQLite {
		plan.fts = ftsQuery(q)
	}
	return plan, nil
}

// planSearch reads the searched columns of the company's first
// walkProbeRows trainees by id (an index-only walk on PostgreSQL) and
// counts those that match q and the status, in one statement.
func (s *Store) planSearch(ctx context.Context, tx bun.Tx, companyID int64, q api.Search) (*searchPlan, error) {
	cond, args, err := searchCond(q)
	if err != nil {
		return nil, err
	}
	cols := "t.enabled, t.expiration_date, t.search_name, t.email, t.phone"
	if hasFilters(q) {
		cols += ", t.last_trained, t.created_at, t.trainer_id"
	}
	sample := s.traineeScope(tx, companyID).
		ColumnExpr(cols).
		OrderExpr("t.id").Limit(int64(walkProbeRows))
	var rows, matches int
	err = tx.NewSelect().TableExpr("(?) AS t", sample).ColumnExpr("count(*)").
		ColumnExpr("coalesce(sum(CASE WHEN "+cond+" THEN 1 ELSE 0 END), 0)", args...).
		Scan(ctx, &rows, &matches)
	return &searchPlan{small: rows < walkProbeRows, matches: matches}, err
}

// common reports whether planSearch's sample found a short q common:
// from walkDenseShare of the sample, the walk serves it, not the
// short-grams index.
func (p *searchPlan) common() bool {
	return p.matches >= max(int(walkDenseShare*float64(walkProbeRows)), 1)
}

// The sample planSearch reads and the share of it from which a short q
// on PostgreSQL is left to the walk (variables for the tests, which force
// each way).
var (
	walkProbeRows  = 5000
	walkDenseShare = 0.02
)

// qMatch narrows a search with q, on SQLite, to the trainees that the
// FTS5 trigram index trainees_fts (migration 20260101000010_search_index)
// says may match; searchFilter's LIKE rechecks them, so the result is the
// same as PostgreSQL's (which serves the LIKE from pg_trgm indexes). The
// index holds lower() of search_name and of the e-mail, each followed by
// two char(1), and the phone. sorted is the page's sort column, "" for
// the count.
//
// A q of three characters or more is one FTS5 phrase (ftsQuery). The
// count (ftsMatchCount) and a page that the index drives (ftsDrives:
// sorted by id, or fewer than ftsWalkLimit matches) read the index
// without qMatch; here a page in another order walks its part's index,
// probing the candidates (a Bloom filter and the list) and stopping after
// the page, or, with many candidates (from ftsDenseLimit), walks it with
// the LIKE alone, which finds the page sooner than FTS5 lists them.
//
// A q of one or two characters has no trigram of its own, but every
// occurrence of it begins a trigram of the padded text: its candidates
// are the trainees of the indexed terms that begin with q (a range of the
// term dictionary, trainees_fts_terms). When they are many (a q such as
// "a" or "an"), the matches are dense and the plain scan finds a page and
// its bounded count sooner than the prefilter could list them.
//
// On PostgreSQL only a q of one or two characters is narrowed here (the
// GIN index of short grams, when the sample finds q rare); pg_trgm and
// the planner serve longer ones.
//
// q with a NUL or that is not UTF-8 is left to the scan.
func (s *Store) qMatch(ctx context.Context, tx bun.Tx, companyID int64, plan *searchPlan, sel *bun.SelectQuery, q api.Search, sorted string) (*bun.SelectQuery, error) {
	if q.Query == "" || plan.small {
		return sel, nil
	}
	lq := strings.ToLower(q.Query)
	if strings.IndexByte(lq, 0) >= 0 || !utf8.ValidString(lq) {
		return sel, nil
	}
	if s.dialect == DialectPostgres {
		// One or two characters have no trigram: the GIN index of short
		// grams (migration 000007) serves them, but only when the sample
		// finds them rare. For a common q PostgreSQL walks the page's index
		// and would evaluate the short-grams filter row by row along it,
		// which costs far more than the LIKE alone. Longer q is left to
		// the planner and pg_trgm.
		if !shortQuery(q) {
			return sel, nil
		}
		if plan.common() {
			return sel, nil
		}
		return sel.Where(`traineed_short_grams(t.search_name, t.email) @> ARRAY[?]`, lq), nil
	}
	if s.dialect != DialectSQLite || ftsOff {
		return sel, nil
	}
	if n := utf8.RuneCountInString(lq); n < 3 {
		if q.Digits != "" { // never: Digits has three digits or more
			return sel, nil
		}
		terms := "SELECT doc FROM trainees_fts_terms WHERE term >= ? AND term <= ? AND col <> 'phone'"
		args := []any{lq, lq + strings.Repeat(string(utf8.MaxRune), 3-n)}
		if n, err := plan.ftsCount(ctx, tx, terms, args, ftsShortLimit); err != nil || n >= ftsShortLimit {
			return sel, err
		}
		return sel.Where("t.id IN ("+terms+")", args...), nil
	}
	// Three characters or more: the count (ftsMatchCount) and a page that
	// the index drives (ftsDrives) read trainees_fts without qMatch; a
	// page in another order walks its index, with the candidates as a
	// probe when they are few enough.
	if plan.fts == "" {
		return sel, nil
	}
	n, err := plan.ftsCount(ctx, tx, ftsCandidates, []any{plan.fts}, ftsDenseLimit)
	switch {
	case err != nil:
		return nil, err
	case n >= ftsDenseLimit:
		return sel, nil
	case sorted != "":
		// The unary + keeps SQLite from reading t by id from the list.
		return sel.Where("+t.id IN ("+ftsCandidates+")", plan.fts), nil
	}
	return sel.Where("t.id IN ("+ftsCandidates+")", plan.fts), nil
}

// ftsCandidates lists the trainees whose indexed text matches an FTS5
// query of q (ftsQuery).
const ftsCandidates = "SELECT rowid FROM trainees_fts WHERE trainees_fts MATCH ?"

// ftsQuery is q as an FTS5 query of trainees_fts when q has three
// characters or more: one quoted phrase (no character of q is query
// syntax) over the name and the e-mail, or q's digits in the phone. ""
// when the index is not used: no q, a shorter one (qMatch reads the term
// dictionary), a q that is not UTF-8 or holds a NUL or the char(1) of the
// index's padding (left to the scan), or the index turned off.
//
// The phrase is exact, not a superset: its trigrams in a row, in one
// column, are q itself in that column, and the index holds lower() of
// the name and the e-mail, which folds what LIKE folds (ASCII), so a
// trainee matches the phrase exactly when searchCond's LIKE holds. The
// count therefore reads the index alone (ftsMatchCount); a page still
// rechecks its rows with the LIKE, as every other way does.
func ftsQuery(q api.Search) string {
	lq := strings.ToLower(q.Query)
	if lq == "" || ftsOff || strings.ContainsAny(lq, "\x00\x01") || !utf8.ValidString(lq) || utf8.RuneCountInString(lq) < 3 {
		return ""
	}
	match := "{search_name email}: " + ftsString(lq)
	if q.Digits != "" {
		match += " OR phone: " + ftsString(q.Digits)
	}
	return match
}

// ftsMatchCount counts the search's matches up to q.CountLimit() from the
// FTS5 index: the phrase finds the trainees (exactly: see ftsQuery) and
// the company and the other conditions are read from
// trainees_id_status_idx (migration 000010), one narrow index
// probe per candidate instead of the trainee's row. A condition on a
// column that index lacks still reads the row: correct, only slower.
func (s *Store) ftsMatchCount(ctx context.Context, tx bun.Tx, companyID int64, plan *searchPlan, q api.Search) (int64, error) {
	cond, args, err := filterCond(q)
	if err != nil {
		return 0, err
	}
	sel := tx.NewSelect().TableExpr("trainees_fts AS f").
		Join("CROSS JOIN trainees AS t INDEXED BY trainees_id_status_idx ON t.id = f.rowid AND t.company_id = ?", companyID).
		ColumnExpr("1").Where("f.trainees_fts MATCH ?", plan.fts)
	if cond != "" {
		sel = sel.Where(cond, args...)
	}
	var n int64
	err = tx.NewSelect().TableExpr("(?) AS m", sel.Limit(q.CountLimit())).ColumnExpr("count(*)").Scan(ctx, &n)
	plan.ftsMatches, plan.ftsMatched = n, err == nil
	return n, err
}

// ftsDrives reports whether a page of a search with plan.fts reads its
// rows from the index, trainees_fts in front of trainees: always when
// sorted by id (the index lists its trainees by id, so the page stops
// after its rows), and in another order when the matches are fewer than
// ftsWalkLimit (all read, then sorted). Otherwise the page walks its
// sort's index (qMatch).
func (s *Store) ftsDrives(ctx context.Context, tx bun.Tx, plan *searchPlan, srt searchSort) (bool, error) {
	if plan.fts == "" {
		return false, nil
	}
	if srt.col == "id" {
		return true, nil
	}
	if plan.ftsMatched {
		return plan.ftsMatches < int64(ftsWalkLimit), nil
	}
	n, err := plan.ftsCount(ctx, tx, ftsCandidates, []any{plan.fts}, ftsDenseLimit)
	return n < ftsWalkLimit, err
}

// ftsScope is traineeScope read from the index: the trainees of the
// company that match plan.fts, in trainees_fts's order (f.rowid, the
// trainee's id).
func (s *Store) ftsScope(tx bun.Tx, companyID int64, plan *searchPlan) *bun.SelectQuery {
	return tx.NewSelect().TableExpr("trainees_fts AS f").
		Join("CROSS JOIN trainees AS t ON t.id = f.rowid").
		Where("t.company_id = ?", companyID).
		Where("f.trainees_fts MATCH ?", plan.fts)
}

// The candidate counts from which qMatch leaves the FTS5 list: a short
// q's term instances (from there, the plain scan), and a longer q's users
// for a page (from ftsWalkLimit, the walk in the page's order; from
// ftsDenseLimit, the plain scan). Variables for the
// tests, which force each way.
var (
	ftsShortLimit = 2000
	ftsWalkLimit  = 500
	ftsDenseLimit = 2000
)

// ftsOff turns the prefilter off, for the benchmark that compares it with
// the scan.
var ftsOff bool

// ftsCount counts the FTS5 candidates of the query candidates up to limit,
// once per search: the count and each part of the page ask for the same
// q, so later calls get the first answer.
func (p *searchPlan) ftsCount(ctx context.Context, tx bun.Tx, candidates string, args []any, limit int) (int, error) {
	if !p.ftsCounted {
		err := tx.NewRaw("SELECT count(*) FROM ("+candidates+" LIMIT ?)", append(args, limit)...).Scan(ctx, &p.ftsCandidates)
		if err != nil {
			return 0, err
		}
		p.ftsCounted = true
	}
	return p.ftsCandidates, nil
}

// ftsString quotes s as an FTS5 string: between double quotes, with each
// double quote doubled, every character stands for itself.
func ftsString(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// searchCount counts the matches up to q.CountLimit(). Counting stops at
// the limit, so a search whose q matches most of a million trainees costs
// a bounded scan, not a full one.
func (s *Store) searchCount(ctx context.Context, tx bun.Tx, companyID int64, plan *searchPlan, q api.Search) (int64, error) {
	if plan.fts != "" {
		return s.ftsMatchCount(ctx, tx, companyID, plan, q)
	}
	scope := s.traineeScope(tx, companyID)
	if s.textCounts(plan, q) {
		scope = s.searchTextScope(tx, companyID)
		if utf8.RuneCountInString(q.Query) >= 3 {
			scope = scope.Where(`(t.search_name || chr(1) || t.email) LIKE ? ESCAPE '\'`, qPattern(q))
		}
	}
	count, err := searchFilter(scope, q)
	if err != nil {
		return 0, err
	}
	if count, err = s.qMatch(ctx, tx, companyID, plan, count, q, ""); err != nil {
		return 0, err
	}
	var n int64
	err = tx.NewSelect().TableExpr("(?) AS m", count.ColumnExpr("1").Limit(q.CountLimit())).
		ColumnExpr("count(*)").Scan(ctx, &n)
	return n, err
}

// textCounts reports whether the count of a PostgreSQL search reads
// trainee_search (migration 000014), the narrow copy of the columns that
// q and the status filter on, instead of trainees: for a q not of phone
// digits (the copy has no phone), without the cockpit's filters (nor
// their columns), and, for a short q, when the sample found it common
// (a rare one is listed by the short-grams index of trainees). A q of
// three characters or more is also looked up in the copy's one trigram
// index over the name and the e-mail joined by chr(1): a necessary
// condition of searchCond's LIKEs, which still decide, so the count is
// the same.
func (s *Store) textCounts(plan *searchPlan, q api.Search) bool {
	if s.dialect != DialectPostgres || q.Query == "" || q.Digits != "" || hasFilters(q) || plan.small {
		return false
	}
	return !shortQuery(q) || plan.common()
}

// searchTextScope is traineeScope over trainee_search (PostgreSQL): the
// company's rows of the narrow copy, as t.
func (s *Store) searchTextScope(tx bun.Tx, companyID int64) *bun.SelectQuery {
	return tx.NewSelect().TableExpr("trainee_search AS t").Where("t.company_id = ?", companyID)
}

// searchPart is one ordered range of a search's rows: the whole search,
// or the non-null or the null part of a nullable sort.
type searchPart struct {
	where string // "" for none
	args  []any
	order string
	null  bool // the null part of a nullable sort
}

// searchParts are the ordered parts of q's rows, nulls last, ties by id
// ascending, each starting after q.Cursor's row when there is one. idCol
// names the id sort's column: t.id, or f.rowid when the FTS5 index drives
// the page (ftsScope), so that SQLite sees the index's order.
func searchParts(q api.Search, srt searchSort, idCol string) []searchPart {
	col := "t." + srt.col
	if srt.col == "id" {
		col = idCol
	}
	dir, cmp := "ASC", ">"
	if q.Desc {
		dir, cmp = "DESC", "<"
	}
	order := col + " " + dir
	if srt.ties {
		order += ", t.id ASC"
	}
	c := q.Cursor
	var value any
	if c != nil {
		switch {
		case c.Null:
		case srt.col == "id":
			value = c.ID
		case srt.nullable:
			value = c.Int
		default:
			value = c.Str
		}
	}
	// after are the keyset parts: the rows after the cursor's row in this
	// order. A tie-broken key is two index ranges read in turn: the rest
	// of the cursor's value (key = v, id after it), then the values after
	// it; neither filters a tie group row by row.
	after := func() []searchPart {
		if !srt.ties {
			return []searchPart{{where: col + " " + cmp + " ?", args: []any{value}, order: order}}
		}
		return []searchPart{
			{where: col + " = ? AND t.id > ?", args: []any{value, c.ID}, order: "t.id ASC"},
			{where: col + " " + cmp + " ?", args: []any{value}, order: order},
		}
	}
	if !srt.nullable {
		if c != nil {
			return after()
		}
		return []searchPart{{order: order}}
	}
	null := searchPart{where: col + " IS NULL", order: "t.id ASC", null: true}
	var parts []searchPart
	switch {
	case c == nil:
		parts = []searchPart{{where: col + " IS NOT NULL", order: order}, null}
	case c.Null:
		null.where += " AND t.id > ?"
		null.args = []any{c.ID}
		parts = []searchPart{null}
	default:
		parts = append(after(), null) // after() implies NOT NULL
	}
	if srt.col != "expiration_date" {
		return parts
	}
	// The status's own condition on expiration_date, split by part so
	// that the non-null part is an index range: active is "IS NULL OR
	// > today", which no index serves as one; expired has no null part.
	rule, _ := api.RuleOf(q.Status)
	out := parts[:0]
	for _, p := range parts {
		switch {
		case rule.Expiry == api.NotExpired && !p.null:
			p.where += " AND " + col + " > ?"
			p.args = append(slices.Clip(p.args), q.Today.Int())
		case rule.Expiry == api.Expired && p.null:
			continue
		}
		out = append(out, p)
	}
	if len(out) == 0 { // expired after a null: nothing follows
		out = append(out, searchPart{where: "FALSE", order: "t.id ASC"})
	}
	return out
}

// searchPage reads limit rows of q from its offset (q.Cursor's row, or
// q.Offset() rows in), sorted by srt with nulls last in both directions
// and ties by id, so pages never overlap. Each part picks the ids of the
// rows the page can need from trainees alone, reading only columns that
// the covering indexes of migration 000007 hold (an index-only scan on
// PostgreSQL: filtering q costs no heap fetch); the page's rows and their
// users are read by id.
func (s *Store) searchPage(ctx context.Context, tx bun.Tx, companyID int64, plan *searchPlan, q api.Search, srt searchSort, limit int) ([]*api.Trainee, error) {
	var offset int64
	if q.Cursor == nil {
		offset = q.Offset()
	}
	drive, err := s.ftsDrives(ctx, tx, plan, srt)
	if err != nil {
		return nil, err
	}
	idCol := "t.id"
	if drive {
		idCol = "f.rowid"
	}
	parts := searchParts(q, srt, idCol)
	order := func(alias string) string {
		o := alias + ".k ASC"
		if q.Desc {
			o = alias + ".k DESC"
		}
		if srt.ties {
			o += ", " + alias + ".id ASC" // a null part has nulls only: by id
		}
		if len(parts) > 1 {
			o = alias + ".part ASC, " + o
		}
		return o
	}
	inner := make([]*bun.SelectQuery, len(parts))
	for i, p := range parts {
		base := s.traineeScope(tx, companyID)
		if drive {
			base = s.ftsScope(tx, companyID, plan)
		}
		sel, err := searchFilter(base, q)
		if err != nil {
			return nil, err
		}
		if !drive {
			if sel, err = s.qMatch(ctx, tx, companyID, plan, sel, q, "t."+srt.col); err != nil {
				return nil, err
			}
		}
		sel = sel.ColumnExpr("t.id, t."+srt.col+" AS k, ? AS part", i)
		if p.where != "" {
			sel = sel.Where(p.where, p.args...)
		}
		inner[i] = sel.OrderExpr(p.order)
	}
	// The page's keys: the offset is skipped here, before any join.
	var keys *bun.SelectQuery
	if len(inner) == 1 {
		keys = inner[0].Limit(int64(limit)).Offset(offset)
	} else {
		union := make([]string, len(inner))
		args := make([]any, len(inner))
		for i, sel := range inner {
			union[i] = fmt.Sprintf("SELECT * FROM (?) AS p%d", i)
			args[i] = sel.Limit(offset + int64(limit))
		}
		keys = tx.NewSelect().ColumnExpr("ab.*").
			TableExpr("("+strings.Join(union, " UNION ALL ")+") AS ab", args...).
			OrderExpr(order("ab")).Limit(int64(limit)).Offset(offset)
	}
	return s.pageRows(ctx, tx, companyID, keys, order("k"))
}

// pageRows reads the trainees of a page's keys (alias k), with their
// users, in order. The keys come first (on SQLite CROSS JOIN keeps that
// order): SQLite must not walk the company's trainees and probe the keys, which an
// index on company_id without statistics can make it choose.
func (s *Store) pageRows(ctx context.Context, tx bun.Tx, companyID int64, keys *bun.SelectQuery, order string) ([]*api.Trainee, error) {
	join := "JOIN trainees AS t ON t.id = k.id"
	if s.dialect == DialectSQLite {
		join = "CROSS " + join // PostgreSQL takes no ON after CROSS JOIN
	}
	var rows []traineeRow
	err := tx.NewSelect().ColumnExpr(traineeColumns).
		TableExpr("(?) AS k", keys).
		Join(join).
		Join("JOIN users AS u ON u.id = t.user_id").
		Where("t.company_id = ?", companyID).
		OrderExpr(order).
		Scan(ctx, &rows)
	if err != nil {
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
	return dbError(s.runTx(ctx, opts, fn))
}
