package store

import (
	"context"
	"strings"
	"unicode/utf8"

	"github.com/uptrace/bun"

	"github.com/traineed/traineed/api"
)

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
	switch {
	case strings.IndexByte(lq, 0) >= 0 || !utf8.ValidString(lq):
		return sel, nil
	case s.dialect == DialectPostgres:
		return plan.shortGrams(sel, q, lq), nil
	case s.dialect != DialectSQLite || ftsOff:
		return sel, nil
	case utf8.RuneCountInString(lq) < 3:
		return plan.terms(ctx, tx, sel, q, lq)
	}
	return plan.candidates(ctx, tx, sel, sorted)
}

// shortGrams is qMatch on PostgreSQL. One or two characters have no
// trigram: the GIN index of short grams (migration 000007) serves them,
// but only when the sample finds them rare. For a common q PostgreSQL
// walks the page's index and would evaluate the short-grams filter row by
// row along it, which costs far more than the LIKE alone. Longer q is left
// to the planner and pg_trgm.
func (p *searchPlan) shortGrams(sel *bun.SelectQuery, q api.Search, lq string) *bun.SelectQuery {
	if !shortQuery(q) || p.common() {
		return sel
	}
	return sel.Where(`traineed_short_grams(t.search_name, t.email) @> ARRAY[?]`, lq)
}

// terms is qMatch on SQLite for a q of one or two characters: the
// trainees of the indexed terms that begin with it, unless they are many.
func (p *searchPlan) terms(ctx context.Context, tx bun.Tx, sel *bun.SelectQuery, q api.Search, lq string) (*bun.SelectQuery, error) {
	if q.Digits != "" { // never: Digits has three digits or more
		return sel, nil
	}
	terms := "SELECT doc FROM trainees_fts_terms WHERE term >= ? AND term <= ? AND col <> 'phone'"
	args := []any{lq, lq + strings.Repeat(string(utf8.MaxRune), 3-utf8.RuneCountInString(lq))}
	if n, err := p.ftsCount(ctx, tx, terms, args, ftsShortLimit); err != nil || n >= ftsShortLimit {
		return sel, err
	}
	return sel.Where("t.id IN ("+terms+")", args...), nil
}

// candidates is qMatch on SQLite for a q of three characters or more: the
// count (ftsMatchCount) and a page that the index drives (ftsDrives) read
// trainees_fts without qMatch; a page in another order walks its index,
// with the candidates as a probe when they are few enough.
func (p *searchPlan) candidates(ctx context.Context, tx bun.Tx, sel *bun.SelectQuery, sorted string) (*bun.SelectQuery, error) {
	if p.fts == "" {
		return sel, nil
	}
	n, err := p.ftsCount(ctx, tx, ftsCandidates, []any{p.fts}, ftsDenseLimit)
	switch {
	case err != nil:
		return nil, err
	case n >= ftsDenseLimit:
		return sel, nil
	case sorted != "":
		// The unary + keeps SQLite from reading t by id from the list.
		return sel.Where("+t.id IN ("+ftsCandidates+")", p.fts), nil
	}
	return sel.Where("t.id IN ("+ftsCandidates+")", p.fts), nil
}

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
