package client

import (
	"context"
	"errors"
	"iter"
	"net/url"
	"strconv"

	"github.com/traineed/traineed/api"
)

// Every list of the API pages the same way: after (a page's
// page.nextCursor) and limit in the request, page.nextCursor and
// page.hasMore in the answer. Walk, All and Each follow any of them.

// ListParams are the paging of a list request; zero values are not sent,
// so the server's defaults apply.
type ListParams struct {
	// After is a page's Paging().NextCursor: the page after that one.
	After string
	// Limit is the rows per page: 1 to 100 (500 for events).
	Limit int
	// Page is a 0-based page number, for the lists that had them before
	// cursors (automations, runs, dry runs, deliveries); not with After.
	Page int
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

// A PageFunc reads one page of a list: a method such as
// (*Client).Automations, or a closure over one for the list of one
// automation, webhook or filter.
type PageFunc[P any] func(ctx context.Context, p ListParams) (P, error)

// PagesOf is the PageFunc of the list of one automation or webhook:
// PagesOf(c.AutomationRuns, 7) reads automation 7's runs.
func PagesOf[P any](page func(ctx context.Context, id int64, p ListParams) (P, error), id int64) PageFunc[P] {
	return func(ctx context.Context, p ListParams) (P, error) { return page(ctx, id, p) }
}

// Walk reads a list page after page from the page p names (the first
// when p.After is ""), following each page's nextCursor, and hands fn the
// rows of each page as it arrives, until the last page, until it has
// handed over max rows (0: no limit; the last call then gets only what is
// left), or until fn returns an error, which Walk returns. more reports
// whether rows follow the last one handed over. p.Limit 0 asks for pages
// of max rows, at most 100 (the server's default without max).
func Walk[T any, P api.Paged[T]](ctx context.Context, fetch PageFunc[P], p ListParams, max int, fn func(rows []T) error) (more bool, err error) {
	size := p.Limit
	if size == 0 && max > 0 {
		size = min(max, api.MaxPageSize)
	}
	for n := 0; ; {
		p.Limit = size
		if max > 0 && size > 0 {
			p.Limit = min(size, max-n) // no more than is left to hand over
		}
		pg, err := fetch(ctx, p)
		if err != nil {
			return false, err
		}
		rows, next := pg.Rows(), pg.Paging()
		cut := max > 0 && n+len(rows) > max
		if cut {
			rows = rows[:max-n]
		}
		n += len(rows)
		if len(rows) > 0 {
			if err := fn(rows); err != nil {
				return false, err
			}
		}
		switch {
		case cut:
			return true, nil
		case next.NextCursor == nil || *next.NextCursor == "":
			return false, nil
		case max > 0 && n >= max:
			return true, nil
		}
		p.After, p.Page = *next.NextCursor, 0
	}
}

// All reads every row of a list, from the page p names, in pages of
// p.Limit (0: 100).
func All[T any, P api.Paged[T]](ctx context.Context, fetch PageFunc[P], p ListParams) ([]T, error) {
	if p.Limit == 0 {
		p.Limit = api.MaxPageSize
	}
	out := []T{}
	_, err := Walk(ctx, fetch, p, 0, func(rows []T) error {
		out = append(out, rows...)
		return nil
	})
	return out, err
}

// errStopped ends a Walk whose iterator's loop stopped.
var errStopped = errors.New("client: iteration stopped")

// Each iterates over every row of a list, a page read when the loop
// needs it: for a, err := range client.Each(ctx, c.Automations,
// client.ListParams{}). An error is the last pair.
func Each[T any, P api.Paged[T]](ctx context.Context, fetch PageFunc[P], p ListParams) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		_, err := Walk(ctx, fetch, p, 0, func(rows []T) error {
			for _, r := range rows {
				if !yield(r, nil) {
					return errStopped
				}
			}
			return nil
		})
		if err != nil && !errors.Is(err, errStopped) {
			var zero T
			yield(zero, err)
		}
	}
}
