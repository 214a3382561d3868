package client

import (
	"context"
	"iter"
	"net/url"
	"strconv"

	"github.com/traineed/traineed/api"
)

// Every list of the API pages the same way: after (a page's
// page.nextCursor) and limit in the request, page.nextCursor and
// page.hasMore in the answer. Each list has one iterator, ListX, that
// reads its pages as the loop needs them (iter.Seq2[*T, error]), and one
// page call, X, for a screen that shows one page with its totals.

// ListParams are the paging of a list request, and of its iterator; zero
// values are not sent, so the server's defaults apply.
type ListParams struct {
	// After is a page's Paging().NextCursor: the page after that one.
	After string
	// Limit is the rows per page: 1 to 100 (500 for events). An iterator
	// asks for 100 when it is 0 (Max's rows when Max is smaller; the
	// server's default with Pages 1).
	Limit int
	// Page is a 0-based page number, for the lists that had them before
	// cursors (automations, runs, dry runs, deliveries); not with After.
	Page int

	// Max ends an iterator after Max rows (0: no limit); no page asks
	// for more rows than are left.
	Max int
	// Pages ends an iterator after that many pages (0: no limit): Pages 1
	// is the one page the list call reads.
	Pages int
}

func (p ListParams) values() url.Values {
	v := url.Values{}
	if p.After != "" {
		v.Set("after", p.After)
	} else if p.Page != 0 {
		v.Set("page", strconv.Itoa(p.Page))
	}
	if p.Limit != 0 {
		v.Set("limit", strconv.Itoa(p.Limit))
	}
	return v
}

// pageSize is the rows per page an iterator asks for.
func (p ListParams) pageSize() int {
	switch {
	case p.Limit != 0:
		return p.Limit
	case p.Max > 0:
		return min(p.Max, api.MaxPageSize)
	case p.Pages == 1:
		return 0
	}
	return api.MaxPageSize
}

// pageFunc reads one page of a list.
type pageFunc[P any] func(ctx context.Context, p ListParams, opts ...RequestOption) (P, error)

// listSeq is the iterator of every list but search: it reads the page p
// names, yields its rows, and follows nextCursor while the loop goes on,
// within p.Max rows and p.Pages pages. An error is the last pair.
func listSeq[T any, P api.Paged[T]](ctx context.Context, fetch pageFunc[P], p ListParams, opts []RequestOption) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		resp := applyOptions(opts).resp
		size := p.pageSize()
		for n, pages := 0, 0; ; pages++ {
			p.Limit = size
			if p.Max > 0 && size > 0 {
				p.Limit = min(size, p.Max-n) // no more than is left
			}
			pg, err := fetch(ctx, p, opts...)
			if err != nil {
				var zero T
				yield(zero, err)
				return
			}
			rows, next := pg.Rows(), pg.Paging()
			more := next.NextCursor != nil && *next.NextCursor != ""
			if p.Max > 0 && len(rows) > p.Max-n {
				rows = rows[:p.Max-n] // a server that gave more than asked
				more = true
			}
			notePage(resp, pg, next, more, len(rows))
			for i, r := range rows {
				n++
				if !yield(r, nil) {
					setMore(resp, i+1 < len(rows) || more)
					return
				}
			}
			if !more || p.Max > 0 && n >= p.Max || p.Pages > 0 && pages+1 >= p.Pages {
				return
			}
			p.After, p.Page = *next.NextCursor, 0
		}
	}
}

// notePage records a page an iterator read in its Response.
func notePage(r *Response, pg any, next api.CursorPage, more bool, rows int) {
	if r == nil {
		return
	}
	r.Pages, r.pageRows = r.Pages+1, rows
	r.Page, r.Counted = api.PageInfo{CursorPage: next}, false
	if c, ok := pg.(api.Counted); ok {
		r.Page, r.Counted = c.Counts(), true
	}
	r.More = more
}

func setMore(r *Response, more bool) {
	if r != nil {
		r.More = more
	}
}

// Collect gathers every row of a list iterator: ts, err :=
// client.Collect(c.ListWebhooks(ctx, client.ListParams{})). It stops at
// the first error and returns it with the rows before it.
func Collect[T any](seq iter.Seq2[T, error]) ([]T, error) {
	out := []T{}
	for t, err := range seq {
		if err != nil {
			return out, err
		}
		out = append(out, t)
	}
	return out, nil
}

// ByPage hands fn the rows of a list iterator a page at a time, each page
// as soon as its last row is yielded (for a printer or an export that
// writes a page at once); resp must be the Response the iterator was
// given with WithResponse. fn's error stops the iteration and is
// returned; so is the iterator's, after the rows before it went to fn.
func ByPage[T any](seq iter.Seq2[T, error], resp *Response, fn func([]T) error) error {
	var batch []T
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		err := fn(batch)
		batch = nil
		return err
	}
	for t, err := range seq {
		if err != nil {
			if ferr := flush(); ferr != nil {
				return ferr
			}
			return err
		}
		batch = append(batch, t)
		if len(batch) >= resp.pageRows {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	return flush()
}
