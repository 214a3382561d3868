package client_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/client"
	"github.com/traineed/traineed/api/server"
	"github.com/traineed/traineed/store"
	"github.com/traineed/traineed/store/storetest"
)

// A create whose first answer is lost (the server created the trainee,
// then the connection dropped) is retried with the same Idempotency-Key,
// and the real server replays its answer: the client gets the trainee, not
// a 1008, and there is one trainee.
func TestCreateRetryAfterLostAnswerIsReplayed(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		co, err := s.CreateCompany(ctx, "Lost", "UTC")
		if err != nil {
			t.Fatal(err)
		}
		storetest.MustTrainer(t, s, co.ID, "Coach", "coach@lost.example")
		key := api.GenerateKey()
		if _, err := s.CreateKey(ctx, co.ID, "k", api.HashKey(key), api.KeyDisplayPrefix(key)); err != nil {
			t.Fatal(err)
		}
		h := server.NewHandler(s, server.WithHasher(server.NewHasher(server.PasswordParams{MemoryKiB: 64, Time: 1, Threads: 1})))
		var n atomic.Int32
		var keys [2]string
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			i := n.Add(1)
			if i <= 2 {
				keys[i-1] = r.Header.Get(api.HeaderIdempotencyKey) + "|" + r.Header.Get(api.HeaderRequestID)
			}
			if i == 1 {
				h.ServeHTTP(httptest.NewRecorder(), r) // served, answer lost
				panic(http.ErrAbortHandler)
			}
			h.ServeHTTP(w, r)
		}))
		defer srv.Close()
		sl := &sleeper{}
		c := client.New(srv.URL, key, client.WithSleep(sl.sleep))
		tr, err := c.CreateTrainee(ctx, api.CreateRequest{Name: "Lost Answer", Email: "lost@example.com", Password: "correct horse"})
		if err != nil {
			t.Fatalf("retried create: %v", err)
		}
		if tr.Email != "lost@example.com" || n.Load() != 2 {
			t.Fatalf("trainee %+v after %d attempts", tr, n.Load())
		}
		if k, rid, _ := strings.Cut(keys[0], "|"); keys[0] != keys[1] || k == "" || k != rid {
			t.Fatalf("attempts carried %q and %q: want the same Idempotency-Key, the request id", keys[0], keys[1])
		}
		if c := storetest.Count(t, s, "trainees", "company_id = ?", co.ID); c != 1 {
			t.Fatalf("%d trainees", c)
		}
	})
}
