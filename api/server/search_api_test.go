package server_test

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/traineed/traineed/api"
)

func (e *env) search(key string, params url.Values) api.TraineePage {
	e.t.Helper()
	var p api.TraineePage
	e.do("GET", "/public-api/trainees/search?"+params.Encode(), key, nil).expect(e.t, 200).JSON(e.t, &p)
	return p
}

func names(ts []*api.Trainee) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.Name
	}
	return out
}

func TestSearchMatching(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		mk := func(name, email, phone string) {
			b := map[string]any{"name": name, "email": email, "password": "12345678"}
			if phone != "" {
				b["phoneNumber"] = phone
			}
			e.create(e.keyA, b)
		}
		mk("Ada Park", "ada@example.com", "+447700900123")
		mk("Zoë Łukasz", "zoe@example.org", "+15551230000")
		mk("Bob Stone", "bob.stone@gym.example", "")
		mk("Percent 100% Under_score", "pct@example.com", "")
		cases := []struct {
			q    string
			want []string
		}{
			{"", []string{"Ada Park", "Zoë Łukasz", "Bob Stone", "Percent 100% Under_score"}},
			{"ada", []string{"Ada Park"}},
			{"PARK", []string{"Ada Park"}},
			{"zoë", []string{"Zoë Łukasz"}},
			{"ŁUKASZ", []string{"Zoë Łukasz"}},
			{"@gym.", []string{"Bob Stone"}},
			{"BOB.STONE", []string{"Bob Stone"}},
			{"example.com", []string{"Ada Park", "Percent 100% Under_score"}},
			{"7700 900", []string{"Ada Park"}},
			{"+44 (7700) 900-1", []string{"Ada Park"}},
			{"555.123", []string{"Zoë Łukasz"}},
			{"12", nil},    // fewer than 3 digits: not a phone query
			{"x7700", nil}, // letters: never matches by phone
			{"100%", []string{"Percent 100% Under_score"}},
			{"r_s", []string{"Percent 100% Under_score"}},
			{"%", []string{"Percent 100% Under_score"}}, // % is literal, not a wildcard
			{"_", []string{"Percent 100% Under_score"}},
			{"nobody", nil},
		}
		for _, c := range cases {
			p := e.search(e.keyA, url.Values{"q": {c.q}})
			got := names(p.Content)
			if !slices.Equal(got, c.want) && !(len(got) == 0 && len(c.want) == 0) {
				t.Errorf("q=%q found %v, want %v", c.q, got, c.want)
			}
			if p.Page.TotalElements != int64(len(c.want)) {
				t.Errorf("q=%q totalElements %d, want %d", c.q, p.Page.TotalElements, len(c.want))
			}
		}
	})
}

func TestSearchStatusInCompanyTimeZone(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		// Company B is in Auckland, where fixedNow is already 22-11-2026.
		mk := func(name string, expires any) *api.Trainee {
			b := newTraineeBody(name)
			b["expirationDate"] = expires
			return e.create(e.keyB, b)
		}
		mk("Expired Yesterday", "21-11-2026")
		mk("Expires Today", "22-11-2026")
		mk("Expires Tomorrow", "23-11-2026")
		mk("Never Expires", nil)
		gone := mk("Deleted", "01-01-2030")
		e.do("DELETE", fmt.Sprintf("/public-api/trainees/%d", gone.ID), e.keyB, nil).expect(t, 200)
		cases := map[string][]string{
			"":        {"Expired Yesterday", "Expires Today", "Expires Tomorrow", "Never Expires"},
			"live":    {"Expired Yesterday", "Expires Today", "Expires Tomorrow", "Never Expires"},
			"active":  {"Expires Tomorrow", "Never Expires"},
			"expired": {"Expired Yesterday", "Expires Today"},
			"deleted": {"Deleted"},
			"all":     {"Expired Yesterday", "Expires Today", "Expires Tomorrow", "Never Expires", "Deleted"},
		}
		for status, want := range cases {
			v := url.Values{}
			if status != "" {
				v.Set("status", status)
			}
			if got := names(e.search(e.keyB, v).Content); !slices.Equal(got, want) {
				t.Errorf("status %q: %v, want %v", status, got, want)
			}
		}
		// Company A (UTC) has none of them.
		if p := e.search(e.keyA, url.Values{"status": {"all"}}); p.Page.TotalElements != 0 {
			t.Errorf("company A sees %d of B's trainees", p.Page.TotalElements)
		}
	})
}

