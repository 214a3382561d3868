package server_test

import (
	"bytes"
	"context"
	"fmt"
	"github.com/prometheus/client_golang/prometheus"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/server"
	"github.com/traineed/traineed/store"
	"github.com/traineed/traineed/store/storetest"
)

// Two servers on one PostgreSQL: a key disabled through one is refused by
// the other on its very next request.
func TestRevocationAcrossInstances(t *testing.T) {
	dsn := storetest.PostgresURL(t)
	ctx := context.Background()
	open := func() *store.Store {
		s, err := store.Open(ctx, dsn)
		must(t, err)
		t.Cleanup(func() { s.Close() })
		return s
	}
	s1, s2 := open(), open()
	co, err := s1.CreateCompany(ctx, "Shared", "UTC")
	must(t, err)
	storetest.MustTrainer(t, s1, co.ID, "Coach", "coach@shared.example")
	key := api.GenerateKey()
	k, err := s1.CreateKey(ctx, co.ID, "shared", api.HashKey(key), api.KeyDisplayPrefix(key))
	must(t, err)
	srv1 := httptest.NewServer(server.NewHandler(s1, server.WithHasher(cheapHasher)))
	srv2 := httptest.NewServer(server.NewHandler(s2, server.WithHasher(cheapHasher)))
	defer srv1.Close()
	defer srv2.Close()
	// GET by id reads the key and the trainee in one statement: the same
	// holds for it.
	tr := storetest.MustCreate(t, s1, co.ID, storetest.NewTrainee("Shared Trainee", "shared@example.com"))
	byID := fmt.Sprintf("/public-api/trainees/%d", tr.ID)
	for _, base := range []string{srv1.URL, srv2.URL} {
		doOn(t, base, "GET", "/public-api/trainees/search", key, nil, nil).expect(t, 200)
		doOn(t, base, "GET", byID, key, nil, nil).expect(t, 200)
	}
	// Disabled through instance 1's store: instance 2 refuses it at once.
	must(t, s1.SetKeyDisabled(ctx, k.ID, true))
	doOn(t, srv2.URL, "GET", "/public-api/trainees/search", key, nil, nil).expect(t, 401)
	doOn(t, srv1.URL, "GET", "/public-api/trainees/search", key, nil, nil).expect(t, 401)
	doOn(t, srv2.URL, "GET", byID, key, nil, nil).expect(t, 401)
	must(t, s2.SetKeyDisabled(ctx, k.ID, false))
	doOn(t, srv1.URL, "GET", "/public-api/trainees/search", key, nil, nil).expect(t, 200)
	doOn(t, srv1.URL, "GET", byID, key, nil, nil).expect(t, 200)
	must(t, s2.DeleteKey(ctx, k.ID))
	doOn(t, srv1.URL, "GET", "/public-api/trainees/search", key, nil, nil).expect(t, 401)
	doOn(t, srv1.URL, "GET", byID, key, nil, nil).expect(t, 401)
}

// panicky is the real store with one method that panics: the read of
// GET /trainees/{id} when the key's statement did not find it.
type panicky struct{ *store.Store }

func (panicky) TraineeVersion(context.Context, int64, int64) (*api.Trainee, int64, error) {
	panic("boom")
}

