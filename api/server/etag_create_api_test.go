package server_test

import (
	"net/http"
	"strconv"
	"testing"

	"github.com/traineed/traineed/api"
)

// A create answers with the new trainee's ETag, so that a conditional
// update needs no read first: "1" for a trainee as created, "2" when an
// automation of the create disabled it in the same transaction; the
// replay of an idempotent create carries it too.
func TestCreateAnswersWithETag(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		etta := newTraineeBody("Etta Park")
		r := doOn(t, e.srv.URL, "POST", api.PathTrainees, e.keyA, etta, http.Header{api.HeaderIdempotencyKey: {"etta-1"}}).expect(t, 200)
		etag := r.Header.Get(api.HeaderETag)
		if etag != `"1"` {
			t.Fatalf("create's ETag %q", etag)
		}
		id := r.trainee(t).ID
		again := doOn(t, e.srv.URL, "POST", api.PathTrainees, e.keyA, etta, http.Header{api.HeaderIdempotencyKey: {"etta-1"}})
		if again.Header.Get(api.HeaderIdempotentReplayed) != "true" || again.Header.Get(api.HeaderETag) != etag {
			t.Fatalf("replay: %d %v", again.Status, again.Header)
		}
		path := "/public-api/trainees/" + strconv.FormatInt(id, 10)
		doOn(t, e.srv.URL, "PUT", path, e.keyA, map[string]any{"name": "Etta Parks"}, http.Header{api.HeaderIfMatch: {etag}}).expect(t, 200)
		doOn(t, e.srv.URL, "PUT", path, e.keyA, map[string]any{"name": "Etta Park"}, http.Header{api.HeaderIfMatch: {etag}}).expect(t, http.StatusPreconditionFailed)

		e.createAutomation(e.keyA, `{"name": "park new", "trigger": {"type": "TRAINEE_CREATED"}, "actionType": "DISABLE_TRAINEE"}`)
		r = e.do("POST", api.PathTrainees, e.keyA, newTraineeBody("Dora Park")).expect(t, 200)
		if tr := r.trainee(t); tr.Enabled || r.Header.Get(api.HeaderETag) != `"2"` {
			t.Fatalf("created and disabled by an automation: enabled %v, ETag %q", tr.Enabled, r.Header.Get(api.HeaderETag))
		}
		got := e.do("GET", "/public-api/trainees/"+strconv.FormatInt(r.trainee(t).ID, 10), e.keyA, nil).expect(t, 200)
		if got.Header.Get(api.HeaderETag) != r.Header.Get(api.HeaderETag) {
			t.Fatalf("the create's ETag %q, a read's %q", r.Header.Get(api.HeaderETag), got.Header.Get(api.HeaderETag))
		}
	})
}
