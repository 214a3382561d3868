package api

import (
	"net/url"
	"strconv"
	"strings"
)

// Search defaults and bounds.
const (
	DefaultPageSize = 20
	MaxPageSize     = 100
	// MaxSearchQuery bounds q so a search stays cheap.
	MaxSearchQuery = 200
	// MaxPage is the largest page number (so that page × size never overflows).
	MaxPage = 1<<31 - 1
)

var searchStatuses = map[string]bool{StatusLive: true, StatusActive: true, StatusExpired: true, StatusDeleted: true, StatusAll: true}

var sortKeys = map[string]bool{SortID: true, SortName: true, SortEmail: true, SortExpirationDate: true, SortLastTrained: true}

// ParseSearch validates the query parameters of GET /trainees/search;
// every bad parameter is a 1012.
func ParseSearch(q url.Values, today Date) (Search, error) {
	v := &ValidationError{}
	for _, name := range []string{"q", "status", "page", "size", "sort", "cursor"} {
		if !checkParam(v, name, q.Get(name)) {
			q = cloneWithout(q, name) // reported; nothing else to say about it
		}
	}
	s := Search{Query: strings.TrimSpace(q.Get("q")), Status: StatusLive, Size: DefaultPageSize, Sort: SortID, Today: today}
	if len([]rune(s.Query)) > MaxSearchQuery {
		v.Add(CodeInvalidParameter, "q", "q must be at most %d characters", MaxSearchQuery)
	}
	s.Digits = PhoneDigits(s.Query)
	if st := q.Get("status"); st != "" {
		if !searchStatuses[st] {
			v.Add(CodeInvalidParameter, "status", "status must be live, active, expired, deleted or all")
		}
		s.Status = st
	}
	if p := q.Get("page"); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 || n > MaxPage {
			v.Add(CodeInvalidParameter, "page", "page must be an integer from 0 to %d", MaxPage)
		}
		s.Page = n
	}
	if p := q.Get("size"); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > MaxPageSize {
			v.Add(CodeInvalidParameter, "size", "size must be an integer from 1 to %d", MaxPageSize)
		}
		s.Size = n
	}
	if p := q.Get("sort"); p != "" {
		key, dir, hasDir := strings.Cut(p, ",")
		switch {
		case !sortKeys[key]:
			v.Add(CodeInvalidParameter, "sort", "sort must be id, name, email, expirationDate or lastTrained, optionally with ,asc or ,desc")
		case hasDir && dir != "asc" && dir != "desc":
			v.Add(CodeInvalidParameter, "sort", "sort direction must be asc or desc")
		}
		s.Sort, s.Desc = key, dir == "desc"
	}
	if q.Has("cursor") {
		c, err := DecodeCursor(q.Get("cursor"))
		switch {
		case q.Has("page"):
			v.Add(CodeInvalidParameter, "cursor", "cursor and page cannot be given together")
		case err != nil:
			v.Add(CodeInvalidParameter, "cursor", "cursor is not a cursor this server gave")
		case c.Sort != s.Sort || c.Desc != s.Desc || c.Fingerprint != SearchFingerprint(s):
			v.Add(CodeInvalidParameter, "cursor", "cursor belongs to another search: q, status and sort must be those of the search that gave it")
		default:
			s.Cursor = &c
		}
	}
	return s, v.Err()
}

// cloneWithout returns a copy of q without name.
func cloneWithout(q url.Values, name string) url.Values {
	c := url.Values{}
	for k, vs := range q {
		if k != name {
			c[k] = vs
		}
	}
	return c
}
