package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/server"
	"github.com/traineed/traineed/store"
	"github.com/traineed/traineed/store/storetest"
)

// fixedNow is the clock of every API test: 21-11-2026 23:30 UTC, which is
// already 22-11-2026 in Auckland (company B's zone).
var fixedNow = time.Date(2026, 11, 21, 23, 30, 0, 0, time.UTC)

var cheapHasher = server.NewHasher(server.PasswordParams{MemoryKiB: 64, Time: 1, Threads: 1})

// env is a running server over a real store with two companies.
type env struct {
	t        testing.TB
	store    *store.Store
	handler  *server.Handler
	srv      *httptest.Server
	keyA     string
	keyB     string
	companyA int64
	companyB int64
	trainerA []int64 // company A's trainers, lowest id first
	trainerB int64
}

// newEnv starts the handler over s: company A (UTC, two trainers) and
// company B (Pacific/Auckland, one trainer), each with a key.
func newEnv(t testing.TB, s *store.Store, opts ...server.Option) *env {
	t.Helper()
	ctx := context.Background()
	e := &env{t: t, store: s}
	a, err := s.CreateCompany(ctx, "Company A", "UTC")
	must(t, err)
	b, err := s.CreateCompany(ctx, "Company B", "Pacific/Auckland")
	must(t, err)
	e.companyA, e.companyB = a.ID, b.ID
	for i, email := range []string{"coach1@a.example", "coach2@a.example"} {
		tr, err := s.CreateTrainer(ctx, a.ID, "Coach "+string(rune('1'+i)), email)
		must(t, err)
		e.trainerA = append(e.trainerA, tr.ID)
	}
	tb, err := s.CreateTrainer(ctx, b.ID, "Coach B", "coach@b.example")
	must(t, err)
	e.trainerB = tb.ID
	e.keyA = e.newKey(a.ID)
	e.keyB = e.newKey(b.ID)
	h := server.NewHandler(s, append([]server.Option{server.WithHasher(cheapHasher), server.WithOutbound(storetest.LoopbackOutbound()), server.WithClock(func() time.Time { return fixedNow })}, opts...)...)
	e.handler = h
	e.srv = httptest.NewServer(h)
	t.Cleanup(e.srv.Close)
	return e
}

func (e *env) newKey(company int64) string {
	e.t.Helper()
	k := api.GenerateKey()
	_, err := e.store.CreateKey(context.Background(), company, "test", api.HashKey(k), api.KeyDisplayPrefix(k))
	must(e.t, err)
	return k
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// resp is a response read whole.
type resp struct {
	Status int
	Header http.Header
	Body   []byte
}

// JSON decodes the body into v.
func (r *resp) JSON(t testing.TB, v any) {
	t.Helper()
	if err := json.Unmarshal(r.Body, v); err != nil {
		t.Fatalf("body %q: %v", r.Body, err)
	}
}

// do sends a request with key (none when "") and a body (a string sent as
// is, anything else as JSON), validates the response against openapi.yaml
// and returns it.
func (e *env) do(method, path, key string, body any) *resp {
	e.t.Helper()
	return doOn(e.t, e.srv.URL, method, path, key, body, nil)
}

func doOn(t testing.TB, base, method, path, key string, body any, header http.Header) *resp {
	t.Helper()
	var rd io.Reader
	var raw []byte
	switch b := body.(type) {
	case nil:
	case string:
		raw = []byte(b)
	case []byte:
		raw = b
	default:
		var err error
		raw, err = json.Marshal(b)
		must(t, err)
	}
	if raw != nil {
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequest(method, base+path, rd)
	must(t, err)
	if key != "" {
		req.Header.Set("X-API-Key", key)
	}
	if raw != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range header {
		req.Header[k] = v
	}
	res, err := http.DefaultClient.Do(req)
	must(t, err)
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	must(t, err)
	r := &resp{Status: res.StatusCode, Header: res.Header, Body: b}
	validateResponse(t, req, raw, r)
	return r
}

// expect fails unless r has status want.
func (r *resp) expect(t testing.TB, want int) *resp {
	t.Helper()
	if r.Status != want {
		t.Fatalf("status %d, want %d; body %s", r.Status, want, r.Body)
	}
	return r
}

// trainee decodes a trainee envelope.
func (r *resp) trainee(t testing.TB) *api.Trainee {
	t.Helper()
	var env api.TraineeEnvelope
	r.JSON(t, &env)
	if env.Trainee == nil || env.Timestamp != fixedNow.Unix() {
		t.Fatalf("not a trainee envelope at the fixed time: %s", r.Body)
	}
	return env.Trainee
}

// expectError asserts a 400 whose first error has code and field.
func (r *resp) expectError(t testing.TB, code int, field string) api.ErrorBody {
	t.Helper()
	r.expect(t, http.StatusBadRequest)
	var b api.ErrorBody
	r.JSON(t, &b)
	if b.ErrorCode != code || b.Field != field {
		t.Fatalf("error %d on %q, want %d on %q: %s", b.ErrorCode, b.Field, code, field, r.Body)
	}
	if len(b.Errors) == 0 || b.Errors[0].ErrorCode != code || b.Errors[0].Field != field || b.Errors[0].Message != b.Message {
		t.Fatalf("errors list does not start with the top-level error: %s", r.Body)
	}
	return b
}

// expectNotFound asserts the 500 of an id outside the caller's company.
func (r *resp) expectNotFound(t testing.TB) {
	t.Helper()
	r.expect(t, http.StatusInternalServerError)
	if len(r.Body) != 0 || r.Header.Get("X-Error-Reason") != "trainee-not-found" {
		t.Fatalf("want an empty 500 marked trainee-not-found, got %q %v", r.Body, r.Header)
	}
}

var seq struct {
	sync.Mutex
	n int
}

// newTraineeBody returns a valid create body with a unique e-mail.
func newTraineeBody(name string) map[string]any {
	seq.Lock()
	seq.n++
	n := seq.n
	seq.Unlock()
	return map[string]any{
		"name":     name,
		"email":    strings.ToLower(strings.ReplaceAll(name, " ", ".")) + "." + strconv.Itoa(n) + "@example.com",
		"password": "correct horse",
	}
}

// create makes a trainee in company of key and returns it.
func (e *env) create(key string, body map[string]any) *api.Trainee {
	e.t.Helper()
	return e.do("POST", "/public-api/trainees", key, body).expect(e.t, 200).trainee(e.t)
}

// each runs fn on SQLite and PostgreSQL with a fresh env.
func each(t *testing.T, fn func(t *testing.T, e *env)) {
	storetest.Each(t, func(t *testing.T, s *store.Store) { fn(t, newEnv(t, s)) })
}
