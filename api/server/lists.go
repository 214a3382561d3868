package server

import (
	"net/http"

	"github.com/traineed/traineed/api"
)

// Every list answers the same way (issue 25): a page object with
// nextCursor and hasMore, and, when a next page exists, a Link header
// naming it (GitHub's convention).

// nextCursor is the cursor of the page after p, a page of the list fp
// that q read (key is a row's keyset): nil on the last page. It sets the
// Link header of the next page.
func nextCursor[T any](w http.ResponseWriter, r *http.Request, fp string, q api.ListQuery, p api.ListPage[T], key func(T) []int64) api.CursorPage {
	if !p.More || len(p.Rows) == 0 {
		return api.NewCursorPage(nil)
	}
	next := api.ListCursor{List: fp, Key: key(p.Rows[len(p.Rows)-1]), Offset: q.Offset + int64(len(p.Rows))}.Encode()
	return linkNext(w, r, &next)
}

// linkNext is the page object of a page whose next page next reads (nil:
// the last page), and sets the Link header `<URL>; rel="next"`: the
// request's path and query with after=next (and without page or cursor,
// which cannot go with it), relative to the request.
func linkNext(w http.ResponseWriter, r *http.Request, next *string) api.CursorPage {
	if next != nil {
		q := r.URL.Query()
		q.Del("page")
		q.Del("cursor")
		q.Set("after", *next)
		w.Header().Set("Link", "<"+r.URL.EscapedPath()+"?"+q.Encode()+`>; rel="next"`)
	}
	return api.NewCursorPage(next)
}

// idKey is the keyset of a list ordered by its rows' id.
func idKey[T any](id func(T) int64) func(T) []int64 {
	return func(t T) []int64 { return []int64{id(t)} }
}
