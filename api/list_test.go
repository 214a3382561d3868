package api

import (
	"net/url"
	"reflect"
	"strings"
	"testing"
)

// onlyError asserts err is a *ValidationError of one 1012 on field.
func onlyError(t *testing.T, what string, err error, field string) {
	t.Helper()
	if v, ok := err.(*ValidationError); !ok || len(v.Errors) != 1 || v.Errors[0].ErrorCode != CodeInvalidParameter || v.Errors[0].Field != field {
		t.Errorf("%s: %v, want only 1012 on %s", what, err, field)
	}
}

func parseList(t *testing.T, query string, p ListParams, fp string) (ListQuery, error) {
	t.Helper()
	vals, err := url.ParseQuery(query)
	if err != nil {
		t.Fatal(err)
	}
	return ParseListQuery(vals, p, fp)
}

// TestListQuery: limit (or size, its old name), page as an offset, and a
// cursor of the same list, which carries the keyset and the offset.
func TestListQuery(t *testing.T) {
	fp := ListFingerprint("runs", 3, "7")
	cur := ListCursor{List: fp, Key: []int64{41}, Offset: 40}.Encode()
	if strings.ContainsAny(cur, "=+/") {
		t.Fatalf("cursor %q is not base64url without padding", cur)
	}
	for _, c := range []struct {
		query string
		p     ListParams
		want  ListQuery
	}{
		{"", PagedList, ListQuery{Limit: 20}},
		{"limit=5", PagedList, ListQuery{Limit: 5}},
		{"size=5&page=3", PagedList, ListQuery{Limit: 5, Offset: 15}},
		{"after=" + cur + "&limit=7", PagedList, ListQuery{Limit: 7, After: []int64{41}, Offset: 40}},
		{"after=&page=2", PagedList, ListQuery{Limit: 20, Offset: 40}},
		{"limit=500", feedList, ListQuery{Limit: 500}},
		{"page=3", feedList, ListQuery{Limit: 100}}, // no page in the feed: ignored
	} {
		got, err := parseList(t, c.query, c.p, fp)
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%q: %+v %v, want %+v", c.query, got, err, c.want)
		}
	}
	if q, _ := parseList(t, "after="+cur+"&limit=7", PagedList, fp); q.Page() != 5 {
		t.Errorf("page of offset 40 by 7: %d", q.Page())
	}
	deliveries := ListCursor{List: fp, Key: []int64{9, 0}, Offset: 1}.Encode()
	for _, c := range []struct{ query, field string }{
		{"limit=0", "limit"},
		{"limit=101", "limit"},
		{"size=abc", "size"},
		{"limit=2&size=2", "size"},
		{"page=-1", "page"},
		{"after=" + cur + "&page=0", "after"},
		{"after=" + ListCursor{List: ListFingerprint("runs", 3, "8"), Key: []int64{41}, Offset: 40}.Encode(), "after"},
		{"after=" + ListCursor{List: ListFingerprint("runs", 4, "7"), Key: []int64{41}, Offset: 40}.Encode(), "after"},
		{"after=" + deliveries, "after"}, // a keyset of two values
		{"after=" + ListCursor{List: fp, Key: []int64{41}}.Encode(), "after"},
		{"after=" + ListCursor{List: fp, Key: []int64{-1}, Offset: 1}.Encode(), "after"},
		{"after=" + cur[:len(cur)-1], "after"},
		{"after=" + cur + "%00", "after"},
		{"after=" + strings.Repeat("A", 3000), "after"},
	} {
		_, err := parseList(t, c.query, PagedList, fp)
		if c.field == "after" && strings.HasSuffix(c.query, "%00") {
			if v, ok := err.(*ValidationError); !ok || v.Errors[0].Field != "after" {
				t.Errorf("%q: %v", c.query, err)
			}
			continue
		}
		onlyError(t, c.query, err, c.field)
	}
	if _, err := parseList(t, "after="+deliveries, DeliveriesList, fp); err != nil {
		t.Errorf("a deliveries cursor: %v", err)
	}
}

