package commands_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/cmd/traineectl/internal/iostreams"
)

// lockedBuffer is stdout that a server handler may read while the
// command writes it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// addTrainees creates n trainees in the test server's company, some with
// a trainer, a phone and an expiration date, names with non-ASCII letters
// and characters JSON, CSV and TSV escape.
func addTrainees(t *testing.T, s *testServer, n int) {
	t.Helper()
	names := []string{"Zoë Martin", "Łukasz \"Luke\" Nowak", "Siobhán O'Brien", "A <b> & c", "Tab\there, comma"}
	for i := range n {
		nt := api.NewTrainee{
			Name:    fmt.Sprintf("%s %03d", names[i%len(names)], i),
			Email:   fmt.Sprintf("s%03d@example.com", i),
			Enabled: true,
		}
		if i%3 == 0 {
			phone := fmt.Sprintf("+4477009%05d", i)
			nt.PhoneNumber = &phone
		}
		if i%4 == 0 {
			d := api.DateOf(testNow).AddDays(i - 100)
			nt.ExpirationDate = &d
		}
		if i%2 == 0 {
			nt.TrainerID = &s.trainerID
		}
		_, err := s.store.CreateTrainee(context.Background(), s.companyID, nt)
		must(t, err)
	}
}

// search --all (and --limit) print each page as it arrives, byte for
// byte what one page holding every trainee prints, in every format that
// streams.
func TestSearchAllStreamsSameBytes(t *testing.T) {
	srv := newServer(t)
	addTrainees(t, srv, 83)
	h := newHarness(t, srv.url, srv.key)
	for _, format := range [][]string{
		{"-o", "json"}, {"-o", "yaml"}, {"-o", "csv"}, {"-o", "csv", "--fields", "email,id,phoneNumber"},
		{}, {"--fields", "trainer,name,id"}, {"--jq", "map(.id)"}, {"-o", "json", "--status", "deleted"},
	} {
		whole := h.run(append([]string{"search", "--size", "100"}, format...)...).expect(t, 0)
		for _, paged := range [][]string{{"--all", "--size", "7"}, {"--all"}, {"--limit", "83", "--size", "10"}, {"--limit", "500", "--size", "9"}} {
			r := h.run(append(append([]string{"search"}, paged...), format...)...).expect(t, 0)
			if r.out != whole.out {
				t.Errorf("%q %q:\n got %q\nwant %q", format, paged, r.out, whole.out)
			}
			if r.err != "" {
				t.Errorf("%q %q: stderr %q", format, paged, r.err)
			}
		}
	}
	// --limit stops inside a page, and says how many more there are.
	r := h.run("search", "--limit", "11", "--size", "4", "-o", "json").expect(t, 0)
	if got := decode[[]api.Trainee](t, r); len(got) != 11 || got[10].Email != "s010@example.com" ||
		r.err != "Showing 11 of 83 trainees; use a larger --limit or --all for more\n" {
		t.Errorf("--limit 11: %d, %s", len(got), r)
	}
	// On a terminal the JSON streams too; the count comes after it.
	r = h.runWith(runOpts{tty: true}, "search", "--all", "--size", "30", "-o", "json").expect(t, 0)
	if got := decode[[]api.Trainee](t, r); len(got) != 83 || r.err != "83 trainees (all 3 pages)\n" {
		t.Errorf("tty: %d, stderr %q", len(got), r.err)
	}
	r = h.run("search", "--all", "--fields", "shoe").expect(t, 2)
	if !strings.Contains(r.err, `no field "shoe"`) || r.out != "" {
		t.Errorf("--fields shoe: %s", r)
	}
}

