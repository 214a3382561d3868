package server_test

import (
	"context"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/store/storetest"
)

func ifMatch(tag string) http.Header { return http.Header{api.HeaderIfMatch: {tag}} }

// expectETag fails unless r carries the strong ETag of version.
func (r *resp) expectETag(t testing.TB, version int) {
	t.Helper()
	if got, want := r.Header.Get("ETag"), `"`+strconv.Itoa(version)+`"`; got != want {
		t.Fatalf("ETag %q, want %q", got, want)
	}
}

// expectPrecondition asserts the 412 of a stale If-Match.
func (r *resp) expectPrecondition(t testing.TB) {
	t.Helper()
	r.expect(t, http.StatusPreconditionFailed)
	var b api.ErrorBody
	r.JSON(t, &b)
	if b.ErrorCode != api.CodePreconditionFailed || b.Field != api.HeaderIfMatch || len(b.Errors) != 1 {
		t.Fatalf("412 body %s", r.Body)
	}
	if r.Header.Get("ETag") != "" {
		t.Fatalf("a 412 carries ETag %q", r.Header.Get("ETag"))
	}
}

// TestTraineeIfMatch: GET gives the version as ETag; a PUT or DELETE
// with a stale If-Match is a 412 that changes nothing; a matching one is a
// 200 with a new ETag; without If-Match the last write wins as before.
func TestTraineeIfMatch(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		tr := e.create(e.keyA, newTraineeBody("Etag Ada"))
		path := "/public-api/trainees/" + strconv.FormatInt(tr.ID, 10)
		get := func() *resp { return e.do("GET", path, e.keyA, nil).expect(t, 200) }
		get().expectETag(t, 1)

		put := func(h http.Header, body any) *resp { return doOn(t, e.srv.URL, "PUT", path, e.keyA, body, h) }
		r := put(ifMatch(`"1"`), map[string]any{"name": "Ada Second"}).expect(t, 200)
		r.expectETag(t, 2)
		if r.trainee(t).Name != "Ada Second" {
			t.Fatalf("matching PUT: %s", r.Body)
		}

		// A colleague's stale edit: 412, nothing changed.
		put(ifMatch(`"1"`), map[string]any{"name": "Stale Edit", "expirationDate": "01-01-2030"}).expectPrecondition(t)
		g := get()
		g.expectETag(t, 2)
		if got := g.trainee(t); got.Name != "Ada Second" || got.ExpirationDate != nil {
			t.Fatalf("a 412 changed the trainee: %s", g.Body)
		}

		// Without If-Match: the seed's behaviour, and the version moves.
		put(nil, map[string]any{"name": "Ada Third"}).expect(t, 200).expectETag(t, 3)
		// A PUT that changes nothing keeps the version.
		put(ifMatch(`"3"`), map[string]any{"name": "Ada Third"}).expect(t, 200).expectETag(t, 3)
		// Several tags, one of them current; *; a weak tag never matches.
		put(ifMatch(`"1", "3"`), map[string]any{"phoneNumber": "+44 7700 900123"}).expect(t, 200).expectETag(t, 4)
		put(ifMatch(`*`), map[string]any{"phoneNumber": nil}).expect(t, 200).expectETag(t, 5)
		put(ifMatch(`W/"5"`), map[string]any{"name": "Weak"}).expectPrecondition(t)
		put(ifMatch(`5`), map[string]any{"name": "Bare"}).expectError(t, api.CodeInvalidParameter, api.HeaderIfMatch)

		// DELETE and restore.
		doOn(t, e.srv.URL, "DELETE", path, e.keyA, nil, ifMatch(`"4"`)).expectPrecondition(t)
		if !get().trainee(t).Enabled {
			t.Fatal("a 412 DELETE deleted the trainee")
		}
		d := doOn(t, e.srv.URL, "DELETE", path, e.keyA, nil, ifMatch(`"5"`)).expect(t, 200)
		d.expectETag(t, 6)
		if d.trainee(t).Enabled {
			t.Fatal("DELETE did not delete")
		}
		put(ifMatch(`"5"`), map[string]any{"enabled": true}).expectPrecondition(t)
		put(ifMatch(`"6"`), map[string]any{"enabled": true}).expect(t, 200).expectETag(t, 7)

		// Another company's trainee stays the seed's 500, whatever If-Match says.
		doOn(t, e.srv.URL, "PUT", path, e.keyB, map[string]any{"name": "X"}, ifMatch(`"7"`)).expectNotFound(t)
	})
}

