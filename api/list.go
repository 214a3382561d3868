package api

import (
	"net/url"
	"strconv"
)

// Every list of the API pages the same way (issue 25): the request takes
// an opaque cursor, after (a page's page.nextCursor), and limit, the rows
// per page; the answer's page object carries nextCursor (null on the last
// page) and hasMore. A list reads on after the row its cursor names
// (keyset), so rows created or deleted between two calls never make a row
// repeat or go missing. Search keeps its own cursor (Cursor), which also
// carries its sort value; every other list uses ListCursor.

// CursorPage is what the page object of every list carries.
type CursorPage struct {
	// NextCursor is the after parameter that reads the next page, or nil
	// (null) on the last page.
	NextCursor *string `json:"nextCursor"`
	// HasMore says whether rows follow this page: NextCursor is set.
	HasMore bool `json:"hasMore"`
}

// NewCursorPage is the page object of a page whose next page next reads
// (nil: the last page).
func NewCursorPage(next *string) CursorPage {
	return CursorPage{NextCursor: next, HasMore: next != nil}
}

// Paged is a list response: its rows and its page object. The client
// follows every list with it.
type Paged[T any] interface {
	Rows() []T
	Paging() CursorPage
}

// Counted is a list response that counts its rows (search, automations,
// runs, dry runs): its page object with the totals.
type Counted interface {
	Counts() PageInfo
}

// ListCursor is a decoded cursor of a list other than search: the keyset
// of the last row of the page that gave it, and the list it belongs to.
type ListCursor struct {
	// List is the ListFingerprint of the list that gave the cursor: a
	// cursor is refused by any other list (another route, company,
	// automation, webhook or filter).
	List string
	// Key is the keyset of the last row: its id, or for webhook
	// deliveries (delivery id, attempt).
	Key []int64
	// Offset is the 0-based position of the next row, for page.number
	// where a list has one.
	Offset int64
}

// listCursorWire is a list cursor's JSON form before base64url.
type listCursorWire struct {
	List   string  `json:"l"`
	Key    []int64 `json:"k"`
	Offset int64   `json:"o"`
}

// Encode is the cursor's opaque wire form: base64url without padding, as
// a search cursor's.
func (c ListCursor) Encode() string { return encodeWire(listCursorWire(c)) }

// DecodeListCursor reads a cursor that Encode wrote with a key of keys
// values; anything else is an error.
func DecodeListCursor(s string, keys int) (ListCursor, error) {
	var w listCursorWire
	if err := decodeWire(s, &w); err != nil {
		return ListCursor{}, err
	}
	if w.List == "" || len(w.Key) != keys || w.Offset < 1 || w.Offset > maxCursorOffset {
		return ListCursor{}, errBadCursor
	}
	for _, k := range w.Key {
		if k < 0 {
			return ListCursor{}, errBadCursor
		}
	}
	return ListCursor(w), nil
}

// ListFingerprint names one list for its cursors: the list's name, the
// company, and what it is of (an automation or webhook id, its filters).
func ListFingerprint(list string, companyID int64, of ...string) string {
	return fingerprint(append([]string{list, strconv.FormatInt(companyID, 10)}, of...))
}

// ListParams is how a list reads its paging parameters.
type ListParams struct {
	Default, Max int // limit's default and maximum
	// Keys is how many values a cursor's keyset holds.
	Keys int
	// Legacy lists (those paged by page and size before cursors) also
	// take size, limit's old name, and page, a 0-based page number
	// (offset paging) that cannot go with after.
	Legacy bool
}

// The lists' paging.
var (
	// PagedList is automations, runs and a dry run: by id, keyset.
	PagedList = ListParams{Default: DefaultPageSize, Max: MaxPageSize, Keys: 1, Legacy: true}
	// DeliveriesList is a webhook's attempts: (delivery id, attempt).
	DeliveriesList = ListParams{Default: DefaultPageSize, Max: MaxPageSize, Keys: 2, Legacy: true}
	// WebhooksList is the company's webhooks: by id, keyset (they were
	// never paged, so no page or size).
	WebhooksList = ListParams{Default: DefaultPageSize, Max: MaxPageSize, Keys: 1}
)

