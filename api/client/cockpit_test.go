package client_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/client"
	"github.com/traineed/traineed/api/server"
	"github.com/traineed/traineed/store"
	"github.com/traineed/traineed/store/storetest"
)

// realServer is the handler over s for a new company with a key, behind
// wrap (nil: none), and a client of it that never sleeps.
func realServer(t *testing.T, s *store.Store, wrap func(h http.Handler) http.Handler) (*client.Client, int64) {
	t.Helper()
	ctx := context.Background()
	co, err := s.CreateCompany(ctx, "Cockpit", "UTC")
	if err != nil {
		t.Fatal(err)
	}
	storetest.MustTrainer(t, s, co.ID, "Coach", "coach@cockpit.example")
	key := api.GenerateKey()
	if _, err := s.CreateKey(ctx, co.ID, "k", api.HashKey(key), api.KeyDisplayPrefix(key)); err != nil {
		t.Fatal(err)
	}
	var h http.Handler = server.NewHandler(s, server.WithHasher(server.NewHasher(server.PasswordParams{MemoryKiB: 64, Time: 1, Threads: 1})))
	if wrap != nil {
		h = wrap(h)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return client.New(srv.URL, key, client.WithSleep((&sleeper{}).sleep)), co.ID
}

// TestIfMatch: the ETag of a read (WithResponse) makes an update or a
// delete conditional (IfMatch); a stale one is a *PreconditionFailedError
// and changes nothing.
func TestIfMatch(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		c, _ := realServer(t, s, nil)
		tr, err := c.CreateTrainee(ctx, api.CreateRequest{Name: "If Match", Email: "ifmatch@example.com", Password: "correct horse"})
		if err != nil {
			t.Fatal(err)
		}
		_, etag, err := readETag(ctx, c, tr.ID)
		if err != nil || etag != `"1"` {
			t.Fatalf("read: %q %v", etag, err)
		}
		got, etag2, err := updateIf(ctx, c, tr.ID, etag, api.TraineePatch{Name: api.Val("If Matched")})
		if err != nil || etag2 != `"2"` || got.Name != "If Matched" {
			t.Fatalf("update: %+v %q %v", got, etag2, err)
		}
		_, _, err = updateIf(ctx, c, tr.ID, etag, api.TraineePatch{Name: api.Val("Stale")})
		var pf *client.PreconditionFailedError
		var rej *client.RejectedError
		if !errors.As(err, &pf) || pf.ID != tr.ID || pf.ErrorCode != api.CodePreconditionFailed || !errors.As(err, &rej) {
			t.Fatalf("stale update: %T %v", err, err)
		}
		now, etag3, err := readETag(ctx, c, tr.ID)
		if err != nil || now.Name != "If Matched" || etag3 != etag2 {
			t.Fatalf("after the 412: %+v %q %v", now, etag3, err)
		}
		// Without an ETag: the plain update.
		if _, etag4, err := updateIf(ctx, c, tr.ID, "", api.TraineePatch{Name: api.Val("Last Write")}); err != nil || etag4 != `"3"` {
			t.Fatalf("unconditional: %q %v", etag4, err)
		}
		// A delete with a stale ETag deletes nothing; with the current one
		// it deletes.
		if _, err := c.DeleteTrainee(ctx, tr.ID, client.IfMatch(etag2)); !errors.As(err, &pf) {
			t.Fatalf("stale delete: %T %v", err, err)
		}
		if now, _, err := readETag(ctx, c, tr.ID); err != nil || !now.Enabled {
			t.Fatalf("after the stale delete: %+v %v", now, err)
		}
		if gone, err := c.DeleteTrainee(ctx, tr.ID, client.IfMatch(`"3"`)); err != nil || gone.Enabled {
			t.Fatalf("delete: %+v %v", gone, err)
		}
	})
}