// TestIdempotentUpdateAndDelete: a PUT or DELETE repeated with its
// Idempotency-Key gets the first answer (and ETag) and never applies twice.
func TestIdempotentUpdateAndDelete(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		tr := e.create(e.keyA, newTraineeBody("Idem Bo"))
		path := "/public-api/trainees/" + strconv.FormatInt(tr.ID, 10)
		body := map[string]any{"expirationDate": "31-12-2027"}
		first := doOn(t, e.srv.URL, "PUT", path, e.keyA, body, http.Header{api.HeaderIdempotencyKey: {"act-1:put"}, api.HeaderIfMatch: {`"1"`}}).expect(t, 200)
		first.expectETag(t, 2)
		// The retry (its If-Match is now stale) is the first answer again.
		again := doOn(t, e.srv.URL, "PUT", path, e.keyA, body, http.Header{api.HeaderIdempotencyKey: {"act-1:put"}, api.HeaderIfMatch: {`"1"`}}).expect(t, 200)
		again.expectETag(t, 2)
		if again.Header.Get(api.HeaderIdempotentReplayed) != "true" || string(again.Body) != string(first.Body) {
			t.Fatalf("repeat not replayed: %v %s", again.Header, again.Body)
		}
		e.do("GET", path, e.keyA, nil).expect(t, 200).expectETag(t, 2) // applied once
		// Same key, another body: the idempotency conflict.
		doOn(t, e.srv.URL, "PUT", path, e.keyA, map[string]any{"expirationDate": "01-01-2028"},
			idemHeader("act-1:put")).expectError(t, api.CodeIdempotencyMismatch, api.HeaderIdempotencyKey)

		del := doOn(t, e.srv.URL, "DELETE", path, e.keyA, nil, idemHeader("act-1:delete")).expect(t, 200)
		del.expectETag(t, 3)
		e.do("PUT", path, e.keyA, map[string]any{"enabled": true}).expect(t, 200).expectETag(t, 4)
		// The delete retried after the restore: replayed, not applied again.
		re := doOn(t, e.srv.URL, "DELETE", path, e.keyA, nil, idemHeader("act-1:delete")).expect(t, 200)
		if re.Header.Get(api.HeaderIdempotentReplayed) != "true" || re.trainee(t).Enabled {
			t.Fatalf("repeated delete: %v %s", re.Header, re.Body)
		}
		re.expectETag(t, 3)
		g := e.do("GET", path, e.keyA, nil).expect(t, 200)
		g.expectETag(t, 4)
		if !g.trainee(t).Enabled {
			t.Fatal("a repeated DELETE deleted the restored trainee")
		}
		if n := storetest.Count(t, e.store, "webhook_events", "trainee_id = ?", tr.ID); n != 4 {
			t.Errorf("%d events for create, update, delete, restore: want 4", n)
		}
	})
}