func TestSearchSortAndPaging(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		// 17 trainees: names with ties, some expiration dates missing.
		var all []*api.Trainee
		for i := range 17 {
			b := newTraineeBody(fmt.Sprintf("Name %c", 'A'+rune(i%5)))
			if i%3 != 0 {
				b["expirationDate"] = fmt.Sprintf("%02d-01-2031", 1+i%4)
			}
			all = append(all, e.create(e.keyA, b))
		}
		key := func(t *api.Trainee, sort string) string {
			switch sort {
			case "name":
				return strings.ToLower(t.Name)
			case "email":
				return t.Email
			case "expirationDate":
				if t.ExpirationDate == nil {
					return ""
				}
				return fmt.Sprintf("%08d", t.ExpirationDate.Int())
			}
			return ""
		}
		for _, sort := range []string{"id", "name", "email", "expirationDate", "lastTrained"} {
			for _, dir := range []string{"", ",asc", ",desc"} {
				desc := dir == ",desc"
				// Expected order: by key (nulls last either way), ties by id ascending.
				want := slices.Clone(all)
				slices.SortStableFunc(want, func(a, b *api.Trainee) int {
					ka, kb := key(a, sort), key(b, sort)
					if sort == "id" {
						if desc {
							return int(b.ID - a.ID)
						}
						return int(a.ID - b.ID)
					}
					switch {
					case ka == kb:
						return int(a.ID - b.ID)
					case ka == "":
						return 1
					case kb == "":
						return -1
					case desc:
						return strings.Compare(kb, ka)
					default:
						return strings.Compare(ka, kb)
					}
				})
				var got []*api.Trainee
				pages := 0
				for page := 0; ; page++ {
					p := e.search(e.keyA, url.Values{"sort": {sort + dir}, "size": {"4"}, "page": {fmt.Sprint(page)}})
					if p.Page.Size != 4 || p.Page.Number != page || p.Page.TotalElements != 17 || p.Page.TotalPages != 5 {
						t.Fatalf("sort %s%s page %d: page info %+v", sort, dir, page, p.Page)
					}
					if len(p.Content) == 0 {
						break
					}
					pages++
					got = append(got, p.Content...)
				}
				if pages != 5 {
					t.Errorf("sort %s%s: %d non-empty pages, want 5", sort, dir, pages)
				}
				ids := func(ts []*api.Trainee) []int64 {
					out := make([]int64, len(ts))
					for i, t := range ts {
						out[i] = t.ID
					}
					return out
				}
				if !slices.Equal(ids(got), ids(want)) {
					t.Errorf("sort %s%s: walked %v, want %v", sort, dir, ids(got), ids(want))
				}
			}
		}
		// Defaults: size 20, page 0; a page past the end is empty.
		p := e.search(e.keyA, nil)
		if p.Page.Size != 20 || p.Page.Number != 0 || len(p.Content) != 17 || p.Page.TotalPages != 1 {
			t.Errorf("defaults: %+v with %d", p.Page, len(p.Content))
		}
		p = e.search(e.keyA, url.Values{"page": {"10000001"}})
		if len(p.Content) != 0 || p.Page.TotalElements != 17 {
			t.Errorf("page past the end: %+v with %d", p.Page, len(p.Content))
		}
		// An empty result is an empty array, not null.
		r := e.do("GET", "/public-api/trainees/search?q=nobody-at-all", e.keyA, nil).expect(t, 200)
		if !strings.Contains(string(r.Body), `"content":[]`) || !strings.Contains(string(r.Body), `"totalPages":0`) {
			t.Errorf("empty search body %s", r.Body)
		}
	})
}

// TestSearchCursorWire: page.nextCursor is always present (a string, or
// null on the last page); following it walks the same trainees as page=;
// a cursor with another sort, q or status, or with page, is a 1012 on
// cursor; other paged answers carry nextCursor null.
func TestSearchCursorWire(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		for i := range 7 {
			e.create(e.keyA, map[string]any{"name": fmt.Sprintf("Walker %d", i%3), "email": fmt.Sprintf("w%d@example.com", i), "password": "12345678"})
		}
		params := url.Values{"sort": {"name,desc"}, "size": {"3"}, "q": {"walker"}}
		var byPage, byCursor []string
		for page := 0; page < 3; page++ {
			params.Set("page", fmt.Sprint(page))
			byPage = append(byPage, names(e.search(e.keyA, params).Content)...)
		}
		params.Del("page")
		var cursors []string
		for {
			r := e.do("GET", "/public-api/trainees/search?"+params.Encode(), e.keyA, nil).expect(t, 200)
			var raw struct {
				Page map[string]any `json:"page"`
			}
			r.JSON(t, &raw)
			next, present := raw.Page["nextCursor"]
			if !present {
				t.Fatalf("page without nextCursor: %v", raw.Page)
			}
			var p api.TraineePage
			r.JSON(t, &p)
			byCursor = append(byCursor, names(p.Content)...)
			if want := len(cursors); p.Page.Number != want || p.Page.TotalElements != 7 || !p.Page.TotalExact {
				t.Errorf("cursor page %d: %+v", want, p.Page)
			}
			if next == nil {
				if len(cursors) != 2 {
					t.Fatalf("nextCursor null after %d pages", len(cursors)+1)
				}
				break
			}
			s, ok := next.(string)
			if !ok || s == "" || len(cursors) > 3 {
				t.Fatalf("nextCursor %v", next)
			}
			cursors = append(cursors, s)
			params.Set("cursor", s)
		}
		if !slices.Equal(byPage, byCursor) || len(byCursor) != 7 {
			t.Errorf("by cursor %q, by page %q", byCursor, byPage)
		}
		for _, bad := range []url.Values{
			{"sort": {"name"}, "size": {"3"}, "q": {"walker"}, "cursor": {cursors[0]}},
			{"sort": {"name,desc"}, "q": {"walk"}, "cursor": {cursors[0]}},
			{"sort": {"name,desc"}, "q": {"walker"}, "status": {"all"}, "cursor": {cursors[0]}},
			{"sort": {"name,desc"}, "q": {"walker"}, "page": {"1"}, "cursor": {cursors[0]}},
			{"sort": {"name,desc"}, "q": {"walker"}, "cursor": {"not a cursor"}},
		} {
			e.do("GET", "/public-api/trainees/search?"+bad.Encode(), e.keyA, nil).expectError(t, api.CodeInvalidParameter, "cursor")
		}
		// Another company's key refuses nothing but finds nothing after it.
		p := e.search(e.keyB, url.Values{"sort": {"name,desc"}, "q": {"walker"}, "cursor": {cursors[0]}})
		if len(p.Content) != 0 || p.Page.NextCursor != nil {
			t.Errorf("company B with A's cursor: %q %+v", names(p.Content), p.Page)
		}
	})
}
