package client_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/client"
	"github.com/traineed/traineed/store/storetest"
)

const testKey = "pk_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMN"

func readTestdata(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// stub is an httptest server that answers with the next response of a
// script and records every request.
type stub struct {
	*httptest.Server
	mu       sync.Mutex
	requests []recorded
	handler  func(n int, w http.ResponseWriter, r *http.Request)
}

type recorded struct {
	Method, Path, Query string
	Header              http.Header
	Body                []byte
}

func newStub(t *testing.T, h func(n int, w http.ResponseWriter, r *http.Request)) *stub {
	s := &stub{handler: h}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		s.requests = append(s.requests, recorded{r.Method, r.URL.Path, r.URL.RawQuery, r.Header.Clone(), body})
		n := len(s.requests)
		s.mu.Unlock()
		s.handler(n, w, r)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *stub) attempts() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.requests)
}

func (s *stub) request(i int) recorded {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.requests[i]
}

// sleeper records the delays asked for instead of sleeping.
type sleeper struct {
	mu     sync.Mutex
	delays []time.Duration
	hook   func(n int)
}

func (s *sleeper) sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	s.delays = append(s.delays, d)
	n := len(s.delays)
	s.mu.Unlock()
	if s.hook != nil {
		s.hook(n)
	}
	return ctx.Err()
}

func newTestClient(base string, sl *sleeper, opts ...client.Option) *client.Client {
	return client.New(base, testKey, append([]client.Option{client.WithSleep(sl.sleep)}, opts...)...)
}

func TestDecodeEnvelopeVariants(t *testing.T) {
	dob := api.Date{Year: 1990, Month: 3, Day: 2}
	exp := api.Date{Year: 2026, Month: 12, Day: 31}
	trainer := int64(7)
	phone := "+447700900123"
	base := api.Trainee{ID: 41, UserID: 977, Name: "Ada Park", Email: "ada@example.com", Username: "ada@example.com",
		PhoneNumber: &phone, Enabled: true, CompanyID: 3, TrainerID: &trainer, CreatedByType: "ADMIN",
		ForcePasswordChange: true, WeightUnit: "KG"}

	a := base
	a.DateOfBirth, a.ExpirationDate = &dob, &exp
	b := base
	b.Authorities = []string{"TRAINEE", "USER"}
	full := base
	full.DateOfBirth, full.Authorities = &dob, []string{"TRAINEE", "USER"}

	for _, tc := range []struct {
		file   string
		want   api.Trainee
		isDate bool
		unix   int64
	}{
		{"envelope_a.json", a, true, 0},
		{"envelope_b.json", b, false, 1795255200},
		{"envelope_full.json", full, false, 1795255200},
	} {
		t.Run(tc.file, func(t *testing.T) {
			got, ts, err := client.DecodeTraineeEnvelope(readTestdata(t, tc.file))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(*got, tc.want) {
				t.Errorf("trainee:\n got %+v\nwant %+v", *got, tc.want)
			}
			if ts.IsDate != tc.isDate || ts.Unix != tc.unix {
				t.Errorf("timestamp = %+v", ts)
			}
			if tc.isDate && ts.Date != (api.Date{Year: 2026, Month: 11, Day: 21}) {
				t.Errorf("timestamp date = %v", ts.Date)
			}
		})
	}
	if _, _, err := client.DecodeTraineeEnvelope([]byte(`{"timestamp":1}`)); err == nil {
		t.Error("an envelope without trainee decoded")
	}
	if _, _, err := client.DecodeTraineeEnvelope([]byte(`{"timestamp":true,"trainee":{}}`)); err == nil {
		t.Error("a boolean timestamp decoded")
	}
}

