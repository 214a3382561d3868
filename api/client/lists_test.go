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

// ListAutomations follows nextCursor: up to Max rows (asking no more
// than it needs) or Pages pages, its Response saying whether more follow.
func TestListFollowsCursors(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		n, limit, max, pages int
		want                 int64
		more                 bool
		queries              []string
	}{
		{n: 45, want: 45, queries: []string{"limit=100"}},
		{n: 45, limit: 20, want: 45, queries: []string{"limit=20", "after=c20&limit=20", "after=c40&limit=20"}},
		{n: 45, max: 30, want: 30, more: true, queries: []string{"limit=30"}},
		{n: 45, max: 45, want: 45, queries: []string{"limit=45"}},
		{n: 45, limit: 10, max: 25, want: 25, more: true, queries: []string{"limit=10", "after=c10&limit=10", "after=c20&limit=5"}},
		{n: 45, limit: 10, max: 40, want: 40, more: true, queries: []string{"limit=10", "after=c10&limit=10", "after=c20&limit=10", "after=c30&limit=10"}},
		{n: 45, pages: 1, want: 20, more: true, queries: []string{""}},
		{n: 45, limit: 10, pages: 2, want: 20, more: true, queries: []string{"limit=10", "after=c10&limit=10"}},
		{n: 0, max: 5, want: 0, queries: []string{"limit=5"}},
	} {
		s := listStub(t, c.n)
		cl := newTestClient(s.URL, &sleeper{})
		var resp client.Response
		got, err := client.Collect(cl.ListAutomations(ctx, client.ListParams{Limit: c.limit, Max: c.max, Pages: c.pages}, client.WithResponse(&resp)))
		if err != nil || resp.More != c.more || !reflect.DeepEqual(automationIDs(got), seq(1, c.want)) {
			t.Errorf("%+v: %v more %v, %v", c, automationIDs(got), resp.More, err)
		}
		if resp.Pages != len(c.queries) || resp.Status != http.StatusOK || !resp.Counted {
			t.Errorf("%+v: response %+v", c, resp)
		}
		if q := queries(s); !reflect.DeepEqual(q, c.queries) {
			t.Errorf("%+v: queries %q", c, q)
		}
	}
}

func queries(s *stub) []string {
	var out []string
	for i := range s.attempts() {
		out = append(out, s.request(i).Query)
	}
	return out
}

// A loop that stops early stops the fetching: no page is read that the
// loop did not reach, and More says rows follow.
func TestListBreakStopsFetching(t *testing.T) {
	s := listStub(t, 130)
	cl := newTestClient(s.URL, &sleeper{})
	var resp client.Response
	var each []int64
	for a, err := range cl.ListAutomations(context.Background(), client.ListParams{Limit: 7}, client.WithResponse(&resp)) {
		if err != nil {
			t.Fatal(err)
		}
		if each = append(each, a.ID); len(each) == 10 {
			break
		}
	}
	if !reflect.DeepEqual(each, seq(1, 10)) || s.attempts() != 2 || !resp.More {
		t.Fatalf("stopped at 10: %v after %d requests, more %v", each, s.attempts(), resp.More)
	}
	// Stopped at the last row of a page: More is the page's hasMore.
	resp = client.Response{}
	for a := range cl.ListAutomations(context.Background(), client.ListParams{Limit: 7}, client.WithResponse(&resp)) {
		if a.ID == 7 {
			break
		}
	}
	if !resp.More || s.attempts() != 3 {
		t.Fatalf("stopped at a page's end: more %v, %d requests", resp.More, s.attempts())
	}
}

