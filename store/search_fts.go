package store

import (
	"context"
	"strings"
	"unicode/utf8"

	"github.com/uptrace/bun"

	"github.com/traineed/traineed/api"
)

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