// ListQuery is the paging of one list request.
type ListQuery struct {
	Limit int
	// After is the keyset of the row the page starts after; nil starts
	// at Offset.
	After []int64
	// Offset is the 0-based position of the page's first row: page ×
	// limit with page, the cursor's offset with after, else 0. Only a
	// page without After is read from an offset.
	Offset int64
}

// Page is the number of the page q reads, in pages of q.Limit.
func (q ListQuery) Page() int { return int(q.Offset / int64(q.Limit)) }

// ListPage is one page of a list as a store reads it: its rows, whether
// more follow, and (for the lists that report totals) how many rows the
// whole list has.
type ListPage[T any] struct {
	Rows  []T
	More  bool
	Total int64
}

// PageInfo is the page object, with totals, of the page p that q read;
// c says where the next page is.
func (p ListPage[T]) PageInfo(q ListQuery, c CursorPage) PageInfo {
	pi := NewPageInfo(q.Page(), q.Limit, p.Total)
	pi.CursorPage = c
	return pi
}

// ParseListQuery reads after, limit (and with p.Legacy size and page) of a
// list whose ListFingerprint is fp. Every bad value is a 400 with
// errorCode 1012 on its parameter; a malformed cursor, one of another
// list, or after with page is one on after.
func ParseListQuery(q url.Values, p ListParams, fp string) (ListQuery, error) {
	v := &ValidationError{}
	out := ListQuery{Limit: parseLimit(v, q, p)}
	page := 0
	if p.Legacy {
		page = parsePage(v, q)
	}
	if after := q.Get("after"); after != "" {
		if p.Legacy && q.Has("page") {
			v.Add(CodeInvalidParameter, "after", "after and page cannot be given together")
		} else if c, ok := parseAfter(v, after, p, fp); ok {
			out.After, out.Offset = c.Key, c.Offset
		}
	}
	if out.After == nil {
		out.Offset = int64(page) * int64(out.Limit)
	}
	return out, v.Err()
}

// parseAfter reads after, a cursor of the list fp; a cursor that is not
// one is recorded in v.
func parseAfter(v *ValidationError, after string, p ListParams, fp string) (ListCursor, bool) {
	if !checkParam(v, "after", after) {
		return ListCursor{}, false
	}
	c, err := DecodeListCursor(after, p.Keys)
	switch {
	case err != nil:
		v.Add(CodeInvalidParameter, "after", "after is not a cursor this server gave (a page's page.nextCursor)")
	case c.List != fp:
		v.Add(CodeInvalidParameter, "after", "after is a cursor of another list: pass a cursor back to the list that gave it, with the same filters")
	default:
		return c, true
	}
	return ListCursor{}, false
}

// parseLimit reads limit (and size, its old name, where p takes it):
// 1 to p.Max, default p.Default.
func parseLimit(v *ValidationError, q url.Values, p ListParams) int {
	n := p.Default
	names := []string{"limit"}
	if p.Legacy {
		names = append(names, "size")
	}
	given := 0
	for _, name := range names {
		s := q.Get(name)
		if s == "" || !checkParam(v, name, s) {
			continue
		}
		given++
		l, err := strconv.Atoi(s)
		if err != nil || l < 1 || l > p.Max {
			v.Add(CodeInvalidParameter, name, "%s must be an integer from 1 to %d", name, p.Max)
			continue
		}
		n = l
	}
	if given > 1 {
		v.Add(CodeInvalidParameter, "size", "size is the old name of limit: give one of them")
	}
	return n
}

// parsePage reads page, a 0-based page number (offset paging).
func parsePage(v *ValidationError, q url.Values) int {
	s := q.Get("page")
	if s == "" || !checkParam(v, "page", s) {
		return 0
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 || n > MaxPage {
		v.Add(CodeInvalidParameter, "page", "page must be an integer from 0 to %d", MaxPage)
		return 0
	}
	return n
}