// The first pages are on stdout before the last one is asked for.
func TestSearchAllWritesBeforeLastPage(t *testing.T) {
	srv := newServer(t)
	addTrainees(t, srv, 50)
	real, err := http.NewRequest(http.MethodGet, srv.url, nil)
	must(t, err)
	target := real.URL
	out := &lockedBuffer{}
	var mu sync.Mutex
	var seen []string // stdout when each search request came, in order
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == api.PathSearch {
			mu.Lock()
			seen = append(seen, out.String())
			mu.Unlock()
		}
		r.URL.Scheme, r.URL.Host, r.Host, r.RequestURI = target.Scheme, target.Host, target.Host, ""
		resp, err := http.DefaultTransport.RoundTrip(r)
		if err != nil {
			w.WriteHeader(http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		for k, v := range resp.Header {
			w.Header()[k] = v
		}
		w.WriteHeader(resp.StatusCode)
		var b bytes.Buffer
		_, _ = b.ReadFrom(resp.Body)
		_, _ = w.Write(b.Bytes())
	}))
	t.Cleanup(proxy.Close)
	h := newHarness(t, proxy.URL, srv.key)
	r := h.runWith(runOpts{setup: func(ios *iostreams.IOStreams) { ios.Out = out }}, "search", "--all", "--size", "10", "-o", "json").expect(t, 0)
	var got []api.Trainee
	if err := json.Unmarshal([]byte(out.String()), &got); err != nil || len(got) != 50 {
		t.Fatalf("not one array of 50: %v, %d\n%s", err, len(got), r)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != 5 || seen[0] != "" {
		t.Fatalf("%d search requests, stdout before the first: %d bytes", len(seen), len(seen[0]))
	}
	for i := 1; i < 5; i++ {
		if n := strings.Count(seen[i], `"email": `); n != i*10 {
			t.Errorf("at search request %d stdout held %d trainees, want %d", i+1, n, i*10)
		}
	}
}

// A server that gives nextCursor is followed by its cursors: cursor
// instead of page, and no request after a null nextCursor.
func TestSearchAllFollowsCursor(t *testing.T) {
	const total = 23
	var mu sync.Mutex
	var queries []string
	stub := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != api.PathSearch {
			http.NotFound(w, r)
			return
		}
		q := r.URL.Query()
		mu.Lock()
		queries = append(queries, r.URL.RawQuery)
		mu.Unlock()
		size, _ := strconv.Atoi(q.Get("size"))
		from := 0
		if c := q.Get("cursor"); c != "" {
			from, _ = strconv.Atoi(strings.TrimPrefix(c, "after-"))
		}
		var content []string
		for i := from; i < min(total, from+size); i++ {
			content = append(content, traineeJSON(int64(100+i), fmt.Sprintf("C %02d", i), fmt.Sprintf("c%02d@example.com", i), true))
		}
		next := "null"
		if from+size < total {
			next = fmt.Sprintf(`"after-%d"`, from+size)
		}
		w.Header().Set("Content-Type", "application/json")
		// The page numbers lie, as a keyset page need not know its number:
		// only the cursor is followed.
		fmt.Fprintf(w, `{"timestamp":1,"content":[%s],"page":{"size":%d,"number":0,"totalElements":%d,"totalPages":%d,"totalExact":true,"nextCursor":%s}}`,
			strings.Join(content, ","), size, total, (total+size-1)/size, next)
	}))
	t.Cleanup(stub.Close)
	h := newHarness(t, stub.URL, stubKey)
	r := h.run("search", "ada", "--all", "--size", "5", "-o", "json").expect(t, 0)
	got := decode[[]api.Trainee](t, r)
	if len(got) != total || got[0].ID != 100 || got[total-1].ID != 100+total-1 {
		t.Fatalf("got %d trainees: %s", len(got), r)
	}
	want := []string{"q=ada&size=5", "cursor=after-5&q=ada&size=5", "cursor=after-10&q=ada&size=5", "cursor=after-15&q=ada&size=5", "cursor=after-20&q=ada&size=5"}
	equalLines(t, "queries", queries, want)
}

// Without cursors, a trainee that a create shifted onto the next page
// prints once.
func TestSearchAllPageNumbersNoDuplicates(t *testing.T) {
	stub := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		page, _ := strconv.Atoi(r.URL.Query().Get("page"))
		// Pages of 3: ids 1-3, then (shifted by one) 3-5, then 6.
		ids := [][]int64{{1, 2, 3}, {3, 4, 5}, {6}}[page]
		var content []string
		for _, id := range ids {
			content = append(content, traineeJSON(id, fmt.Sprintf("N %d", id), fmt.Sprintf("n%d@example.com", id), true))
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"timestamp":1,"content":[%s],"page":{"size":3,"number":%d,"totalElements":7,"totalPages":3}}`, strings.Join(content, ","), page)
	}))
	t.Cleanup(stub.Close)
	h := newHarness(t, stub.URL, stubKey)
	r := h.run("search", "--all", "--size", "3", "-o", "csv", "--fields", "id").expect(t, 0)
	if r.out != "id\n1\n2\n3\n4\n5\n6\n" {
		t.Errorf("got %q", r.out)
	}
}