// An error mid-way is the last pair: the rows before it, then the error,
// and nothing is read after it.
func TestListErrorStopsTheSequence(t *testing.T) {
	s := newStub(t, func(n int, w http.ResponseWriter, r *http.Request) {
		if n == 2 {
			w.WriteHeader(http.StatusBadRequest)
			w.Write([]byte(`{"errorCode":1012,"message":"bad cursor"}`))
			return
		}
		next := "c2"
		json.NewEncoder(w).Encode(api.AutomationPage{Content: []*api.Automation{{ID: 1}, {ID: 2}}, Page: api.PageInfo{CursorPage: api.NewCursorPage(&next)}})
	})
	cl := newTestClient(s.URL, &sleeper{})
	var resp client.Response
	var ids []int64
	var errs []error
	for a, err := range cl.ListAutomations(context.Background(), client.ListParams{Limit: 2}, client.WithResponse(&resp)) {
		if err != nil {
			errs = append(errs, err)
			continue
		}
		ids = append(ids, a.ID)
	}
	var re *client.RejectedError
	if !reflect.DeepEqual(ids, []int64{1, 2}) || len(errs) != 1 || !errors.As(errs[0], &re) || re.ErrorCode != 1012 || s.attempts() != 2 {
		t.Fatalf("rows %v, errors %v, %d requests", ids, errs, s.attempts())
	}
	if resp.Status != http.StatusBadRequest {
		t.Fatalf("the response of the failed page: %+v", resp)
	}
}

// ByPage hands over the rows a page at a time, as they came, and the
// rows before an error before the error.
func TestByPage(t *testing.T) {
	s := listStub(t, 25)
	cl := newTestClient(s.URL, &sleeper{})
	var resp client.Response
	var sizes []int
	err := client.ByPage(cl.ListAutomations(context.Background(), client.ListParams{Limit: 10}, client.WithResponse(&resp)), &resp, func(rows []*api.Automation) error {
		sizes = append(sizes, len(rows))
		return nil
	})
	if err != nil || !reflect.DeepEqual(sizes, []int{10, 10, 5}) {
		t.Fatalf("pages %v, %v", sizes, err)
	}
	stop := errors.New("stop")
	resp = client.Response{}
	n := s.attempts()
	err = client.ByPage(cl.ListAutomations(context.Background(), client.ListParams{Limit: 10}, client.WithResponse(&resp)), &resp, func([]*api.Automation) error { return stop })
	if err != stop || s.attempts() != n+1 {
		t.Fatalf("fn's error: %v after %d requests", err, s.attempts()-n)
	}
}

// A search iterates like every list, its cursor sent as cursor and size.
func TestListTraineesFollowsCursors(t *testing.T) {
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
	all, err := client.Collect(cl.ListTrainees(context.Background(), client.SearchParams{Query: "ada", Size: 1}))
	if err != nil || len(all) != 3 || all[2].ID != 3 {
		t.Fatalf("%v %v", all, err)
	}
	if want := []string{"q=ada&size=1", "cursor=c1&q=ada&size=1", "cursor=c2&q=ada&size=1"}; !reflect.DeepEqual(queries(s), want) {
		t.Fatalf("queries %q, want %q", queries(s), want)
	}
	// Max: no more asked for than is left; More says the rest follows.
	s = newStub(t, func(n int, w http.ResponseWriter, r *http.Request) {
		next := "c"
		json.NewEncoder(w).Encode(api.TraineePage{Content: []*api.Trainee{{ID: 1}, {ID: 2}}, Page: api.PageInfo{TotalElements: 9, TotalExact: true, CursorPage: api.NewCursorPage(&next)}})
	})
	cl = newTestClient(s.URL, &sleeper{})
	var resp client.Response
	got, err := client.Collect(cl.ListTrainees(context.Background(), client.SearchParams{Max: 3}, client.WithResponse(&resp)))
	if err != nil || len(got) != 3 || !resp.More || resp.Page.TotalElements != 9 || !reflect.DeepEqual(queries(s), []string{"size=3", "cursor=c&size=3"}) {
		t.Fatalf("max 3: %d rows, %+v, queries %q, %v", len(got), resp, queries(s), err)
	}
}
