package store

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/uptrace/bun"

	"github.com/traineed/traineed/api"
)

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
	k := partKey{srt: srt, col: "t." + srt.col, dir: "ASC", cmp: ">", c: q.Cursor}
	if srt.col == "id" {
		k.col = idCol
	}
	if q.Desc {
		k.dir, k.cmp = "DESC", "<"
	}
	k.order = k.col + " " + k.dir
	if srt.ties {
		k.order += ", t.id ASC"
	}
	k.value = cursorValue(q.Cursor, srt)
	if !srt.nullable {
		if k.c != nil {
			return k.after()
		}
		return []searchPart{{order: k.order}}
	}
	parts := k.nullable()
	if srt.col != "expiration_date" {
		return parts
	}
	return expiryParts(parts, q, k.col)
}

// partKey is what searchParts builds a search's parts from: the sort
// column and its direction, and the cursor with its value.
type partKey struct {
	srt                  searchSort
	col, dir, cmp, order string
	c                    *api.Cursor
	value                any
}

// cursorValue is the cursor's value of the sort column (nil without a
// cursor, or for a cursor in the null part).
func cursorValue(c *api.Cursor, srt searchSort) any {
	switch {
	case c == nil || c.Null:
		return nil
	case srt.col == "id":
		return c.ID
	case srt.nullable:
		return c.Int
	}
	return c.Str
}

// after are the keyset parts: the rows after the cursor's row in this
// order. A tie-broken key is two index ranges read in turn: the rest of
// the cursor's value (key = v, id after it), then the values after it;
// neither filters a tie group row by row.
func (k partKey) after() []searchPart {
	if !k.srt.ties {
		return []searchPart{{where: k.col + " " + k.cmp + " ?", args: []any{k.value}, order: k.order}}
	}
	return []searchPart{
		{where: k.col + " = ? AND t.id > ?", args: []any{k.value, k.c.ID}, order: "t.id ASC"},
		{where: k.col + " " + k.cmp + " ?", args: []any{k.value}, order: k.order},
	}
}

// nullable are the parts of a nullable sort: the non-null values, then
// the nulls by id, from the cursor's row on.
func (k partKey) nullable() []searchPart {
	null := searchPart{where: k.col + " IS NULL", order: "t.id ASC", null: true}
	switch {
	case k.c == nil:
		return []searchPart{{where: k.col + " IS NOT NULL", order: k.order}, null}
	case k.c.Null:
		null.where += " AND t.id > ?"
		null.args = []any{k.c.ID}
		return []searchPart{null}
	}
	return append(k.after(), null) // after() implies NOT NULL
}

// expiryParts adds the status's own condition on expiration_date to the
// parts of a search sorted by it, split by part so that the non-null part
// is an index range: active is "IS NULL OR > today", which no index serves
// as one; expired has no null part.
func expiryParts(parts []searchPart, q api.Search, col string) []searchPart {
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