func TestPanicAndAccessLog(t *testing.T) {
	s := storetest.SQLite(t)
	ctx := context.Background()
	co, err := s.CreateCompany(ctx, "Logs", "UTC")
	must(t, err)
	storetest.MustTrainer(t, s, co.ID, "Coach", "coach@logs.example")
	key := api.GenerateKey()
	_, err = s.CreateKey(ctx, co.ID, "k", api.HashKey(key), api.KeyDisplayPrefix(key))
	must(t, err)
	var logs bytes.Buffer
	reg := prometheus.NewRegistry()
	h := server.NewHandler(panicky{s}, server.WithHasher(cheapHasher), server.WithLogger(slog.New(slog.NewJSONHandler(&logs, nil))),
		server.WithMetrics(server.NewMetrics(reg, reg), true))
	srv := httptest.NewServer(h)
	defer srv.Close()

	r := doOn(t, srv.URL, "GET", "/public-api/trainees/1", key, nil, http.Header{"X-Request-Id": {"req-panic-1"}})
	if r.Status != 500 || len(r.Body) != 0 || r.Header.Get("X-Error-Reason") != "" {
		t.Fatalf("panic gave %d %q %v", r.Status, r.Body, r.Header)
	}
	doOn(t, srv.URL, "POST", "/public-api/trainees", key, map[string]any{"name": "Log Me", "email": "log@example.com", "password": "super secret pw"}, nil).expect(t, 200)
	out := logs.String()
	// A fault is counted and logged as one, apart from the compatibility
	// 500 of an unknown trainee.
	scrape := string(doOn(t, srv.URL, "GET", "/metrics", "", nil, nil).Body)
	if !strings.Contains(scrape, `traineed_http_requests_total{method="GET",pattern="GET /public-api/trainees/{id}",reason="fault",status="500"} 1`) {
		t.Errorf("the fault is not counted as one:\n%s", scrape)
	}
	for _, want := range []string{`"msg":"panic"`, `"request_id":"req-panic-1"`, `"status":500`, `"path":"/public-api/trainees/1"`, `"reason":"fault"`,
		`"method":"POST"`, fmt.Sprintf(`"company_id":%d`, co.ID), `"duration_ms":`} {
		if !strings.Contains(out, want) {
			t.Errorf("log lacks %s:\n%s", want, out)
		}
	}
	for _, secret := range []string{key, "super secret pw", "log@example.com"} {
		if strings.Contains(out, secret) {
			t.Errorf("log contains %q", secret)
		}
	}
}

// Keys changed over the API through one instance are refused by another
// over the same PostgreSQL on its very next request: a rotated key's old
// secret once the overlap ends (0 here), an expired key, a revoked key;
// the new secret works at once everywhere.
func TestKeyChangesAcrossInstances(t *testing.T) {
	dsn := storetest.PostgresURL(t)
	ctx := context.Background()
	open := func() *store.Store {
		s, err := store.Open(ctx, dsn)
		must(t, err)
		t.Cleanup(func() { s.Close() })
		return s
	}
	s1, s2 := storetest.Open(t, dsn), open()
	co, err := s1.CreateCompany(ctx, "Shared Keys", "UTC")
	must(t, err)
	storetest.MustTrainer(t, s1, co.ID, "Coach", "coach@sharedkeys.example")
	owner := api.GenerateKey()
	_, err = s1.CreateScopedKey(ctx, co.ID, "owner", api.KeyScopeAdmin, api.HashKey(owner), api.KeyDisplayPrefix(owner))
	must(t, err)
	srv1 := httptest.NewServer(server.NewHandler(s1, server.WithHasher(cheapHasher)))
	srv2 := httptest.NewServer(server.NewHandler(s2, server.WithHasher(cheapHasher)))
	defer srv1.Close()
	defer srv2.Close()
	tr := storetest.MustCreate(t, s1, co.ID, storetest.NewTrainee("Shared Keys", "sharedkeys@example.com"))
	byID := fmt.Sprintf("/public-api/trainees/%d", tr.ID)
	works := func(base, key string, want int) {
		t.Helper()
		doOn(t, base, "GET", "/public-api/trainees/search", key, nil, nil).expect(t, want)
		doOn(t, base, "GET", byID, key, nil, nil).expect(t, want)
	}
	made := doOn(t, srv1.URL, "POST", api.PathKeys, owner, map[string]any{"name": "crm", "scope": "full"}, nil).expect(t, 200).key(t)
	works(srv2.URL, made.Secret, 200)
	rot := doOn(t, srv1.URL, "POST", keyPath(made.Key.ID, "/rotate"), owner, map[string]any{"overlapSeconds": 0}, nil).expect(t, 200).key(t)
	works(srv2.URL, made.Secret, 401)
	works(srv2.URL, rot.Secret, 200)
	_, err = storetest.DB(t, s1).NewRaw("UPDATE api_keys SET expires_at = ? WHERE id = ?", time.Now().Add(-time.Second).UTC(), made.Key.ID).Exec(ctx)
	must(t, err)
	works(srv2.URL, rot.Secret, 401)
	works(srv1.URL, rot.Secret, 401)
	doOn(t, srv2.URL, "PATCH", keyPath(made.Key.ID, ""), owner, map[string]any{"expiresAt": nil}, nil).expect(t, 200)
	works(srv1.URL, rot.Secret, 200)
	doOn(t, srv2.URL, "DELETE", keyPath(made.Key.ID, ""), owner, nil, nil).expect(t, 200)
	works(srv1.URL, rot.Secret, 401)
	works(srv2.URL, rot.Secret, 401)
}
