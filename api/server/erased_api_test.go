package server_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/traineed/traineed/api"
)

// TestRefuseErased: once a trainee is erased, a create of the same
// e-mail (in another case) or phone number (in another spelling) sent
// with Traineed-Refuse-Erased: true is a 409 1038 naming the field and
// the erase's time, and creates nothing; the same create without the
// header is the interface's 200; erased-check gives the same verdict, by
// index; another company neither matches nor is refused; and a 409 1038
// is not kept for its Idempotency-Key.
func TestRefuseErased(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		body := newTraineeBody("Ingrid Erased")
		body["phoneNumber"] = "+447700900321"
		tr := e.create(e.keyA, body)
		erase := e.do("POST", fmt.Sprintf("/public-api/trainees/%d/erase", tr.ID), e.keyA, map[string]any{"confirm": tr.Email}).expect(t, 200)
		var er api.ErasedEnvelope
		erase.JSON(t, &er)
		refuse := http.Header{api.HeaderRefuseErased: {"true"}}

		again := map[string]any{"name": "Ingrid Again", "email": strings.ToUpper(tr.Email), "password": "correct horse"}
		withKey := http.Header{api.HeaderRefuseErased: {"true"}, api.HeaderIdempotencyKey: {"erased-1"}}
		r := doOn(t, e.srv.URL, "POST", api.PathTrainees, e.keyA, again, withKey).expect(t, http.StatusConflict)
		var b api.ErasedBody
		r.JSON(t, &b)
		if b.ErrorCode != api.CodeErased || b.Field != "email" || !b.ErasedAt.Equal(er.Erased.ErasedAt) ||
			len(b.Errors) != 1 || !strings.Contains(b.Message, "erased on "+er.Erased.ErasedAt.Format(time.DateOnly)) {
			t.Fatalf("refusal %s, want 1038 on email erased at %s", r.Body, er.Erased.ErasedAt)
		}
		byPhone := map[string]any{"name": "Ingrid Phone", "email": "fresh.address@example.com", "password": "correct horse", "phoneNumber": "+44 7700 900321"}
		r = doOn(t, e.srv.URL, "POST", api.PathTrainees, e.keyA, byPhone, refuse).expect(t, http.StatusConflict)
		r.JSON(t, &b)
		if b.ErrorCode != api.CodeErased || b.Field != "phoneNumber" {
			t.Fatalf("refusal %s, want 1038 on phoneNumber", r.Body)
		}
		// Nothing was created: the search finds neither.
		var page api.TraineePage
		e.do("GET", api.PathSearch+"?status=all&q=ingrid", e.keyA, nil).expect(t, 200).JSON(t, &page)
		if len(page.Content) != 0 {
			t.Fatalf("a refused create made %d trainees", len(page.Content))
		}

		check := map[string]any{"people": []map[string]any{
			{"email": "nobody@example.com"},
			{"email": tr.Email},
			{"email": "fresh.address@example.com", "phoneNumber": "+44 (0)7700 900321"},
		}}
		var ce api.ErasedCheckEnvelope
		e.do("POST", api.PathErasedCheck, e.keyA, check).expect(t, 200).JSON(t, &ce)
		if len(ce.Matches) != 2 || ce.Matches[0].Index != 1 || ce.Matches[0].Field != "email" ||
			ce.Matches[1].Index != 2 || ce.Matches[1].Field != "phoneNumber" || !ce.Matches[0].ErasedAt.Equal(er.Erased.ErasedAt) {
			t.Fatalf("erased-check %+v, want rows 1 (email) and 2 (phoneNumber)", ce.Matches)
		}
		// Company B never erased this person: no match, and its create is
		// not refused.
		e.do("POST", api.PathErasedCheck, e.keyB, check).expect(t, 200).JSON(t, &ce)
		if len(ce.Matches) != 0 {
			t.Fatalf("company B matches %+v", ce.Matches)
		}
		e.do("POST", api.PathErasedCheck, e.readKey(e.companyA), check).expect(t, 403)
		e.do("POST", api.PathErasedCheck, e.keyA, map[string]any{}).expectError(t, api.CodeRequired, "people")
		e.do("POST", api.PathErasedCheck, e.keyA, `{"people": "ada@example.com"}`).expectError(t, api.CodeBadJSON, "people")
		e.do("POST", api.PathErasedCheck, e.keyA, `{"people": []} {}`).expectError(t, api.CodeBadJSON, "")
		e.do("POST", api.PathErasedCheck, e.keyA, map[string]any{"people": make([]map[string]any, api.MaxErasedCheck+1)}).expectError(t, api.CodeInvalidParameter, "people")
		e.do("GET", api.PathErasedCheck, e.keyA, nil).expect(t, 405)

		// Without the header (or with "false") the create is the
		// interface's: the address is free again.
		doOn(t, e.srv.URL, "POST", api.PathTrainees, e.keyA, byPhone, http.Header{api.HeaderRefuseErased: {"false"}}).expect(t, 200)
		// The 409 was not kept for its Idempotency-Key: the same create
		// with the same key and without the header runs.
		r = doOn(t, e.srv.URL, "POST", api.PathTrainees, e.keyA, again, http.Header{api.HeaderIdempotencyKey: {"erased-1"}}).expect(t, 200)
		if r.Header.Get(api.HeaderIdempotentReplayed) != "" {
			t.Fatalf("the create was a replay: %s", r.Body)
		}
		back := r.trainee(t)
		if back.Email != tr.Email {
			t.Fatalf("created %q, want %q", back.Email, tr.Email)
		}
	})
}