// Both variants come through the client's calls too.
func TestClientDecodesBothVariants(t *testing.T) {
	bodies := [][]byte{readTestdata(t, "envelope_a.json"), readTestdata(t, "envelope_b.json")}
	s := newStub(t, func(n int, w http.ResponseWriter, r *http.Request) {
		w.Write(bodies[(n-1)%2])
	})
	c := newTestClient(s.URL, &sleeper{})
	ctx := context.Background()
	ta, err := c.CreateTrainee(ctx, api.CreateRequest{Name: "Ada Park", Email: "ada@example.com", Password: "secret-pass"})
	if err != nil {
		t.Fatal(err)
	}
	if ta.ExpirationDate == nil || ta.ExpirationDate.String() != "31-12-2026" || ta.Authorities != nil {
		t.Errorf("variant A: %+v", ta)
	}
	tb, err := c.Trainee(ctx, 41)
	if err != nil {
		t.Fatal(err)
	}
	if tb.DateOfBirth != nil || len(tb.Authorities) != 2 || tb.ID != 41 {
		t.Errorf("variant B: %+v", tb)
	}
}

func TestRequestsOfEveryCall(t *testing.T) {
	files := map[string]string{
		"/public-api/trainees":                   "envelope_full.json",
		"/public-api/trainees/41":                "envelope_full.json",
		"/public-api/trainees/search":            "search.json",
		"/public-api/trainees/41/weight-history": "weight.json",
		"/public-api/trainees/41/measurements":   "measurements.json",
		"/public-api/trainees/41/nutrition":      "nutrition.json",
		"/public-api/trainees/41/average-steps":  "steps.json",
	}
	s := newStub(t, func(n int, w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write(readTestdata(t, files[r.URL.Path]))
	})
	c := newTestClient(s.URL+"/", &sleeper{}, client.WithUserAgent("traineectl/1.2.3"))
	ctx := context.Background()
	phone := "+447700900123"
	d := func(s string) api.Date { v, _ := api.ParseDate(s); return v }

	if _, err := c.CreateTrainee(ctx, api.CreateRequest{Name: "Ada", Email: "ada@example.com", Password: "secret-pass", PhoneNumber: &phone}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Trainee(ctx, 41); err != nil {
		t.Fatal(err)
	}
	if _, err := c.UpdateTrainee(ctx, 41, api.TraineePatch{Name: api.Val("Ada P"), ExpirationDate: api.Null[api.Date]()}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.DeleteTrainee(ctx, 41); err != nil {
		t.Fatal(err)
	}
	if _, err := c.UpdateTrainee(ctx, 41, api.TraineePatch{Enabled: api.Val(true)}); err != nil {
		t.Fatal(err)
	}
	pg, err := c.SearchTrainees(ctx, client.SearchParams{Query: "ada park", Status: "all", Page: 2, Size: 5, Sort: "name,desc"})
	if err != nil {
		t.Fatal(err)
	}
	if len(pg.Content) != 1 || pg.Content[0].LastTrained.String() != "20-11-2026" || pg.Page.TotalElements != 1 || pg.Timestamp != 1795255200 {
		t.Errorf("page = %+v", pg)
	}
	wh, err := c.WeightHistory(ctx, 41, client.TrackedRange{From: d("23-10-2026"), To: d("21-11-2026")})
	if err != nil {
		t.Fatal(err)
	}
	if wh.Unit != "KG" || len(wh.Entries) != 2 || wh.Entries[0].Weight != 81.4 || wh.Entries[1].Date != d("02-11-2026") || wh.TraineeID != 41 {
		t.Errorf("weight = %+v", wh)
	}
	ms, err := c.Measurements(ctx, 41, client.TrackedRange{}, "WAIST")
	if err != nil {
		t.Fatal(err)
	}
	if len(ms.Measurements) != 2 || *ms.Measurements[0].Name != "Wrist" || ms.Measurements[1].Name != nil || ms.Measurements[1].Value != 82 {
		t.Errorf("measurements = %+v", ms)
	}
	nu, err := c.Nutrition(ctx, 41, d("01-11-2026"))
	if err != nil {
		t.Fatal(err)
	}
	if len(nu.Meals) != 1 || nu.Meals[0].Items[0].Name != "Oats" || nu.Totals.Calories != 300 || nu.Meals[0].Totals.Carbs != 54 {
		t.Errorf("nutrition = %+v", nu)
	}
	st, err := c.AverageSteps(ctx, 41)
	if err != nil {
		t.Fatal(err)
	}
	if st.AverageSteps == nil || *st.AverageSteps != 8421 || st.DaysWithData != 5 || st.From != d("15-11-2026") {
		t.Errorf("steps = %+v", st)
	}

	want := []struct{ method, path, query, body string }{
		{"POST", "/public-api/trainees", "", `{"name":"Ada","email":"ada@example.com","password":"secret-pass","phoneNumber":"+447700900123"}`},
		{"GET", "/public-api/trainees/41", "", ""},
		{"PUT", "/public-api/trainees/41", "", `{"name":"Ada P","expirationDate":null}`},
		{"DELETE", "/public-api/trainees/41", "", ""},
		{"PUT", "/public-api/trainees/41", "", `{"enabled":true}`},
		{"GET", "/public-api/trainees/search", "page=2&q=ada+park&size=5&sort=name%2Cdesc&status=all", ""},
		{"GET", "/public-api/trainees/41/weight-history", "from=23-10-2026&to=21-11-2026", ""},
		{"GET", "/public-api/trainees/41/measurements", "type=WAIST", ""},
		{"GET", "/public-api/trainees/41/nutrition", "date=01-11-2026", ""},
		{"GET", "/public-api/trainees/41/average-steps", "", ""},
	}
	if s.attempts() != len(want) {
		t.Fatalf("%d requests, want %d", s.attempts(), len(want))
	}
	ids := map[string]bool{}
	for i, w := range want {
		r := s.request(i)
		if r.Method != w.method || r.Path != w.path || r.Query != w.query || string(r.Body) != w.body {
			t.Errorf("request %d = %s %s?%s %s, want %s %s?%s %s", i, r.Method, r.Path, r.Query, r.Body, w.method, w.path, w.query, w.body)
		}
		if got := r.Header.Get("X-API-Key"); got != testKey {
			t.Errorf("request %d: X-API-Key %q", i, got)
		}
		if got := r.Header.Get("User-Agent"); got != "traineectl/1.2.3" {
			t.Errorf("request %d: User-Agent %q", i, got)
		}
		ct := r.Header.Get("Content-Type")
		if (w.body != "") != (ct == "application/json") {
			t.Errorf("request %d: Content-Type %q with body %q", i, ct, w.body)
		}
		id := r.Header.Get("X-Request-Id")
		if !regexp.MustCompile(`^[0-9a-f]{32}$`).MatchString(id) || ids[id] {
			t.Errorf("request %d: X-Request-Id %q (new per call, 32 hex)", i, id)
		}
		ids[id] = true
	}
}

func TestTraineeUpdateSendsOnlySetFields(t *testing.T) {
	for _, tc := range []struct {
		u    api.TraineePatch
		want string
	}{
		{api.TraineePatch{}, `{}`},
		{api.TraineePatch{PhoneNumber: api.Null[string](), DateOfBirth: api.Null[api.Date](), ExpirationDate: api.Null[api.Date]()},
			`{"phoneNumber":null,"dateOfBirth":null,"expirationDate":null}`},
		{api.TraineePatch{ExpirationDate: api.Val(api.Date{Year: 2027, Month: 1, Day: 31}), TrainerID: api.Val(int64(7)),
			WeightUnit: api.Val("LB"), Enabled: api.Val(false), ForcePasswordChange: api.Val(false), Password: api.Val("new-password"), Email: api.Val("a@b.co")},
			`{"email":"a@b.co","password":"new-password","expirationDate":"31-01-2027","trainerId":7,"weightUnit":"LB","enabled":false,"forcePasswordChange":false}`},
	} {
		b, err := json.Marshal(tc.u)
		if err != nil {
			t.Fatal(err)
		}
		if string(b) != tc.want {
			t.Errorf("got %s, want %s", b, tc.want)
		}
		if tc.u.IsEmpty() != (tc.want == "{}") {
			t.Errorf("IsEmpty wrong for %s", tc.want)
		}
	}
}

func TestSearchAllFollowsPages(t *testing.T) {
	s := newStub(t, func(n int, w http.ResponseWriter, r *http.Request) {
		page := r.URL.Query().Get("page")
		body := map[string]string{
			"":  `{"timestamp":1,"content":[{"id":1,"name":"A"},{"id":2,"name":"B"}],"page":{"size":2,"number":0,"totalElements":5,"totalPages":3}}`,
			"1": `{"timestamp":1,"content":[{"id":3,"name":"C"},{"id":4,"name":"D"}],"page":{"size":2,"number":1,"totalElements":5,"totalPages":3}}`,
			"2": `{"timestamp":1,"content":[{"id":5,"name":"E"}],"page":{"size":2,"number":2,"totalElements":5,"totalPages":3}}`,
		}[page]
		w.Write([]byte(body))
	})
	c := newTestClient(s.URL, &sleeper{})
	var resp client.Response
	all, err := client.Collect(c.ListTrainees(context.Background(), client.SearchParams{Size: 2}, client.WithResponse(&resp)))
	if err != nil {
		t.Fatal(err)
	}
	if last := resp.Page; len(all) != 5 || all[4].ID != 5 || last.Number != 2 || s.attempts() != 3 {
		t.Errorf("got %d trainees, last %+v, %d requests", len(all), last, s.attempts())
	}
	if q := s.request(0).Query; q != "size=2" {
		t.Errorf("first query %q", q)
	}
}

// TestSearchAllPastInexactTotals: a server that counts only up to a bound
// answers totalExact false with a lower-bound totalPages; --all reads on
// until a short page, and stops at a full last page only when the total is
// exact.
func TestSearchAllPastInexactTotals(t *testing.T) {
	for _, tc := range []struct {
		name  string
		n     int  // trainees in all
		exact bool // the last page's total is exact
		reqs  int
	}{
		{"short last page", 7, true, 4},
		{"full last page, exact", 8, true, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newStub(t, func(_ int, w http.ResponseWriter, r *http.Request) {
				page, _ := strconv.Atoi(r.URL.Query().Get("page"))
				var content []string
				for id := page*2 + 1; id <= min(tc.n, page*2+2); id++ {
					content = append(content, fmt.Sprintf(`{"id":%d}`, id))
				}
				// Like the server: below the end, a bound of the page's end plus one.
				total, exact := (page+1)*2+1, false
				if total > tc.n {
					total, exact = tc.n, tc.exact
				}
				fmt.Fprintf(w, `{"timestamp":1,"content":[%s],"page":{"size":2,"number":%d,"totalElements":%d,"totalPages":%d,"totalExact":%v}}`,
					strings.Join(content, ","), page, total, (total+1)/2, exact)
			})
			c := newTestClient(s.URL, &sleeper{})
			var resp client.Response
			all, err := client.Collect(c.ListTrainees(context.Background(), client.SearchParams{Size: 2}, client.WithResponse(&resp)))
			if err != nil {
				t.Fatal(err)
			}
			if last := resp.Page; len(all) != tc.n || all[tc.n-1].ID != int64(tc.n) || !last.TotalExact || s.attempts() != tc.reqs {
				t.Errorf("got %d trainees, last %+v, %d requests; want %d, %d requests", len(all), last, s.attempts(), tc.n, tc.reqs)
			}
		})
	}
}

func TestRetries(t *testing.T) {
	for _, tc := range []struct {
		name     string
		method   string
		respond  func(n int, w http.ResponseWriter)
		attempts int
		sleeps   []time.Duration
		check    func(t *testing.T, err error)
	}{
		{"500 is retried twice", "GET", func(n int, w http.ResponseWriter) { w.WriteHeader(500) }, 3,
			[]time.Duration{time.Second, 5 * time.Second}, func(t *testing.T, err error) {
				var se *client.ServerError
				if !errors.As(err, &se) || se.Status != 500 || se.Attempts != 3 {
					t.Errorf("err = %#v", err)
				}
			}},
		{"POST 503 is retried twice too", "POST", func(n int, w http.ResponseWriter) { w.WriteHeader(503) }, 3,
			[]time.Duration{time.Second, 5 * time.Second}, func(t *testing.T, err error) {
				var se *client.ServerError
				if !errors.As(err, &se) || se.Status != 503 {
					t.Errorf("err = %#v", err)
				}
			}},
		{"502 then 200 succeeds", "GET", func(n int, w http.ResponseWriter) {
			if n == 1 {
				w.WriteHeader(502)
				return
			}
			w.Write(readTestdata(t, "envelope_b.json"))
		}, 2, []time.Duration{time.Second}, func(t *testing.T, err error) {
			if err != nil {
				t.Errorf("err = %v", err)
			}
		}},
		{"500 trainee-not-found is not retried", "GET", func(n int, w http.ResponseWriter) {
			w.Header().Set("X-Error-Reason", "trainee-not-found")
			w.WriteHeader(500)
		}, 1, nil, func(t *testing.T, err error) {
			var nf *client.TraineeNotFoundError
			if !errors.As(err, &nf) || nf.ID != 41 || nf.Status != 500 || err.Error() != "trainee 41 not found" {
				t.Errorf("err = %#v", err)
			}
		}},
		{"400 is not retried", "POST", func(n int, w http.ResponseWriter) {
			w.WriteHeader(400)
			w.Write([]byte(`{"errorCode":1002,"message":"e-mail address is not valid","field":"email","errors":[{"errorCode":1002,"message":"e-mail address is not valid","field":"email"},{"errorCode":1003,"message":"password too short","field":"password"}]}`))
		}, 1, nil, func(t *testing.T, err error) {
			var re *client.RejectedError
			if !errors.As(err, &re) || re.Status != 400 || re.ErrorCode != 1002 || re.Field != "email" || len(re.Errors) != 2 || re.Errors[1].ErrorCode != 1003 {
				t.Fatalf("err = %#v", err)
			}
			if want := "request rejected (1002): email: e-mail address is not valid (and 1 more)"; re.Error() != want {
				t.Errorf("message %q, want %q", re.Error(), want)
			}
		}},
		{"413 is not retried", "POST", func(n int, w http.ResponseWriter) { w.WriteHeader(413) }, 1, nil, func(t *testing.T, err error) {
			var re *client.RejectedError
			if !errors.As(err, &re) || re.Status != 413 || re.ErrorCode != 0 {
				t.Errorf("err = %#v", err)
			}
		}},
		{"401 is not retried", "GET", func(n int, w http.ResponseWriter) { w.WriteHeader(401) }, 1, nil, func(t *testing.T, err error) {
			var ae *client.AuthRefusedError
			if !errors.As(err, &ae) || ae.Status != 401 {
				t.Errorf("err = %#v", err)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newStub(t, func(n int, w http.ResponseWriter, r *http.Request) { tc.respond(n, w) })
			sl := &sleeper{}
			c := newTestClient(s.URL, sl)
			var err error
			if tc.method == "POST" {
				_, err = c.CreateTrainee(context.Background(), api.CreateRequest{Name: "A", Email: "a@b.co", Password: "secret-pass"})
			} else {
				_, err = c.Trainee(context.Background(), 41)
			}
			tc.check(t, err)
			if s.attempts() != tc.attempts {
				t.Errorf("%d attempts, want %d", s.attempts(), tc.attempts)
			}
			if !reflect.DeepEqual(sl.delays, tc.sleeps) {
				t.Errorf("slept %v, want %v", sl.delays, tc.sleeps)
			}
			id := s.request(0).Header.Get("X-Request-Id")
			for i := 1; i < s.attempts(); i++ {
				if got := s.request(i).Header.Get("X-Request-Id"); got != id {
					t.Errorf("attempt %d has request id %q, first %q", i+1, got, id)
				}
				if !bytes.Equal(s.request(i).Body, s.request(0).Body) {
					t.Errorf("attempt %d sent body %q, first %q", i+1, s.request(i).Body, s.request(0).Body)
				}
			}
		})
	}
}

func TestConnectionRefusedIsRetried(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	var dials int
	var mu sync.Mutex
	hc := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, network, a string) (net.Conn, error) {
		mu.Lock()
		dials++
		mu.Unlock()
		return (&net.Dialer{}).DialContext(ctx, network, a)
	}}}
	sl := &sleeper{}
	c := newTestClient("http://"+addr, sl, client.WithHTTPClient(hc))
	_, err = c.Trainee(context.Background(), 41)
	var ne *client.NetworkError
	if !errors.As(err, &ne) || ne.Attempts != 3 {
		t.Fatalf("err = %#v", err)
	}
	if dials != 3 {
		t.Errorf("%d connection attempts, want 3", dials)
	}
	if !reflect.DeepEqual(sl.delays, []time.Duration{time.Second, 5 * time.Second}) {
		t.Errorf("slept %v", sl.delays)
	}
}

