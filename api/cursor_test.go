package api

import (
	"encoding/base64"
	"net/url"
	"reflect"
	"strings"
	"testing"
)

// TestCursorRoundTrip: a page's nextCursor, sent back with the same
// search, parses to the cursor of the page's last row and next offset.
func TestCursorRoundTrip(t *testing.T) {
	today := Date{Year: 2026, Month: 6, Day: 15}
	exp := Date{Year: 2026, Month: 7, Day: 1}
	content := []*Trainee{{ID: 3, Name: "Zed"}, {ID: 9, Name: "ÉMILE Zola", Email: "emile@example.com", ExpirationDate: &exp}}
	for _, c := range []struct {
		query string
		want  Cursor
	}{
		{"q=zo&sort=name,desc&size=2&page=4", Cursor{Sort: SortName, Desc: true, Str: "émile zola", ID: 9, Offset: 10}},
		{"sort=email&status=all", Cursor{Sort: SortEmail, Str: "emile@example.com", ID: 9, Offset: 2}},
		{"sort=expirationDate", Cursor{Sort: SortExpirationDate, Int: 20260701, ID: 9, Offset: 2}},
		{"sort=lastTrained,asc&status=active", Cursor{Sort: SortLastTrained, Null: true, ID: 9, Offset: 2}},
		{"q=%2B44+7700", Cursor{Sort: SortID, ID: 9, Offset: 2}},
	} {
		vals, _ := url.ParseQuery(c.query)
		s, err := ParseSearch(vals, today)
		if err != nil {
			t.Fatal(err)
		}
		next := s.NextCursor(content, s.Offset()+3)
		if next == nil || strings.ContainsAny(*next, "=+/") {
			t.Fatalf("%s: nextCursor %v", c.query, next)
		}
		vals.Del("page")
		vals.Set("cursor", *next)
		vals.Set("size", "7") // the size may change
		got, err := ParseSearch(vals, today)
		if err != nil {
			t.Fatalf("%s: %v", c.query, err)
		}
		c.want.Fingerprint = SearchFingerprint(s)
		if got.Cursor == nil || !reflect.DeepEqual(*got.Cursor, c.want) {
			t.Errorf("%s: cursor %+v, want %+v", c.query, got.Cursor, c.want)
		}
		if pi := got.PageInfo(100); pi.Number != int(c.want.Offset/7) || got.Offset() != c.want.Offset {
			t.Errorf("%s: page %+v for offset %d", c.query, pi, c.want.Offset)
		}
		// The last page has none.
		if s.NextCursor(content, s.Offset()+2) != nil || s.NextCursor(nil, 100) != nil {
			t.Errorf("%s: a nextCursor on the last page", c.query)
		}
	}
}

// TestCursorRefused: a malformed cursor, one of another search, or one
// with page is a 1012 on cursor.
func TestCursorRefused(t *testing.T) {
	today := Date{Year: 2026, Month: 6, Day: 15}
	vals, _ := url.ParseQuery("q=anna&status=active&sort=name")
	s, err := ParseSearch(vals, today)
	if err != nil {
		t.Fatal(err)
	}
	cur := *s.NextCursor([]*Trainee{{ID: 4, Name: "Anna"}}, 50)
	raw, _ := base64.RawURLEncoding.DecodeString(cur)
	enc := func(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }
	for _, q := range []string{
		"q=anny&status=active&sort=name&cursor=" + cur,
		"q=anna&status=live&sort=name&cursor=" + cur,
		"q=anna&status=active&sort=name,desc&cursor=" + cur,
		"q=anna&status=active&sort=email&cursor=" + cur,
		"q=anna&status=active&sort=name&page=0&cursor=" + cur,
		"q=anna&status=active&sort=name&cursor=",
		"q=anna&status=active&sort=name&cursor=" + cur + "=",
		"q=anna&status=active&sort=name&cursor=" + cur[:len(cur)-3],
		"q=anna&status=active&sort=name&cursor=" + enc(string(raw)+" {}"),
		"q=anna&status=active&sort=name&cursor=" + enc(strings.Replace(string(raw), `"o":1`, `"o":-1`, 1)),
		"q=anna&status=active&sort=name&cursor=" + enc(strings.Replace(string(raw), `"v":"anna"`, `"v":7`, 1)),
		"q=anna&status=active&sort=name&cursor=" + enc(strings.Replace(string(raw), `"i":4`, `"i":0`, 1)),
		"q=anna&status=active&sort=name&cursor=" + enc(strings.Replace(string(raw), `"i":4`, `"i":4,"x":1`, 1)),
		"q=anna&status=active&sort=name&cursor=" + strings.Repeat("A", 3000),
	} {
		vals, _ := url.ParseQuery(q)
		_, err := ParseSearch(vals, today)
		if v, ok := err.(*ValidationError); !ok || len(v.Errors) != 1 || v.Errors[0].ErrorCode != CodeInvalidParameter || v.Errors[0].Field != "cursor" {
			t.Errorf("%s: %v, want only 1012 on cursor", q, err)
		}
	}
	if !strings.Contains(string(raw), `"o":1`) || !strings.Contains(string(raw), `"v":"anna"`) || !strings.Contains(string(raw), `"i":4`) {
		t.Fatalf("the test's edits no longer apply to %s", raw)
	}
}