// TestSearchAfterAndLimit: after and limit are a search's cursor and size
// too; the old names still work, and each pair is refused together.
func TestSearchAfterAndLimit(t *testing.T) {
	today := Date{Year: 2026, Month: 6, Day: 15}
	search := func(query string) (Search, error) {
		vals, _ := url.ParseQuery(query)
		return ParseSearch(vals, today)
	}
	s, err := search("q=ann&sort=name&limit=3")
	if err != nil || s.Size != 3 {
		t.Fatalf("limit: %+v %v", s, err)
	}
	cur := *s.NextCursor([]*Trainee{{ID: 4, Name: "Anna"}, {ID: 2, Name: "Annie"}, {ID: 9, Name: "Joanna"}}, 50)
	for _, q := range []string{"q=ann&sort=name&after=" + cur, "q=ann&sort=name&cursor=" + cur, "q=ann&sort=name&size=5&after=" + cur} {
		got, err := search(q)
		if err != nil || got.Cursor == nil || got.Cursor.ID != 9 || got.Cursor.Offset != 3 {
			t.Errorf("%s: %+v %v", q, got.Cursor, err)
		}
	}
	if got, err := search("q=ann&sort=name&after="); err != nil || got.Cursor != nil {
		t.Errorf("an empty after: %+v %v", got.Cursor, err)
	}
	for _, c := range []struct{ query, field string }{
		{"q=ann&sort=name&after=" + cur + "&cursor=" + cur, "after"},
		{"q=ann&sort=name&after=" + cur + "&page=1", "after"},
		{"q=ann&sort=email&after=" + cur, "after"},
		{"q=ann&sort=name&after=nope", "after"},
		{"q=ann&sort=name&cursor=nope", "cursor"},
		{"q=ann&sort=name&cursor=", "cursor"},
		{"limit=3&size=3", "size"},
		{"limit=101", "limit"},
	} {
		_, err := search(c.query)
		onlyError(t, c.query, err, c.field)
	}
}

// TestEventQueryCursor: the feed's after is an event id or a cursor of the
// same company, types and order; order is asc or desc, and wait goes with
// asc only.
func TestEventQueryCursor(t *testing.T) {
	events := func(query string, company int64) (EventQuery, error) {
		vals, _ := url.ParseQuery(query)
		return ParseEventQuery(vals, company)
	}
	q, err := events("type=trainee.deleted,trainee.created&order=desc&limit=2", 5)
	if err != nil || !q.Desc || q.Limit != 2 || !reflect.DeepEqual(q.Types, []string{EventTraineeCreated, EventTraineeDeleted}) {
		t.Fatalf("%+v %v", q, err)
	}
	cur := ListCursor{List: q.List, Key: []int64{77}, Offset: 2}.Encode()
	got, err := events("type=trainee.created,trainee.deleted&order=desc&after="+cur, 5)
	if err != nil || got.AfterSeq != 77 || got.Offset != 2 || got.After != "" {
		t.Fatalf("a cursor: %+v %v", got, err)
	}
	if got, err := events("after=evt_abc&wait=5", 5); err != nil || got.After != "evt_abc" || got.AfterSeq != 0 || got.Wait.Seconds() != 5 {
		t.Fatalf("an event id: %+v %v", got, err)
	}
	for _, c := range []struct {
		query   string
		company int64
		field   string
	}{
		{"type=trainee.created,trainee.deleted&order=desc&after=" + cur, 6, "after"},
		{"type=trainee.created&order=desc&after=" + cur, 5, "after"},
		{"type=trainee.created,trainee.deleted&after=" + cur, 5, "after"},
		{"after=" + cur, 5, "after"},
		{"after=evt_" + strings.Repeat("a", 70), 5, "after"},
		{"order=newest", 5, "order"},
		{"order=desc&wait=1", 5, "wait"},
		{"limit=501", 5, "limit"},
		{"size=5", 5, ""},
	} {
		_, err := events(c.query, c.company)
		if c.field == "" {
			if err != nil {
				t.Errorf("%s: %v (size is no parameter of the feed: ignored)", c.query, err)
			}
			continue
		}
		onlyError(t, c.query, err, c.field)
	}
}
