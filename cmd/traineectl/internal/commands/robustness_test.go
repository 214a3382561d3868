package commands_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/traineed/traineed/cmd/traineectl/internal/bulkimport"
	"github.com/traineed/traineed/cmd/traineectl/internal/cmdutil"
	"github.com/traineed/traineed/store/storetest"
)

// runWithin runs traineectl and fails when it takes longer than limit.
func (h *harness) runWithin(limit time.Duration, args ...string) result {
	h.t.Helper()
	done := make(chan result, 1)
	go func() { done <- h.run(args...) }()
	select {
	case r := <-done:
		return r
	case <-time.After(limit):
		h.t.Fatalf("traineectl %v still runs after %s", args, limit)
		return result{}
	}
}

// A server that accepts connections and never answers: each attempt gives
// up after --timeout (or TRAINEECTL_TIMEOUT), and is retried like a
// connection failure.
func TestTimeoutOnSilentServer(t *testing.T) {
	base := storetest.SilentServer(t)
	t.Run("flag", func(t *testing.T) {
		h := newHarness(t, base, stubKey)
		r := h.runWithin(10*time.Second, "get", "4", "--timeout", "50ms").expect(t, cmdutil.ExitFailure)
		if !strings.Contains(r.err, "cannot reach "+base+"/public-api/trainees/4: no answer within 50ms (after 3 attempts)") {
			t.Errorf("stderr: %q", r.err)
		}
		if !reflect.DeepEqual(h.sleeps, []time.Duration{time.Second, 5 * time.Second}) {
			t.Errorf("slept %v, want the retry delays", h.sleeps)
		}
	})
	t.Run("env", func(t *testing.T) {
		h := newHarness(t, base, stubKey)
		h.env[cmdutil.EnvTimeout] = "40ms"
		r := h.runWithin(10*time.Second, "search", "ada").expect(t, cmdutil.ExitFailure)
		if !strings.Contains(r.err, "no answer within 40ms (after 3 attempts)") {
			t.Errorf("stderr: %q", r.err)
		}
	})
	t.Run("bulk import", func(t *testing.T) {
		h := newHarness(t, base, stubKey)
		in := writeFile(t, "in.csv", "name,email,password\nAda,ada@example.com,S3cret-pass\nBo,bo@example.com,S3cret-pass\n")
		r := h.runWithin(20*time.Second, "create", "-f", in, "--parallel", "1", "--timeout", "50ms").expect(t, cmdutil.ExitFailure)
		if !strings.Contains(r.err, "no answer within 50ms") || !strings.Contains(r.err, "not attempted 1 of 2 rows") {
			t.Errorf("stderr: %q", r.err)
		}
	})
}

func TestTimeoutUsageErrors(t *testing.T) {
	h := newHarness(t, storetest.SilentServer(t), stubKey)
	for _, args := range [][]string{
		{"get", "4", "--timeout", "0s"},
		{"get", "4", "--timeout", "-1s"},
		{"get", "4", "--timeout", "soon"},
	} {
		r := h.run(args...).expect(t, cmdutil.ExitUsage)
		if !strings.Contains(r.err, "timeout") {
			t.Errorf("%v: stderr %q", args, r.err)
		}
	}
	h.env[cmdutil.EnvTimeout] = "soon"
	r := h.run("get", "4").expect(t, cmdutil.ExitUsage)
	if !strings.Contains(r.err, `TRAINEECTL_TIMEOUT="soon"`) {
		t.Errorf("stderr %q", r.err)
	}
}

