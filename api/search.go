package api

import (
	"net/url"
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

// statusHints says, for a status a search does not have but a dashboard
// count does, the filter that finds those trainees.
var statusHints = map[string]string{
	"expiring": " (trainees expiring soon: status=active&expiresWithin=30d)",
	"inactive": " (trainees without tracked data lately: inactiveFor=14d)",
	"new":      " (trainees created lately: createdSince=7d)",
}

var searchStatuses = map[string]bool{StatusLive: true, StatusActive: true, StatusExpired: true, StatusDeleted: true, StatusAll: true}

var sortKeys = map[string]bool{SortID: true, SortName: true, SortEmail: true, SortExpirationDate: true, SortLastTrained: true}

// ParseSearch validates the query parameters of GET /trainees/search;
// every bad parameter is a 1012.
func ParseSearch(q url.Values, today Date) (Search, error) {
	v := &ValidationError{}
	for _, name := range []string{"q", "status", "page", "size", "limit", "sort", "cursor", "after", "trainerId"} {
		if !checkParam(v, name, q.Get(name)) {
			q = cloneWithout(q, name) // reported; nothing else to say about it
		}
	}
	s := Search{Query: strings.TrimSpace(q.Get("q")), Status: StatusLive, Sort: SortID, Today: today}
	s.Size = parseLimit(v, q, searchList)
	s.Page = parsePage(v, q)
	if len([]rune(s.Query)) > MaxSearchQuery {
		v.Add(CodeInvalidParameter, "q", "q must be at most %d characters", MaxSearchQuery)
	}
	s.Digits = PhoneDigits(s.Query)
	parseFilters(v, q, &s)
	if st := q.Get("status"); st != "" {
		if !searchStatuses[st] {
			v.Add(CodeInvalidParameter, "status", "status must be live, active, expired, deleted or all%s", statusHints[st])
		}
		s.Status = st
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
	// after is the cursor's name in every list; cursor, its old name here,
	// is still taken (and, unlike an empty after, never empty).
	name, cursor := "after", q.Get("after")
	if q.Has("cursor") {
		name, cursor = "cursor", q.Get("cursor")
	}
	if name == "cursor" || cursor != "" {
		c, err := DecodeCursor(cursor)
		switch {
		case name == "cursor" && q.Get("after") != "":
			v.Add(CodeInvalidParameter, "after", "after and cursor cannot be given together: cursor is the old name of after")
		case q.Has("page"):
			v.Add(CodeInvalidParameter, name, "%s and page cannot be given together", name)
		case err != nil:
			v.Add(CodeInvalidParameter, name, "%s is not a cursor this server gave (a page's page.nextCursor)", name)
		case c.Sort != s.Sort || c.Desc != s.Desc || c.Fingerprint != SearchFingerprint(s):
			v.Add(CodeInvalidParameter, name, "%s belongs to another search: q, status, sort, expiresWithin, inactiveFor, createdSince and trainerId must be those of the search that gave it", name)
		default:
			s.Cursor = &c
		}
	}
	return s, v.Err()
}

// searchList is how a search reads limit and size.
var searchList = ListParams{Default: DefaultPageSize, Max: MaxPageSize, Legacy: true}

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