// TestIdempotencyKeyNeverAppliesTwice: an update whose answer is lost
// is retried by the client with the same key and replayed; a later run
// with the same key (another request id) gets the first answer too.
func TestIdempotencyKeyNeverAppliesTwice(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		var n, lose atomic.Int32
		var mu sync.Mutex
		var keys []string
		lastKeys := func() []string { mu.Lock(); defer mu.Unlock(); return append([]string(nil), keys...) }
		c, company := realServer(t, s, func(h http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Method == http.MethodPut || r.Method == http.MethodDelete {
					n.Add(1)
					mu.Lock()
					keys = append(keys, r.Header.Get(api.HeaderIdempotencyKey))
					mu.Unlock()
					if lose.Add(-1) >= 0 {
						h.ServeHTTP(httptest.NewRecorder(), r) // served, answer lost
						panic(http.ErrAbortHandler)
					}
				}
				h.ServeHTTP(w, r)
			})
		})
		tr, err := c.CreateTrainee(ctx, api.CreateRequest{Name: "Idem Put", Email: "idemput@example.com", Password: "correct horse"})
		if err != nil {
			t.Fatal(err)
		}
		_, etag, _ := readETag(ctx, c, tr.ID)
		lose.Store(1)
		key := client.IdempotencyKey("action-7:1")
		p := api.TraineePatch{ExpirationDate: api.Val(api.Date{Year: 2030, Month: 1, Day: 31})}
		got, etag2, err := updateIf(ctx, c, tr.ID, etag, p, key)
		if err != nil || etag2 != `"2"` || got.ExpirationDate == nil {
			t.Fatalf("retried update: %+v %q %v", got, etag2, err)
		}
		if keys := lastKeys(); n.Load() != 2 || keys[0] != "action-7:1" || keys[1] != "action-7:1" {
			t.Fatalf("%d attempts with keys %q", n.Load(), keys)
		}
		// A re-run of the action: same key, the first answer.
		if _, etag3, err := updateIf(ctx, c, tr.ID, etag, p, key); err != nil || etag3 != `"2"` {
			t.Fatalf("re-run: %q %v", etag3, err)
		}
		if _, etag4, _ := readETag(ctx, c, tr.ID); etag4 != `"2"` {
			t.Fatalf("applied more than once: ETag %q", etag4)
		}
		if c := storetest.Count(t, s, "webhook_events", "company_id = ? AND trainee_id = ?", company, tr.ID); c != 2 {
			t.Fatalf("%d events: want the create and one update", c)
		}
		// Without IdempotencyKey a PUT carries its request id.
		if _, err := c.UpdateTrainee(ctx, tr.ID, api.TraineePatch{Name: api.Val("Plain")}); err != nil {
			t.Fatal(err)
		}
		if keys := lastKeys(); keys[len(keys)-1] == "" || keys[len(keys)-1] == "action-7:1" {
			k := keys[len(keys)-1]
			t.Fatalf("plain PUT's key %q", k)
		}
	})
}

// TestTraineeStatsAndFilters: the client reads the counts, and sends the
// filters a search query string gives.
func TestTraineeStatsAndFilters(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		c, _ := realServer(t, s, nil)
		for _, e := range []string{"a@example.com", "b@example.com"} {
			if _, err := c.CreateTrainee(ctx, api.CreateRequest{Name: "Stat", Email: e, Password: "correct horse"}); err != nil {
				t.Fatal(err)
			}
		}
		st, err := c.TraineeStats(ctx, 0)
		// Created today and never trained: new, not inactive yet.
		if err != nil || st.Active != 2 || st.New7 != 2 || st.Inactive14 != 0 || st.Timestamp == 0 {
			t.Fatalf("stats %+v %v", st, err)
		}
		p, err := client.ParseSearchQuery("?status=active&inactiveFor=14d&createdSince=7d")
		if err != nil || p.InactiveFor != 14 || p.CreatedWithin != 7 || p.Status != "active" {
			t.Fatalf("parsed %+v %v", p, err)
		}
		var resp client.Response
		if all, err := client.Collect(c.ListTrainees(ctx, p)); err != nil || len(all) != 0 {
			t.Fatalf("inactive for 14 days and created this week: %d %v", len(all), err) // none can be both
		}
		p.InactiveFor = 0
		all, err := client.Collect(c.ListTrainees(ctx, p, client.WithResponse(&resp)))
		if err != nil || len(all) != 2 || resp.Page.TotalElements != 2 {
			t.Fatalf("search %d %+v %v", len(all), resp.Page, err)
		}
		p.ExpiresWithin = 7
		if all, err = client.Collect(c.ListTrainees(ctx, p)); err != nil || len(all) != 0 {
			t.Fatalf("expiresWithin: %d %v", len(all), err)
		}
		for _, bad := range []string{"page=2", "status=expiring", "expiresWithin=soon"} {
			if _, err := client.ParseSearchQuery(bad); err == nil {
				t.Errorf("%s: no error", bad)
			}
		}
	})
}