// A malformed base URL is a usage error at once: no request, no retries.
func TestMalformedBaseURL(t *testing.T) {
	s := newStubAPI(t)
	for _, tc := range []struct{ url, want string }{
		{"127.0.0.1:8080", "it needs a scheme"},
		{"localhost:8080", "it needs a scheme"},
		{"trainees.example.com", "it needs a scheme"},
		{"http://[bad", "invalid base URL"},
		{"ftp://trainees.example.com", "the scheme must be http or https"},
		{"http://", "no host"},
		{"https:///public", "no host"},
	} {
		t.Run(tc.url, func(t *testing.T) {
			h := newHarness(t, s.URL, stubKey)
			r := h.run("get", "4", "--base-url", tc.url).expect(t, cmdutil.ExitUsage)
			if !strings.HasPrefix(r.err, "error: --base-url: invalid base URL "+`"`+tc.url+`"`) || !strings.Contains(r.err, tc.want) {
				t.Errorf("stderr: %q", r.err)
			}
			if len(h.sleeps) != 0 {
				t.Errorf("slept %v: retried", h.sleeps)
			}
			// The same from the environment names the variable.
			h.env[cmdutil.EnvBaseURL] = tc.url
			r = h.run("search").expect(t, cmdutil.ExitUsage)
			if !strings.HasPrefix(r.err, "error: TRAINEECTL_BASE_URL: invalid base URL") {
				t.Errorf("stderr: %q", r.err)
			}
		})
	}
	if n := len(s.requests()); n != 0 {
		t.Errorf("%d requests sent", n)
	}
	h := newHarness(t, s.URL, stubKey)
	h.run("get", "4", "--base-url", s.URL+"/").expect(t, cmdutil.ExitRejected) // sent: the stub has no route
}

func TestSetProfileRefusesMalformedBaseURL(t *testing.T) {
	h := newHarness(t, "", stubKey)
	r := h.run("config", "set-profile", "prod", "--base-url", "127.0.0.1:8080").expect(t, cmdutil.ExitUsage)
	if !strings.Contains(r.err, `--base-url: invalid base URL "127.0.0.1:8080": it needs a scheme`) {
		t.Errorf("stderr: %q", r.err)
	}
	r = h.run("config", "list").expect(t, 0)
	if strings.Contains(r.out+r.err, "127.0.0.1:8080") {
		t.Errorf("the profile was saved:\n%s", r)
	}
	h.run("config", "set-profile", "prod", "--base-url", "https://trainees.example.com").expect(t, 0)
}

// --status and --sort are checked as the server would, before sending.
func TestSearchValidatesStatusAndSortLocally(t *testing.T) {
	s := newStubAPI(t)
	s.handle("GET /public-api/trainees/search", 200, `{"timestamp":1,"content":[],"page":{"size":20,"number":0,"totalElements":0,"totalPages":0}}`)
	h := newHarness(t, s.URL, stubKey)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"search", "--status", "gone"}, `--status "gone": status must be live, active, expired, deleted or all`},
		{[]string{"search", "--status", "Active"}, `--status "Active"`},
		{[]string{"list", "--sort", "age"}, `--sort "age": sort must be id, name, email, expirationDate or lastTrained`},
		{[]string{"search", "--sort", "name,up"}, `--sort "name,up": sort direction must be asc or desc`},
		{[]string{"search", "--all", "--sort", "name,"}, `--sort "name,": sort direction must be asc or desc`},
		{[]string{"search", "--status", "x", "--sort", "y"}, `--status "x": status must be live, active, expired, deleted or all; --sort "y"`},
		{[]string{"search", strings.Repeat("a", 201)}, "QUERY: q must be at most 200 characters"},
	} {
		r := h.run(tc.args...).expect(t, cmdutil.ExitUsage)
		if !strings.HasPrefix(r.err, "error: "+tc.want) {
			t.Errorf("%v: stderr %q", tc.args, r.err)
		}
	}
	if n := len(s.requests()); n != 0 {
		t.Fatalf("%d requests sent: %v", n, s.requestLines())
	}
	for _, args := range [][]string{
		{"search", "--status", "expired", "--sort", "expirationDate,desc"},
		{"search", "--status", "all", "--sort", "lastTrained"},
		{"search", "--sort", "email,asc"},
	} {
		h.run(args...).expect(t, 0)
	}
	if n := len(s.requests()); n != 3 {
		t.Errorf("%d requests, want 3: %v", n, s.requestLines())
	}
}

