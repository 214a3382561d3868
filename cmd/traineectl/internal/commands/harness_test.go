package commands_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/traineed/traineed/api/client"
	"github.com/traineed/traineed/cmd/traineectl/internal/cmdutil"
	"github.com/traineed/traineed/cmd/traineectl/internal/commands"
	"github.com/traineed/traineed/cmd/traineectl/internal/iostreams"
)

// testNow is the clock of the client (and of the test server): 21-11-2026.
var testNow = time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)

const stubKey = "pk_stubstubstubstubstubstubstubstubstubstub"

// harness runs the real cobra tree with buffers for its streams.
type harness struct {
	t                 *testing.T
	env               map[string]string
	mu                sync.Mutex
	sleeps            []time.Duration
	completionTimeout time.Duration
}

// result is what one run of traineectl gave.
type result struct {
	code     int
	out, err string
}

func (r result) String() string {
	return fmt.Sprintf("exit %d\n--- stdout\n%s--- stderr\n%s", r.code, r.out, r.err)
}

func newHarness(t *testing.T, baseURL, key string) *harness {
	return &harness{t: t, env: map[string]string{
		"XDG_CONFIG_HOME":  t.TempDir(),
		"HOME":             t.TempDir(),
		cmdutil.EnvBaseURL: baseURL,
		cmdutil.EnvAPIKey:  key,
	}}
}

func (h *harness) sleep(ctx context.Context, d time.Duration) error {
	h.mu.Lock()
	h.sleeps = append(h.sleeps, d)
	h.mu.Unlock()
	return ctx.Err()
}

type runOpts struct {
	stdin string
	tty   bool // stdin, stdout and stderr are terminals
	color bool // with tty: colour allowed (NO_COLOR unset)
	// ctx, when set, is the command's parent context: ending it is Ctrl-C.
	ctx context.Context
	// setup, when set, changes the streams before the run (a prompt's
	// answer).
	setup func(*iostreams.IOStreams)
}

func (h *harness) run(args ...string) result { return h.runWith(runOpts{}, args...) }

func (h *harness) runWith(o runOpts, args ...string) result {
	h.t.Helper()
	ios, out, errOut := iostreams.Test(o.stdin)
	if o.tty {
		ios.StdinTTY, ios.StdoutTTY, ios.StderrTTY, ios.Width = true, true, true, 100
		ios.NoColor = !o.color
	}
	if o.setup != nil {
		o.setup(ios)
	}
	f := &cmdutil.Factory{
		IOStreams:         ios,
		Version:           "1.2.3-test",
		Commit:            "0123abc",
		Date:              "2026-11-01T10:00:00Z",
		Getenv:            func(k string) string { return h.env[k] },
		Now:               func() time.Time { return testNow },
		ClientOptions:     []client.Option{client.WithSleep(h.sleep)},
		CompletionTimeout: h.completionTimeout,
		Context:           o.ctx,
	}
	code := commands.Run(args, f)
	return result{code, out.String(), errOut.String()}
}

// expect checks the exit status.
func (r result) expect(t *testing.T, code int) result {
	t.Helper()
	if r.code != code {
		t.Fatalf("want exit %d, got %s", code, r)
	}
	return r
}

// stubAPI answers from canned routes and records every request.
type stubAPI struct {
	*httptest.Server
	mux  *http.ServeMux
	mu   sync.Mutex
	reqs []stubReq
}

type stubReq struct {
	Method, Path, Query, Body string
	Header                    http.Header
}

func (r stubReq) String() string {
	s := r.Method + " " + r.Path
	if r.Query != "" {
		s += "?" + r.Query
	}
	if r.Body != "" {
		s += " " + r.Body
	}
	return s
}

func newStubAPI(t *testing.T) *stubAPI {
	s := &stubAPI{mux: http.NewServeMux()}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		if r.URL.Path != "/public-api/keys/current" { // the scope check before a change (no route here: 404)
			s.mu.Lock()
			s.reqs = append(s.reqs, stubReq{r.Method, r.URL.Path, r.URL.RawQuery, string(b), r.Header.Clone()})
			s.mu.Unlock()
		}
		s.mux.ServeHTTP(w, r)
	}))
	t.Cleanup(s.Close)
	return s
}

// handle answers pattern with status and body (JSON when it starts with { or [).
func (s *stubAPI) handle(pattern string, status int, body string, header ...string) {
	s.mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
		for i := 0; i+1 < len(header); i += 2 {
			w.Header().Set(header[i], header[i+1])
		}
		if strings.HasPrefix(body, "{") || strings.HasPrefix(body, "[") {
			w.Header().Set("Content-Type", "application/json")
		}
		w.WriteHeader(status)
		io.WriteString(w, body)
	})
}

// requests are the requests received but the GET /public-api/trainers
// that a table of trainees adds to name trainers (allRequests has it).
func (s *stubAPI) requests() []stubReq {
	var out []stubReq
	for _, r := range s.allRequests() {
		if r.Method == http.MethodGet && r.Path == "/public-api/trainers" {
			continue
		}
		out = append(out, r)
	}
	return out
}

func (s *stubAPI) allRequests() []stubReq {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]stubReq(nil), s.reqs...)
}

// requestLines are the requests as "METHOD PATH?QUERY BODY", without the
// trainers' read (see requests).
func (s *stubAPI) requestLines() []string {
	var l []string
	for _, r := range s.requests() {
		l = append(l, r.String())
	}
	return l
}

// traineeJSON is a full trainee representation.
func traineeJSON(id int64, name, email string, enabled bool) string {
	return fmt.Sprintf(`{"id":%d,"userId":%d,"name":%q,"email":%q,"username":%q,"phoneNumber":null,"dateOfBirth":null,"expirationDate":null,"enabled":%t,"companyId":1,"trainerId":7,"createdByType":"ADMIN","forcePasswordChange":true,"weightUnit":"KG","authorities":["TRAINEE","USER"],"lastTrained":null}`,
		id, id+1000, name, email, email, enabled)
}

func envelope(trainee string) string {
	return fmt.Sprintf(`{"timestamp":%d,"trainee":%s}`, testNow.Unix(), trainee)
}

func equalLines(t *testing.T, what string, got, want []string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("%s:\n got %q\nwant %q", what, got, want)
	}
}