// TestTraineeStatsEqualSearchTotals: each count of GET /trainees/stats is
// the total of its search (api.StatsQuery), over trainees placed on
// every edge of the definitions.
func TestTraineeStatsEqualSearchTotals(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		ctx := context.Background()
		today := api.DateOf(fixedNow) // company A is in UTC
		db := storetest.DB(t, e.store)
		type spec struct {
			expires     *int // days after today
			lastTrained *int // days before today
			createdAgo  int  // days before today (0: today)
			deleted     bool
		}
		n := func(i int) *int { return &i }
		specs := []spec{
			{}, {expires: n(0)}, {expires: n(1)}, {expires: n(7)}, {expires: n(8)}, {expires: n(30)}, {expires: n(31)},
			{expires: n(-1)}, {expires: n(-40)}, {lastTrained: n(13)}, {lastTrained: n(14)}, {lastTrained: n(0)},
			{createdAgo: 6}, {createdAgo: 7}, {createdAgo: 13}, {createdAgo: 14}, {createdAgo: 30}, {deleted: true}, {deleted: true, expires: n(3)},
			{expires: n(5), lastTrained: n(2), createdAgo: 2},
		}
		for i, sp := range specs {
			tr := e.create(e.keyA, newTraineeBody("Stats "+strconv.Itoa(i)))
			created := time.Date(today.Year, today.Month, today.Day, 12, 0, 0, 0, time.UTC).AddDate(0, 0, -sp.createdAgo)
			var lt, exp any
			if sp.lastTrained != nil {
				lt = today.AddDays(-*sp.lastTrained).Int()
			}
			if sp.expires != nil {
				exp = today.AddDays(*sp.expires).Int()
			}
			_, err := db.NewRaw("UPDATE trainees SET created_at = ?, last_trained = ?, expiration_date = ? WHERE id = ?",
				created, lt, exp, tr.ID).Exec(ctx)
			must(t, err)
			if sp.deleted {
				e.do("DELETE", "/public-api/trainees/"+strconv.FormatInt(tr.ID, 10), e.keyA, nil).expect(t, 200)
			}
		}
		e.create(e.keyB, newTraineeBody("Other Company")) // never counted for A
		var st api.TraineeStats
		e.do("GET", api.PathStats, e.keyA, nil).expect(t, 200).JSON(t, &st)
		// Inactive for 14+ days: trained 14 days ago, or never and
		// created 14 or 30 days ago (one created 13 days ago, or this
		// week, is not inactive yet).
		want := api.TraineeStats{Timestamp: fixedNow.Unix(), Active: 15, Expiring7: 3, Expiring30: 5, Expired: 3,
			Inactive14: 3, New7: 14, Deleted: 2}
		if st != want {
			t.Errorf("stats %+v, want %+v", st, want)
		}
		got := map[string]int{"active": st.Active, "expiringIn7Days": st.Expiring7, "expiringIn30Days": st.Expiring30,
			"expired": st.Expired, "inactive14Days": st.Inactive14, "newThisWeek": st.New7, "deleted": st.Deleted}
		for name, q := range api.StatsQuery {
			var page api.TraineePage
			e.do("GET", api.PathSearch+"?size=1&"+q, e.keyA, nil).expect(t, 200).JSON(t, &page)
			if int(page.Page.TotalElements) != got[name] || !page.Page.TotalExact {
				t.Errorf("%s: stats %d, search %s total %d", name, got[name], q, page.Page.TotalElements)
			}
		}
		if st.Active+st.Expired+st.Deleted != len(specs) {
			t.Errorf("active+expired+deleted = %d, want every trainee (%d)", st.Active+st.Expired+st.Deleted, len(specs))
		}
		// A read key may read the stats.
		e.do("GET", api.PathStats, e.readKey(e.companyA), nil).expect(t, 200)
		e.do("PUT", api.PathStats, e.keyA, map[string]any{}).expect(t, http.StatusMethodNotAllowed)
	})
}

// TestSearchFilters: the filters' edges, their validation, and a cursor
// that belongs to the filters of its search.
func TestSearchFilters(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		today := api.DateOf(fixedNow)
		for i, d := range []int{0, 2, 7, 8} {
			body := newTraineeBody("Filter " + strconv.Itoa(i))
			body["expirationDate"] = today.AddDays(d).String()
			e.create(e.keyA, body)
		}
		var page api.TraineePage
		e.do("GET", api.PathSearch+"?expiresWithin=7d", e.keyA, nil).expect(t, 200).JSON(t, &page)
		if page.Page.TotalElements != 3 { // today (expired), +2, +7
			t.Errorf("expiresWithin=7d: %d", page.Page.TotalElements)
		}
		e.do("GET", api.PathSearch+"?expiresWithin=7&status=active&limit=1", e.keyA, nil).expect(t, 200).JSON(t, &page)
		if page.Page.TotalElements != 2 || page.Page.NextCursor == nil {
			t.Fatalf("status=active&expiresWithin=7: %+v", page.Page)
		}
		cursor := *page.Page.NextCursor
		e.do("GET", api.PathSearch+"?expiresWithin=7&status=active&limit=1&after="+cursor, e.keyA, nil).expect(t, 200)
		e.do("GET", api.PathSearch+"?expiresWithin=8&status=active&limit=1&after="+cursor, e.keyA, nil).
			expectError(t, api.CodeInvalidParameter, "after")
		for _, bad := range []string{"expiresWithin=0d", "expiresWithin=-1", "expiresWithin=7w", "inactiveFor=x",
			"createdSince=31-02-2026", "createdSince=0d", "createdSince=yesterday"} {
			r := e.do("GET", api.PathSearch+"?"+bad, e.keyA, nil)
			if r.Status != 400 {
				t.Errorf("%s: status %d", bad, r.Status)
			}
		}
		for _, good := range []string{"createdSince=2026-11-01", "createdSince=01-11-2026", "createdSince=1d", "inactiveFor=14"} {
			e.do("GET", api.PathSearch+"?"+good, e.keyA, nil).expect(t, 200)
		}
	})
}