// A server that answers only 503: the first row's create and its lookup
// both fail after the retries, and the import stops there, like for an
// unreachable server (exit 1, the other rows not attempted), instead of
// spending the retries on every row.
func TestBulkStopsWhenServerKeepsFailing(t *testing.T) {
	s := newStubAPI(t)
	s.handle("/", 503, "")
	h := newHarness(t, s.URL, stubKey)
	var rows strings.Builder
	rows.WriteString("name,email,password\n")
	for i := range 6 {
		fmt.Fprintf(&rows, "T%d,t%d@example.com,S3cret-pass\n", i, i)
	}
	in := writeFile(t, "in.csv", rows.String())
	r := h.run("create", "-f", in, "--parallel", "1", "-o", "json").expect(t, cmdutil.ExitFailure)
	if !strings.Contains(r.err, "not attempted 5 of 6 rows") {
		t.Errorf("stderr: %s", r.err)
	}
	var obj struct {
		Error struct {
			Status  *int   `json:"status"`
			Message string `json:"message"`
		} `json:"error"`
	}
	lines := strings.Split(strings.TrimSpace(r.err), "\n")
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &obj); err != nil || obj.Error.Status == nil || *obj.Error.Status != 503 ||
		!strings.HasPrefix(obj.Error.Message, "the server keeps failing, import stopped: server error: 503") {
		t.Errorf("error object: %s (%v)", lines[len(lines)-1], err)
	}
	recs := decode[[]bulkimport.Record](t, r)
	if len(recs) != 1 || recs[0].Status != bulkimport.StatusUnknown {
		t.Errorf("records: %s", r)
	}
	// One row: 3 attempts of its create, 3 of its lookup.
	var posts, gets int
	for _, q := range s.requests() {
		switch q.Method {
		case "POST":
			posts++
		case "GET":
			gets++
		}
	}
	if posts != 3 || gets != 3 {
		t.Errorf("%d creates and %d lookups sent, want 3 and 3: %v", posts, gets, s.requestLines())
	}
	// Without -o json, the text error and the exit status are the same.
	in2 := writeFile(t, "in2.csv", rows.String())
	r = h.run("create", "-f", in2, "--parallel", "2").expect(t, cmdutil.ExitFailure)
	if !strings.Contains(r.err, "error: the server keeps failing, import stopped: server error: 503 Service Unavailable (after 3 attempts)") {
		t.Errorf("stderr: %s", r.err)
	}
}

// The line a search prints on a terminal: correct grammar, and a page past
// the end says so.
func TestSearchTerminalLine(t *testing.T) {
	s := newStubAPI(t)
	s.mux.HandleFunc("GET /public-api/trainees/search", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		page, _ := strconv.Atoi(q.Get("page"))
		var content []string
		total, pages := 1, 1
		switch q.Get("q") {
		case "one":
			content = []string{traineeJSON(1, "Ada", "ada@example.com", true)}
		case "many": // 3 pages of one, with --size 1
			total, pages = 3, 3
			if page < 3 {
				content = []string{traineeJSON(int64(page+1), "T", fmt.Sprintf("t%d@example.com", page), true)}
			}
		case "far": // 35 pages of 20
			total, pages = 700, 35
		}
		fmt.Fprintf(w, `{"timestamp":1,"content":[%s],"page":{"size":20,"number":%d,"totalElements":%d,"totalPages":%d}}`,
			strings.Join(content, ","), page, total, pages)
	})
	h := newHarness(t, s.URL, stubKey)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"search", "one", "--all"}, "1 trainee (1 page)\n"},
		{[]string{"search", "many", "--all", "--size", "1"}, "3 trainees (all 3 pages)\n"},
		{[]string{"search", "one"}, "page 1 of 1, 1 trainee\n"},
		{[]string{"search", "far", "--page", "50"}, "page 51 of 35: past the last page (700 trainees in all; --page counts from 0)\n"},
	} {
		r := h.runWith(runOpts{tty: true}, tc.args...).expect(t, 0)
		if r.err != tc.want {
			t.Errorf("%v: stderr %q, want %q", tc.args, r.err, tc.want)
		}
	}
}