func TestContextCancelStopsRetries(t *testing.T) {
	s := newStub(t, func(n int, w http.ResponseWriter, r *http.Request) { w.WriteHeader(500) })
	ctx, cancel := context.WithCancel(context.Background())
	sl := &sleeper{hook: func(int) { cancel() }}
	c := newTestClient(s.URL, sl)
	_, err := c.Trainee(ctx, 41)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	if s.attempts() != 1 {
		t.Errorf("%d attempts after cancel, want 1", s.attempts())
	}
}

// The real sleep returns as soon as the context ends.
func TestContextCancelInterruptsRealWait(t *testing.T) {
	s := newStub(t, func(n int, w http.ResponseWriter, r *http.Request) { w.WriteHeader(503) })
	ctx, cancel := context.WithCancel(context.Background())
	c := client.New(s.URL, testKey, client.WithRetryDelays(time.Hour))
	done := make(chan error, 1)
	go func() { _, err := c.Trainee(ctx, 1); done <- err }()
	for s.attempts() == 0 {
		time.Sleep(time.Millisecond)
	}
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the wait before a retry ignored the cancelled context")
	}
}

func TestContextCancelDuringRequest(t *testing.T) {
	release := make(chan struct{})
	s := newStub(t, func(n int, w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	defer close(release)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	sl := &sleeper{}
	_, err := newTestClient(s.URL, sl).Trainee(ctx, 1)
	if !errors.Is(err, context.DeadlineExceeded) || len(sl.delays) != 0 {
		t.Errorf("err = %v, slept %v", err, sl.delays)
	}
}

func TestSupportLog(t *testing.T) {
	s := newStub(t, func(n int, w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Method == "POST":
			w.WriteHeader(400)
			w.Write([]byte(`{"errorCode":1008,"message":"e-mail address is already in use","field":"email","errors":[]}`))
		case n == 2:
			w.WriteHeader(503)
		default:
			w.Write(readTestdata(t, "envelope_b.json"))
		}
	})
	var log bytes.Buffer
	zone := time.FixedZone("CET", 3600)
	clock := time.Date(2026, 11, 21, 10, 30, 0, 0, zone)
	c := newTestClient(s.URL, &sleeper{}, client.WithSupportLog(&log), client.WithClock(func() time.Time { return clock }))
	_, err := c.CreateTrainee(context.Background(), api.CreateRequest{Name: "Ada", Email: "ada@example.com", Password: "hunter2-secret"})
	if err == nil {
		t.Fatal("want a 400")
	}
	if _, err := c.Trainee(context.Background(), 41); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(log.String()), "\n")
	if len(lines) != 3 {
		t.Fatalf("%d lines, want one per attempt (3):\n%s", len(lines), log.String())
	}
	for i, want := range []string{
		`^time=2026-11-21T10:30:00\.000\+01:00 level=ERROR msg=request request_id=[0-9a-f]{32} attempt=1 method=POST url=http://127\.0\.0\.1:\d+/public-api/trainees status=400 error_code=1008 duration_ms=0 request_body="\{.*\}" response_body="\{\\"errorCode\\":1008.*"$`,
		`^time=2026-11-21T10:30:00\.000\+01:00 level=ERROR msg=request request_id=([0-9a-f]{32}) attempt=1 method=GET url=http://127\.0\.0\.1:\d+/public-api/trainees/41 status=503 duration_ms=0 response_body=""$`,
		`^time=2026-11-21T10:30:00\.000\+01:00 level=INFO msg=request request_id=([0-9a-f]{32}) attempt=2 method=GET url=http://127\.0\.0\.1:\d+/public-api/trainees/41 status=200 duration_ms=0 response_body=".*\\"authorities\\".*"$`,
	} {
		if !regexp.MustCompile(want).MatchString(lines[i]) {
			t.Errorf("line %d:\n%s\ndoes not match\n%s", i+1, lines[i], want)
		}
	}
	if id := regexp.MustCompile(`request_id=(\w+)`); id.FindStringSubmatch(lines[1])[1] != id.FindStringSubmatch(lines[2])[1] {
		t.Error("a retry logged another request id")
	}
	if strings.Contains(log.String(), testKey) || strings.Contains(log.String(), testKey[3:]) {
		t.Error("the API key is in the log")
	}
	if strings.Contains(log.String(), "hunter2") {
		t.Error("the password is in the log")
	}
	if !strings.Contains(lines[0], `\"password\":\"***\"`) {
		t.Errorf("the password is not shown redacted: %s", lines[0])
	}
}

