package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"reflect"
	"strconv"
	"testing"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/client"
)

// listStub serves automations 1..n in pages: after is the opaque cursor
// "c<last id>", limit the page size (default 20).
func listStub(t *testing.T, n int) *stub {
	return newStub(t, func(_ int, w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		from := 0
		if a := q.Get("after"); a != "" {
			from, _ = strconv.Atoi(a[1:])
		}
		limit := 20
		if l := q.Get("limit"); l != "" {
			limit, _ = strconv.Atoi(l)
		}
		page := api.AutomationPage{Content: []*api.Automation{}}
		for id := from + 1; id <= n && len(page.Content) < limit; id++ {
			page.Content = append(page.Content, &api.Automation{ID: int64(id)})
		}
		if last := from + len(page.Content); last < n {
			next := "c" + strconv.Itoa(last)
			page.Page.CursorPage = api.NewCursorPage(&next)
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(page)
	})
}

func automationIDs(as []*api.Automation) []int64 {
	out := make([]int64, len(as))
	for i, a := range as {
		out[i] = a.ID
	}
	return out
}

func seq(from, to int64) []int64 {
	out := []int64{}
	for i := from; i <= to; i++ {
		out = append(out, i)
	}
	return out
}

// Walk follows nextCursor: up to max rows (asking no more than it needs),
// saying whether more follow; All reads everything; Each stops when the
// loop does.
func TestWalkFollowsCursors(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		n, limit, max int
		want          int64
		more          bool
		queries       []string
	}{
		{n: 45, max: 0, want: 45, queries: []string{"", "after=c20", "after=c40"}},
		{n: 45, max: 30, want: 30, more: true, queries: []string{"limit=30"}},
		{n: 45, max: 45, want: 45, queries: []string{"limit=45"}},
		{n: 45, limit: 10, max: 25, want: 25, more: true, queries: []string{"limit=10", "after=c10&limit=10", "after=c20&limit=5"}},
		{n: 45, limit: 10, max: 40, want: 40, more: true, queries: []string{"limit=10", "after=c10&limit=10", "after=c20&limit=10", "after=c30&limit=10"}},
		{n: 0, max: 5, want: 0, queries: []string{"limit=5"}},
	} {
		s := listStub(t, c.n)
		cl := newTestClient(s.URL, &sleeper{})
		var got []*api.Automation
		more, err := client.Walk(ctx, cl.Automations, client.ListParams{Limit: c.limit}, c.max, func(rows []*api.Automation) error {
			got = append(got, rows...)
			return nil
		})
		if err != nil || more != c.more || !reflect.DeepEqual(automationIDs(got), seq(1, c.want)) {
			t.Errorf("%+v: %v more %v, %v", c, automationIDs(got), more, err)
		}
		var queries []string
		for i := range s.attempts() {
			queries = append(queries, s.request(i).Query)
		}
		if !reflect.DeepEqual(queries, c.queries) {
			t.Errorf("%+v: queries %q", c, queries)
		}
	}

	cl := newTestClient(listStub(t, 130).URL, &sleeper{})
	all, err := client.All(ctx, cl.Automations, client.ListParams{})
	if err != nil || !reflect.DeepEqual(automationIDs(all), seq(1, 130)) {
		t.Fatalf("All: %v %v", automationIDs(all), err)
	}
	var each []int64
	for a, err := range client.Each(ctx, cl.Automations, client.ListParams{Limit: 7}) {
		if err != nil {
			t.Fatal(err)
		}
		if each = append(each, a.ID); len(each) == 10 {
			break
		}
	}
	if !reflect.DeepEqual(each, seq(1, 10)) {
		t.Fatalf("Each, stopped at 10: %v", each)
	}
	stop := errors.New("stop")
	if _, err := client.Walk(ctx, cl.Automations, client.ListParams{}, 0, func([]*api.Automation) error { return stop }); err != stop {
		t.Fatalf("fn's error: %v", err)
	}
}

// A search walks like every list, its cursor sent as cursor and size.
func TestWalkSearch(t *testing.T) {
	s := newStub(t, func(n int, w http.ResponseWriter, r *http.Request) {
		page := api.TraineePage{Content: []*api.Trainee{{ID: int64(n)}}} // n counts from 1
		if n < 3 {
			next := "c" + strconv.Itoa(n)
			page.Page.CursorPage = api.NewCursorPage(&next)
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(page)
	})
	cl := newTestClient(s.URL, &sleeper{})
	all, err := client.All(context.Background(), cl.SearchPageFunc(client.SearchParams{Query: "ada", Page: 4}), client.ListParams{Limit: 1})
	if err != nil || len(all) != 3 || all[2].ID != 3 {
		t.Fatalf("%v %v", all, err)
	}
	var queries []string
	for i := range s.attempts() {
		queries = append(queries, s.request(i).Query)
	}
	if want := []string{"q=ada&size=1", "cursor=c1&q=ada&size=1", "cursor=c2&q=ada&size=1"}; !reflect.DeepEqual(queries, want) {
		t.Fatalf("queries %q, want %q", queries, want)
	}
}
