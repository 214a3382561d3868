package store

import (
	"github.com/uptrace/bun"

	"github.com/traineed/traineed/api"
)

// The lists of the public API but search (automations, runs, dry runs,
// webhook deliveries, the event feed) read one page by keyset: after the
// row a cursor names, never from an offset unless the request gave page=
// (their paging before cursors), so that rows created or deleted between
// two pages never make a row repeat or go missing.

// listWindow narrows sel, ordered by order, to the page q asks for: the
// rows after q.After (the condition after adds, given the keyset), or from
// q.Offset without a cursor, and one row more than q.Limit, which says
// whether more follow (listRows cuts it off).
func listWindow(sel *bun.SelectQuery, q api.ListQuery, order string, after func(sel *bun.SelectQuery, key []int64) *bun.SelectQuery) *bun.SelectQuery {
	if q.After != nil {
		sel = after(sel, q.After)
	} else if q.Offset > 0 {
		sel = sel.Offset(q.Offset)
	}
	return sel.OrderExpr(order).Limit(int64(q.Limit) + 1)
}

// afterID is the keyset condition of a list ordered by one id column:
// the rows after the cursor's (col > key, or col < key newest first).
func afterID(col string, desc bool) func(sel *bun.SelectQuery, key []int64) *bun.SelectQuery {
	cond := col + " > ?"
	if desc {
		cond = col + " < ?"
	}
	return func(sel *bun.SelectQuery, key []int64) *bun.SelectQuery { return sel.Where(cond, key[0]) }
}

// listRows makes the page of rows that listWindow read, converted by conv,
// with the total (0 for a list without one).
func listRows[R, T any](rows []R, limit int, total int64, conv func(R) T) api.ListPage[T] {
	more := len(rows) > limit
	if more {
		rows = rows[:limit]
	}
	out := make([]T, len(rows))
	for i, r := range rows {
		out[i] = conv(r)
	}
	return api.ListPage[T]{Rows: out, More: more, Total: total}
}
