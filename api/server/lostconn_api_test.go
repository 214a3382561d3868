package server_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/server"
	"github.com/traineed/traineed/store"
	"github.com/traineed/traineed/store/storetest"
)

// TestLostConnectionGETs ends the store's PostgreSQL backends under GET
// loops, three rounds, as the attack run did (it saw five empty 500s):
// every read is answered 200, the hot path's (the key lookup, GET by id)
// and bun's (search, lists, the feed) alike.
func TestLostConnectionGETs(t *testing.T) {
	s := storetest.Postgres(t)
	e := newEnv(t, s)
	tr := e.create(e.keyA, newTraineeBody("Lost Connection"))
	paths := []string{
		fmt.Sprintf("/public-api/trainees/%d", tr.ID),
		"/public-api/trainees/search?q=lost",
		"/public-api/trainees/search?status=all&size=50",
		"/public-api/trainees/stats",
		"/public-api/trainers",
		"/public-api/webhooks",
		"/public-api/automations",
		"/public-api/events",
		"/public-api/keys/current",
	}
	get := func(path string) *resp { return e.do("GET", path, e.keyA, nil) }

	// One at a time: each read right after its backends ended, on
	// connections used within the second (which pgx does not ping).
	for _, p := range paths {
		get(p).expect(t, 200)
		get(p).expect(t, 200)
		if n := storetest.TerminateBackends(t, s); n == 0 {
			t.Fatal("no backend to end")
		}
		get(p).expect(t, 200)
	}

	// Under load: four loops of GETs while the backends are ended three
	// times. A round waits until every loop has served two requests
	// since the last (so one that started after it), whatever the
	// machine's speed: a request and its retry never meet two rounds.
	var (
		stop   atomic.Bool
		wg     sync.WaitGroup
		mu     sync.Mutex
		failed []string
		served [4]atomic.Int64
	)
	for w := range served {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; !stop.Load(); i++ {
				p := paths[i%len(paths)]
				r := doOn(t, e.srv.URL, "GET", p, e.keyA, nil, nil)
				served[w].Add(1)
				if r.Status != 200 {
					mu.Lock()
					failed = append(failed, fmt.Sprintf("%s: %d %s", p, r.Status, r.Body))
					mu.Unlock()
				}
			}
		}()
	}
	settle := func() {
		var base [len(served)]int64
		for w := range served {
			base[w] = served[w].Load()
		}
		for w := range served {
			for served[w].Load() < base[w]+2 {
				time.Sleep(5 * time.Millisecond)
			}
		}
	}
	total := func() (n int64) {
		for w := range served {
			n += served[w].Load()
		}
		return n
	}
	for range 3 {
		settle()
		storetest.TerminateBackends(t, s)
	}
	settle()
	stop.Store(true)
	wg.Wait()
	if len(failed) > 0 {
		t.Fatalf("%d of %d GETs failed while the backends were ended: %v", len(failed), total(), failed)
	}
}

// lossy is the real store whose search and create meet a lost connection
// (the driver's error for a terminated backend) as many times as lose
// says: what the server does with the error, not how the store came to it.
type lossy struct {
	*store.Store
	lose     atomic.Int32
	searches atomic.Int32
	creates  atomic.Int32
}

var errTerminated = &pgconn.PgError{Severity: "FATAL", Code: "57P01", Message: "terminating connection due to administrator command"}

func (l *lossy) SearchTrainees(ctx context.Context, companyID int64, q api.Search) ([]*api.Trainee, int64, error) {
	l.searches.Add(1)
	if l.lose.Add(-1) >= 0 {
		return nil, 0, fmt.Errorf("search: %w", errTerminated)
	}
	return l.Store.SearchTrainees(ctx, companyID, q)
}

func (l *lossy) CreateTrainee(ctx context.Context, companyID int64, nt api.NewTrainee) (*api.Trainee, error) {
	t, _, err := l.CreateTraineeVersion(ctx, companyID, nt)
	return t, err
}

func (l *lossy) CreateTraineeVersion(ctx context.Context, companyID int64, nt api.NewTrainee) (*api.Trainee, int64, error) {
	l.creates.Add(1)
	if l.lose.Add(-1) >= 0 {
		return nil, 0, errTerminated
	}
	return l.Store.CreateTraineeVersion(ctx, companyID, nt)
}

// TestLostConnectionAnswers: a GET that meets a lost connection is run
// again once (200); twice is a 503 with errorCode 1037 and Retry-After,
// never an empty 500; a write is not run again (503 at once).
func TestLostConnectionAnswers(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		l := &lossy{Store: s}
		e := newEnv(t, s)
		e.srv = httptest.NewServer(server.NewHandler(l, server.WithHasher(cheapHasher), server.WithClock(func() time.Time { return fixedNow })))
		t.Cleanup(e.srv.Close)
		e.create(e.keyA, newTraineeBody("Lossy One"))

		l.lose.Store(1)
		l.searches.Store(0)
		r := e.do("GET", "/public-api/trainees/search?q=lossy", e.keyA, nil).expect(t, 200)
		var page struct{ Page api.PageInfo }
		r.JSON(t, &page)
		if page.Page.TotalElements != 1 || l.searches.Load() != 2 {
			t.Fatalf("search after one lost connection: %d found, %d runs; want 1 found in 2 runs", page.Page.TotalElements, l.searches.Load())
		}

		l.lose.Store(2)
		l.searches.Store(0)
		r = e.do("GET", "/public-api/trainees/search?q=lossy", e.keyA, nil).expect(t, http.StatusServiceUnavailable)
		expectUnavailable(t, r)
		if n := l.searches.Load(); n != 2 {
			t.Fatalf("search ran %d times, want 2 (one retry)", n)
		}
		r = e.do("HEAD", "/public-api/trainees/search?q=lossy", e.keyA, nil)
		if r.Status != 200 {
			t.Fatalf("HEAD after the losses: %d", r.Status)
		}

		l.lose.Store(1)
		body := newTraineeBody("Lossy Two")
		r = e.do("POST", "/public-api/trainees", e.keyA, body).expect(t, http.StatusServiceUnavailable)
		expectUnavailable(t, r)
		if n := l.creates.Load(); n != 2 { // the first create above, and this one, not retried
			t.Fatalf("create ran %d times, want 2", n)
		}
		if n := storetest.Count(t, s, "users", "email = ?", body["email"]); n != 0 {
			t.Fatalf("%d rows stored for the refused create", n)
		}
	})
}

func expectUnavailable(t *testing.T, r *resp) {
	t.Helper()
	var b api.ErrorBody
	r.JSON(t, &b)
	if b.ErrorCode != api.CodeUnavailable || r.Header.Get("Retry-After") != "1" {
		t.Fatalf("want errorCode %d with Retry-After: 1, got %s %v", api.CodeUnavailable, r.Body, r.Header)
	}
}