// readETag reads a trainee and its ETag (WithResponse).
func readETag(ctx context.Context, c *client.Client, id int64) (*api.Trainee, string, error) {
	var r client.Response
	t, err := c.Trainee(ctx, id, client.WithResponse(&r))
	return t, r.ETag, err
}

// updateIf updates a trainee with IfMatch(etag) and returns its new ETag.
func updateIf(ctx context.Context, c *client.Client, id int64, etag string, p api.TraineePatch, opts ...client.RequestOption) (*api.Trainee, string, error) {
	var r client.Response
	t, err := c.UpdateTrainee(ctx, id, p, append(opts, client.IfMatch(etag), client.WithResponse(&r))...)
	return t, r.ETag, err
}

// TestResponseMetadata: WithResponse hands back what the real server's
// answer said: the request id it echoed, the ETag of a trainee, the key's
// rate limit, and on a 429 the status and Retry-After (after the client's
// own waits); an iterator's Response has the list's paging too.
func TestResponseMetadata(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		co, err := s.CreateCompany(ctx, "Metadata", "UTC")
		if err != nil {
			t.Fatal(err)
		}
		storetest.MustTrainer(t, s, co.ID, "Coach", "coach@meta.example")
		key := api.GenerateKey()
		if _, err := s.CreateKey(ctx, co.ID, "k", api.HashKey(key), api.KeyDisplayPrefix(key)); err != nil {
			t.Fatal(err)
		}
		// One a minute with a burst of 3: the fourth request is over (the
		// test never lasts the minute that gives one back).
		h := server.NewHandler(s, server.WithHasher(server.NewHasher(server.PasswordParams{MemoryKiB: 64, Time: 1, Threads: 1})),
			server.WithRateLimiter(server.NewMemoryLimiter(1, 3)))
		srv := httptest.NewServer(h)
		t.Cleanup(srv.Close)
		var n atomic.Int32
		c := client.New(srv.URL, key, client.WithSleep((&sleeper{}).sleep),
			client.WithRequestIDs(func() string { return fmt.Sprintf("meta-%d", n.Add(1)) }))

		var created client.Response
		tr, err := c.CreateTrainee(ctx, api.CreateRequest{Name: "Meta Data", Email: "meta@example.com", Password: "correct horse"}, client.WithResponse(&created))
		if err != nil {
			t.Fatal(err)
		}
		if created.Status != http.StatusCreated && created.Status != http.StatusOK || created.RequestID != "meta-1" || created.Attempts != 1 {
			t.Fatalf("create: %+v", created)
		}
		if rl := created.RateLimit; rl == nil || rl.Quota != 3 || rl.Remaining != 2 {
			t.Fatalf("create's rate limit: %+v", rl)
		}
		var read client.Response
		if _, err := c.Trainee(ctx, tr.ID, client.WithResponse(&read)); err != nil {
			t.Fatal(err)
		}
		if read.ETag != `"1"` || read.RequestID != "meta-2" || read.RateLimit == nil || read.RateLimit.Remaining != 1 || read.RetryAfter != 0 {
			t.Fatalf("read: %+v (rate limit %+v)", read, read.RateLimit)
		}
		var listed client.Response
		all, err := client.Collect(c.ListTrainees(ctx, client.SearchParams{Status: api.StatusAll}, client.WithResponse(&listed)))
		if err != nil || len(all) != 1 || listed.Pages != 1 || !listed.Counted || listed.Page.TotalElements != 1 || listed.More ||
			listed.RequestID != "meta-3" || listed.RateLimit == nil || listed.RateLimit.Remaining != 0 {
			t.Fatalf("list: %d rows, %+v, %v", len(all), listed, err)
		}
		// Over the limit: the client waits as the server says (here, not
		// at all: the test's sleeper) and gives up after its waits.
		var over client.Response
		_, err = c.Trainee(ctx, tr.ID, client.WithResponse(&over))
		var re *client.RejectedError
		if !errors.As(err, &re) || re.Status != http.StatusTooManyRequests {
			t.Fatalf("over the limit: %T %v", err, err)
		}
		if over.Status != http.StatusTooManyRequests || over.RetryAfter < time.Second || over.RateLimit == nil || over.RateLimit.Remaining != 0 || over.ETag != "" {
			t.Fatalf("429: %+v (rate limit %+v)", over, over.RateLimit)
		}
	})
}