func TestSupportLogNetworkError(t *testing.T) {
	var log bytes.Buffer
	c := newTestClient("http://127.0.0.1:1", &sleeper{}, client.WithSupportLog(&log), client.WithRetryDelays())
	if _, err := c.Trainee(context.Background(), 3); err == nil {
		t.Fatal("want an error")
	}
	line := strings.TrimSpace(log.String())
	if strings.Count(line, "\n") != 0 || !strings.Contains(line, " status=0 ") || !strings.Contains(line, `error="`) ||
		!strings.Contains(line, "url=http://127.0.0.1:1/public-api/trainees/3") {
		t.Errorf("line: %s", line)
	}
}

func TestVerboseMasksSecrets(t *testing.T) {
	s := newStub(t, func(n int, w http.ResponseWriter, r *http.Request) {
		w.Write(readTestdata(t, "envelope_b.json"))
	})
	var v bytes.Buffer
	c := newTestClient(s.URL, &sleeper{}, client.WithVerbose(&v))
	if _, err := c.UpdateTrainee(context.Background(), 41, api.TraineePatch{Password: api.Val("hunter2-secret")}); err != nil {
		t.Fatal(err)
	}
	out := v.String()
	for _, want := range []string{"> PUT " + s.URL + "/public-api/trainees/41", "> X-API-Key: pk_abcde…", `> {"password":"***"}`, "< 200 OK", `"authorities"`} {
		if !strings.Contains(out, want) {
			t.Errorf("verbose output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, testKey) || strings.Contains(out, "hunter2") {
		t.Errorf("verbose output shows a secret:\n%s", out)
	}
}

func TestRedactBody(t *testing.T) {
	got := string(client.RedactBody([]byte(`{"name":"A","password":"x","nested":[{"Password":"y"}]}`)))
	if got != `{"name":"A","nested":[{"Password":"***"}],"password":"***"}` {
		t.Errorf("got %s", got)
	}
	if got := string(client.RedactBody([]byte("not json"))); got != "not json" {
		t.Errorf("got %s", got)
	}
}

func TestMaskKey(t *testing.T) {
	if got := client.MaskKey(testKey); got != "pk_abcde…" {
		t.Errorf("got %q", got)
	}
	if got := client.MaskKey("short"); got != "*****" {
		t.Errorf("got %q", got)
	}
}

// A server that accepts the connection but never answers costs one attempt
// timeout per attempt, and the attempts are retried like a connection
// failure.
func TestAttemptTimeoutNoAnswer(t *testing.T) {
	sl := &sleeper{}
	c := newTestClient(storetest.SilentServer(t), sl, client.WithAttemptTimeout(50*time.Millisecond))
	done := make(chan error, 1)
	go func() { _, err := c.Trainee(context.Background(), 41); done <- err }()
	var err error
	select {
	case err = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the call hung although the attempt timeout is 50ms")
	}
	var ne *client.NetworkError
	if !errors.As(err, &ne) || ne.Attempts != 3 {
		t.Fatalf("err = %#v, want a NetworkError after 3 attempts", err)
	}
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "no answer within 50ms") {
		t.Errorf("err = %v", err)
	}
	if !reflect.DeepEqual(sl.delays, []time.Duration{time.Second, 5 * time.Second}) {
		t.Errorf("slept %v, want the retry delays", sl.delays)
	}
}

// The timeout also covers reading the body: headers that arrive but a body
// that never ends time out too.
func TestAttemptTimeoutCoversBody(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	s := newStub(t, func(n int, w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "100")
		w.WriteHeader(200)
		w.(http.Flusher).Flush()
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	sl := &sleeper{}
	_, err := newTestClient(s.URL, sl, client.WithAttemptTimeout(50*time.Millisecond)).Trainee(context.Background(), 1)
	var ne *client.NetworkError
	if !errors.As(err, &ne) || ne.Attempts != 3 || s.attempts() != 3 {
		t.Fatalf("err = %#v after %d attempts", err, s.attempts())
	}
}

// A caller's own deadline is not an attempt timeout: it ends the call at
// once, without retries.
func TestCallerDeadlineIsNotRetried(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	sl := &sleeper{}
	_, err := newTestClient(storetest.SilentServer(t), sl, client.WithAttemptTimeout(time.Hour)).Trainee(ctx, 1)
	if !errors.Is(err, context.DeadlineExceeded) || len(sl.delays) != 0 {
		t.Errorf("err = %v, slept %v", err, sl.delays)
	}
	var ne *client.NetworkError
	if errors.As(err, &ne) {
		t.Errorf("err = %v is a NetworkError", err)
	}
}

// The client reads the draft's RateLimit-Policy and RateLimit fields of
// the latest answer that had them.
func TestRateLimitFields(t *testing.T) {
	for _, c := range []struct {
		policy, state string
		want          client.RateLimit
		ok            bool
	}{
		{`"per-key";q=100;w=5`, `"per-key";r=99;t=1`, client.RateLimit{Policy: "per-key", Quota: 100, Window: 5, Remaining: 99, Reset: 1}, true},
		{`"per-key";q=100;w=5, "day";q=1000;w=86400`, `"per-key";r=0;t=5`, client.RateLimit{Policy: "per-key", Quota: 100, Window: 5, Remaining: 0, Reset: 5}, true},
		{`"per-key";q=100;w=5`, `"other";r=1;t=1`, client.RateLimit{}, false},
		{``, `"per-key";r=1;t=1`, client.RateLimit{}, false},
		{`"per-key";q=x`, `"per-key";r=1;t=1`, client.RateLimit{}, false},
		{`"per-key";w=5`, `"per-key";r=1;t=1`, client.RateLimit{}, false},
	} {
		got, ok := client.ParseRateLimit(c.policy, c.state)
		if ok != c.ok || got != c.want {
			t.Errorf("client.ParseRateLimit(%q, %q) = %+v, %v; want %+v, %v", c.policy, c.state, got, ok, c.want, c.ok)
		}
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("RateLimit-Policy", `"per-key";q=100;w=5`)
		w.Header().Set("RateLimit", `"per-key";r=42;t=3`)
		_, _ = w.Write([]byte(`{"timestamp": 1, "trainers": []}`))
	}))
	defer srv.Close()
	c := client.New(srv.URL, "pk_x")
	var resp client.Response
	if _, err := c.Trainers(context.Background(), client.TrainerParams{}, client.WithResponse(&resp)); err != nil {
		t.Fatal(err)
	}
	if rl := resp.RateLimit; rl == nil || rl.Remaining != 42 || rl.Quota != 100 || rl.Reset != 3 {
		t.Fatalf("Response.RateLimit = %+v", rl)
	}
}

// A rejection names its field once, also when the server's message starts
// with it already ("action.url: destination not allowed ...").
func TestRejectedErrorNamesTheFieldOnce(t *testing.T) {
	for _, c := range []struct {
		body api.ErrorBody
		want string
	}{
		{api.ErrorBody{ErrorCode: 1002, Message: "e-mail address is not valid", Field: "email"}, "request rejected (1002): email: e-mail address is not valid"},
		{api.ErrorBody{ErrorCode: 1018, Message: "action.url: destination not allowed (loopback address 127.0.0.1)", Field: "action.url"},
			"request rejected (1018): action.url: destination not allowed (loopback address 127.0.0.1)"},
		{api.ErrorBody{ErrorCode: 1007, Message: "name is too long", Field: "name"}, "request rejected (1007): name: name is too long"},
	} {
		if got := (&client.RejectedError{ErrorBody: c.body}).Error(); got != c.want {
			t.Errorf("%+v: %q, want %q", c.body, got, c.want)
		}
	}
}
