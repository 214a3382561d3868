package server_test

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/server"
	"github.com/traineed/traineed/store"
	"github.com/traineed/traineed/store/storetest"
)

// TestMetricsCountRequestsByPattern scrapes /metrics after known traffic:
// every request is counted once under its route pattern, method and
// status, and no label carries an id, a key or an e-mail.
func TestMetricsCountRequestsByPattern(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		reg := prometheus.NewRegistry()
		e := newEnv(t, s, server.WithMetrics(server.NewMetrics(reg, reg), true))
		body := newTraineeBody("Metric Person")
		tr := e.create(e.keyA, body)
		path := "/public-api/trainees/" + strconv.FormatInt(tr.ID, 10)
		for range 3 {
			e.do("GET", path, e.keyA, nil).expect(t, 200)
		}
		e.do("GET", path, e.keyB, nil).expect(t, 500)                       // another company's trainee: the interface's not-found is a 500
		e.do("GET", path, "", nil).expect(t, 401)                           // no key
		e.do("GET", "/public-api/nothing-here", e.keyA, nil).expect(t, 404) // no route
		e.do("DELETE", "/healthz", "", nil).expect(t, 405)
		e.do("GET", "/healthz", "", nil).expect(t, 200)

		scrape := e.do("GET", "/metrics", "", nil).expect(t, 200)
		text := string(scrape.Body)
		if ct := scrape.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain") {
			t.Errorf("Content-Type %q", ct)
		}
		// The unknown trainee's 500 is the compatibility answer, told
		// from a fault by its reason.
		want := map[string]string{
			`traineed_http_requests_total{method="POST",pattern="POST /public-api/trainees",reason="none",status="200"}`:                 "1",
			`traineed_http_requests_total{method="GET",pattern="GET /public-api/trainees/{id}",reason="none",status="200"}`:              "3",
			`traineed_http_requests_total{method="GET",pattern="GET /public-api/trainees/{id}",reason="trainee_not_found",status="500"}`: "1",
			`traineed_http_requests_total{method="GET",pattern="/public-api/",reason="none",status="401"}`:                               "1",
			`traineed_http_requests_total{method="GET",pattern="unmatched",reason="none",status="404"}`:                                  "1",
			`traineed_http_requests_total{method="DELETE",pattern="unmatched",reason="none",status="405"}`:                               "1",
			`traineed_http_requests_total{method="GET",pattern="GET /healthz",reason="none",status="200"}`:                               "1",
			`traineed_http_request_duration_seconds_count{method="GET",pattern="GET /public-api/trainees/{id}"}`:                         "4",
			`traineed_password_hash_queue_wait_seconds_count`:                                                                            "1",
		}
		got := map[string]string{}
		for _, line := range strings.Split(text, "\n") {
			if i := strings.LastIndexByte(line, ' '); i > 0 && !strings.HasPrefix(line, "#") {
				got[line[:i]] = line[i+1:]
			}
		}
		for series, n := range want {
			if got[series] != n {
				t.Errorf("%s = %q, want %s", series, got[series], n)
			}
		}
		// Only the scrape itself is not counted yet; nothing else is there.
		total := 0
		for series, v := range got {
			if strings.HasPrefix(series, "traineed_http_requests_total{") {
				n, _ := strconv.Atoi(v)
				total += n
			}
		}
		if total != 9 {
			t.Errorf("%d requests counted, want 9:\n%s", total, text)
		}
		for _, secret := range []string{e.keyA, e.keyB, body["email"].(string), path, "company_id"} {
			if strings.Contains(text, secret) {
				t.Errorf("the metrics carry %q", secret)
			}
		}
	})
}

// A request whose client went away before its answer is logged and
// counted as 499, not as a server error (500).
func TestAbandonedRequestIs499(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		reg := prometheus.NewRegistry()
		var logs bytes.Buffer
		var mu sync.Mutex
		e := newEnv(t, s, server.WithMetrics(server.NewMetrics(reg, reg), true),
			server.WithLogger(slog.New(slog.NewJSONHandler(lockedWriter{&mu, &logs}, nil))))
		tr := e.create(e.keyA, newTraineeBody("Gone Client"))
		ctx, cancel := context.WithCancel(context.Background())
		cancel() // the client is gone before the store is asked
		req := httptest.NewRequest("GET", "/public-api/trainees/"+strconv.FormatInt(tr.ID, 10), nil).WithContext(ctx)
		req.Header.Set(api.HeaderAPIKey, e.keyA)
		e.handler.ServeHTTP(httptest.NewRecorder(), req)

		text := string(e.do("GET", "/metrics", "", nil).expect(t, 200).Body)
		if !regexp.MustCompile(`traineed_http_requests_total\{[^}]*status="499"\} 1\n`).MatchString(text) {
			t.Errorf("no request counted as 499:\n%s", grepLines(text, "traineed_http_requests_total"))
		}
		if strings.Contains(text, `status="500"`) {
			t.Errorf("the abandoned request was counted as a 500:\n%s", grepLines(text, "traineed_http_requests_total"))
		}
		mu.Lock()
		defer mu.Unlock()
		if !strings.Contains(logs.String(), `"msg":"request abandoned by client"`) || !strings.Contains(logs.String(), `"status":499`) {
			t.Errorf("access log:\n%s", logs.String())
		}
	})
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}

func grepLines(text, prefix string) string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, prefix) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
