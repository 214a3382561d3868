package server_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/store/storetest"
)

// TestControlCharacters: NUL and the other C0 control characters but tab
// are a 400 1016 naming the field, in every text field and query
// parameter, on both databases (NUL used to reach the database and end as
// an empty 500).
func TestControlCharacters(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		tr := e.create(e.keyA, newTraineeBody("Clean Name"))
		path := fmt.Sprintf("/public-api/trainees/%d", tr.ID)
		for _, field := range []string{"name", "email", "password", "phoneNumber", "weightUnit"} {
			for _, bad := range []string{"a\u0000b", "a\nb", "\u001b[31m", "x\u0007"} {
				b := newTraineeBody("Control Row")
				b[field] = bad
				e.do("POST", "/public-api/trainees", e.keyA, b).expectError(t, api.CodeControlChar, field)
				e.do("PUT", path, e.keyA, map[string]any{field: bad}).expectError(t, api.CodeControlChar, field)
			}
		}
		// Raw JSON with an escaped NUL, as the attack sent it.
		e.do("POST", "/public-api/trainees", e.keyA, `{"name":"a\u0000b","email":"nul@example.com","password":"12345678"}`).
			expectError(t, api.CodeControlChar, "name")
		// A tab is free text.
		b := newTraineeBody("Tab")
		b["name"] = "Ada\tPark"
		if got := e.create(e.keyA, b); got.Name != "Ada\tPark" {
			t.Errorf("name with a tab stored as %q", got.Name)
		}
		// Every other problem of the body is still listed.
		r := e.do("POST", "/public-api/trainees", e.keyA, map[string]any{"name": "a\u0000", "email": "bad", "password": "12345678"})
		if body := r.expectError(t, api.CodeControlChar, "name"); len(body.Errors) != 2 || body.Errors[1].ErrorCode != 1002 {
			t.Errorf("errors %+v, want 1016 then 1002", body.Errors)
		}
		for _, q := range []string{"q=%00", "q=a%00b", "q=12%003", "q=%0a", "status=%00", "sort=name%00", "page=%00", "size=1%00"} {
			field, _, _ := strings.Cut(q, "=")
			e.do("GET", "/public-api/trainees/search?"+q, e.keyA, nil).expectError(t, api.CodeControlChar, field)
		}
		for _, q := range []string{"q=%ff", "q=a%c3"} {
			e.do("GET", "/public-api/trainees/search?"+q, e.keyA, nil).expectError(t, api.CodeInvalidParameter, "q")
		}
		for _, c := range []struct{ route, query, field string }{
			{"weight-history", "from=%00", "from"},
			{"weight-history", "to=01-01-2026%00", "to"},
			{"measurements", "type=WAIST%00", "type"},
			{"measurements", "from=%ff", "from"},
			{"nutrition", "date=%1f", "date"},
		} {
			r := e.do("GET", path+"/"+c.route+"?"+c.query, e.keyA, nil)
			code := api.CodeControlChar
			if c.query == "from=%ff" {
				code = api.CodeInvalidParameter
			}
			r.expectError(t, code, c.field)
		}
		// Nothing was stored or changed by the rejected requests.
		e.expectUnchanged(t, path, 2)
	})
}

// expectUnchanged asserts that the trainee at path is still "Clean Name"
// and that company A has n trainees, whatever refused requests came.
func (e *env) expectUnchanged(t *testing.T, path string, n int64) {
	t.Helper()
	if got := e.do("GET", path, e.keyA, nil).expect(t, 200).trainee(t); got.Name != "Clean Name" {
		t.Errorf("trainee changed to %q", got.Name)
	}
	var page api.TraineePage
	e.do("GET", "/public-api/trainees/search?status=all", e.keyA, nil).expect(t, 200).JSON(t, &page)
	if page.Page.TotalElements != n {
		t.Errorf("%d trainees stored, want %d", page.Page.TotalElements, n)
	}
}

// TestCanonicalIDs: an id is read only in canonical decimal; "04" and "+4"
// are not trainee 4.
func TestCanonicalIDs(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		tr := e.create(e.keyA, newTraineeBody("Canonical"))
		e.do("GET", fmt.Sprintf("/public-api/trainees/%d", tr.ID), e.keyA, nil).expect(t, 200)
		for _, id := range []string{fmt.Sprintf("0%d", tr.ID), fmt.Sprintf("%%2B%d", tr.ID), fmt.Sprintf("00%d", tr.ID), "0", "-1", "1e3", "0x1"} {
			for _, m := range []string{"GET", "PUT", "DELETE"} {
				e.do(m, "/public-api/trainees/"+id, e.keyA, `{}`).expectError(t, api.CodeInvalidParameter, "id")
			}
			for _, sub := range []string{"weight-history", "measurements", "nutrition", "average-steps"} {
				e.do("GET", "/public-api/trainees/"+id+"/"+sub, e.keyA, nil).expectError(t, api.CodeInvalidParameter, "id")
			}
		}
		// The trainee was not deleted through another spelling of its id.
		if got := e.do("GET", fmt.Sprintf("/public-api/trainees/%d", tr.ID), e.keyA, nil).expect(t, 200).trainee(t); !got.Enabled {
			t.Error("trainee deleted through a non-canonical id")
		}
	})
}

// TestTwoAPIKeys: a request with two X-API-Key headers is refused, even
// when both are the same valid key.
func TestTwoAPIKeys(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		for _, keys := range [][]string{{e.keyA, e.keyA}, {e.keyA, e.keyB}, {e.keyA, "junk"}, {"junk", e.keyA}} {
			r := doOn(t, e.srv.URL, "GET", "/public-api/trainees/search", "", nil, http.Header{"X-Api-Key": keys})
			if r.Status != 401 || len(r.Body) != 0 {
				t.Errorf("keys %q: %d %q, want an empty 401", keys, r.Status, r.Body)
			}
		}
		doOn(t, e.srv.URL, "GET", "/public-api/trainees/search", "", nil, http.Header{"X-Api-Key": {e.keyA}}).expect(t, 200)
	})
}

// TestExpirationDateRange: expirationDate lies between 01-01-1900 and
// 31-12-2199.
func TestExpirationDateRange(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		tr := e.create(e.keyA, newTraineeBody("Expiry"))
		path := fmt.Sprintf("/public-api/trainees/%d", tr.ID)
		for _, d := range []string{"01-01-0001", "31-12-9999", "31-12-1899", "01-01-2200"} {
			b := newTraineeBody("Expiry Row")
			b["expirationDate"] = d
			e.do("POST", "/public-api/trainees", e.keyA, b).expectError(t, api.CodeInvalidDate, "expirationDate")
			e.do("PUT", path, e.keyA, map[string]any{"expirationDate": d}).expectError(t, api.CodeInvalidDate, "expirationDate")
		}
		for _, d := range []string{"01-01-1900", "31-12-2199"} {
			b := newTraineeBody("Expiry Edge")
			b["expirationDate"] = d
			if got := e.create(e.keyA, b); got.ExpirationDate == nil || got.ExpirationDate.String() != d {
				t.Errorf("expirationDate %s stored as %v", d, got.ExpirationDate)
			}
			e.do("PUT", path, e.keyA, map[string]any{"expirationDate": d}).expect(t, 200)
		}
	})
}

// TestLiteralSearchPath: /trainees/search is never read as /trainees/{id}:
// every method but GET and HEAD is a 405 with Allow: GET, HEAD.
func TestLiteralSearchPath(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		for _, m := range []string{"PUT", "DELETE", "POST", "OPTIONS", "PATCH"} {
			r := e.do(m, "/public-api/trainees/search", e.keyA, `{}`).expect(t, 405)
			var b api.ErrorBody
			r.JSON(t, &b)
			if got := r.Header.Get("Allow"); got != "GET, HEAD" || b.ErrorCode != api.CodeMethodNotAllowed {
				t.Errorf("%s: Allow %q body %q, want GET, HEAD and errorCode %d", m, got, r.Body, api.CodeMethodNotAllowed)
			}
		}
		e.do("HEAD", "/public-api/trainees/search", e.keyA, nil).expect(t, 200)
		e.do("GET", "/public-api/trainees/search", e.keyA, nil).expect(t, 200)
		// Without a key it is still the 401 first.
		e.do("PUT", "/public-api/trainees/search", "", `{}`).expect(t, 401)
	})
}

// TestDrain: once draining, /readyz is a 503 "draining" and every response
// closes its connection, while requests are still served in full.
func TestDrain(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		e.do("GET", "/readyz", "", nil).expect(t, 200)
		tr := e.create(e.keyA, newTraineeBody("Before Drain"))
		e.handler.Drain()
		r := e.do("GET", "/readyz", "", nil).expect(t, 503)
		if string(r.Body) != "{\"status\":\"draining\"}\n" || r.Header.Get("Retry-After") != "1" {
			t.Errorf("readyz body %q, Retry-After %q", r.Body, r.Header.Get("Retry-After"))
		}
		got := e.create(e.keyA, newTraineeBody("During Drain"))
		e.do("GET", fmt.Sprintf("/public-api/trainees/%d", tr.ID), e.keyA, nil).expect(t, 200)
		res, err := http.Get(e.srv.URL + "/healthz")
		must(t, err)
		res.Body.Close()
		if res.StatusCode != 200 || !res.Close {
			t.Errorf("healthz during the drain: %d, Connection: close %v", res.StatusCode, res.Close)
		}
		if got.ID == 0 {
			t.Error("create during the drain failed")
		}
	})
}

// terminalHostile are characters that command or reorder a terminal: the
// C0 controls ESC and BEL, DEL, C1 controls (U+009B is the 8-bit CSI),
// and every bidirectional embedding, override and isolate.
var terminalHostile = []rune{0x1b, 0x07, 0x7f, 0x80, 0x85, 0x9b, 0x9f,
	0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069}

// TestTerminalHostileText: every text field and query parameter refuses
// DEL, C1 controls and bidirectional formatting characters like the C0
// controls, with a 1016 naming the field and the character, on both
// databases: trainees (create, update, search), tracked-data parameters,
// webhooks and automations. The implicit direction marks are text (but
// not in a person's name).
func TestTerminalHostileText(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		tr := e.create(e.keyA, newTraineeBody("Clean Name"))
		path := fmt.Sprintf("/public-api/trainees/%d", tr.ID)
		a := e.createAutomation(e.keyA, `{"name": "Clean", "trigger": {"type": "TRAINEE_CREATED"}, "actionType": "WEBHOOK", "action": {"url": "https://crm.example.com/hook"}}`)
		apath := fmt.Sprintf("/public-api/automations/%d", a.ID)
		var hook api.WebhookEnvelope
		e.do("POST", "/public-api/webhooks", e.keyA, map[string]any{"url": "https://crm.example.com/in"}).expect(t, 200).JSON(t, &hook)
		wpath := fmt.Sprintf("/public-api/webhooks/%d", hook.Webhook.ID)
		for _, r := range terminalHostile {
			bad := "C1 " + string(r) + "31mRed"
			named := fmt.Sprintf("(U+%04X)", r)
			check := func(res *resp, field string) {
				t.Helper()
				if b := res.expectError(t, api.CodeControlChar, field); !strings.Contains(b.Message, named) {
					t.Errorf("%s: message %q does not name %s", field, b.Message, named)
				}
			}
			for _, field := range []string{"name", "email", "password", "phoneNumber", "weightUnit"} {
				b := newTraineeBody("Hostile Row")
				b[field] = bad
				check(e.do("POST", "/public-api/trainees", e.keyA, b), field)
				check(e.do("PUT", path, e.keyA, map[string]any{field: bad}), field)
			}
			q := url.QueryEscape(bad)
			check(e.do("GET", "/public-api/trainees/search?q="+q, e.keyA, nil), "q")
			check(e.do("GET", "/public-api/trainees/search?sort=name"+q, e.keyA, nil), "sort")
			check(e.do("GET", path+"/weight-history?from="+q, e.keyA, nil), "from")
			check(e.do("GET", path+"/nutrition?date="+q, e.keyA, nil), "date")
			hostileURL := "https://crm.example.com/in" + string(r)
			check(e.do("POST", "/public-api/webhooks", e.keyA, map[string]any{"url": hostileURL}), "url")
			check(e.do("PUT", wpath, e.keyA, map[string]any{"url": hostileURL}), "url")
			check(e.do("POST", "/public-api/automations", e.keyA, map[string]any{"name": bad, "trigger": map[string]any{"type": "TRAINEE_CREATED"},
				"actionType": "WEBHOOK", "action": map[string]any{"url": "https://crm.example.com/hook"}}), "name")
			check(e.do("PUT", apath, e.keyA, map[string]any{"name": bad}), "name")
			check(e.do("PUT", apath, e.keyA, map[string]any{"action": map[string]any{"url": hostileURL}}), "action.url")
		}
		// The implicit marks are text, but not a person's name: like every
		// format character, they make look-alike names (see
		// TestInvisibleNamesAndPhones).
		marks := "\u05d3\u05e0\u05d4 \u200f(2)\u200e \u061c"
		if got := e.do("PUT", apath, e.keyA, map[string]any{"name": marks}).expect(t, 200).automation(t); got.Name != marks {
			t.Errorf("automation name with direction marks stored as %q", got.Name)
		}
		e.do("PUT", apath, e.keyA, map[string]any{"name": "Clean"}).expect(t, 200)
		b := newTraineeBody("Marks")
		b["name"] = marks
		e.do("POST", "/public-api/trainees", e.keyA, b).expectError(t, api.CodeControlChar, "name")
		// Nothing of the refused requests was stored.
		e.expectUnchanged(t, path, 1)
		var hooks api.WebhookList
		e.do("GET", "/public-api/webhooks", e.keyA, nil).expect(t, 200).JSON(t, &hooks)
		if len(hooks.Webhooks) != 1 || hooks.Webhooks[0].URL != "https://crm.example.com/in" {
			t.Errorf("webhooks %+v", hooks.Webhooks)
		}
		if got := e.do("GET", apath, e.keyA, nil).expect(t, 200).automation(t); got.Name != "Clean" || *got.Action.URL != "https://crm.example.com/hook" {
			t.Errorf("automation changed to %+v", got)
		}
	})
}

// TestStoredHostileText: text stored before the rule keeps its text: it is
// served exactly, and an update that does not send it succeeds (one that
// sends it again is refused), for a trainee, an automation and a webhook.
func TestStoredHostileText(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		ctx := context.Background()
		name := "Bidi \u202egnp.exe \u009b31m\x7f"
		tr, err := e.store.CreateTrainee(ctx, e.companyA, api.NewTrainee{Name: name, Email: "legacy@example.com",
			PasswordHash: "x", WeightUnit: api.UnitKG, CreatedByType: "ADMIN", Enabled: true})
		must(t, err)
		path := fmt.Sprintf("/public-api/trainees/%d", tr.ID)
		if got := e.do("GET", path, e.keyA, nil).expect(t, 200).trainee(t); got.Name != name {
			t.Fatalf("stored name served as %q", got.Name)
		}
		got := e.do("PUT", path, e.keyA, map[string]any{"phoneNumber": "+447700900999", "weightUnit": "LB"}).expect(t, 200).trainee(t)
		if got.Name != name || got.PhoneNumber == nil || got.WeightUnit != "LB" {
			t.Errorf("update without the name: %+v", got)
		}
		e.do("PUT", path, e.keyA, map[string]any{"name": name}).expectError(t, api.CodeControlChar, "name")

		spec := api.AutomationSpec{Name: name, Enabled: true, TriggerType: api.TriggerTraineeCreated, ActionType: api.ActionWebhook}
		hook := "https://crm.example.com/hook\u202e"
		spec.URL = &hook
		a, err := e.store.CreateAutomation(ctx, e.companyA, spec, api.GenerateWebhookSecret(), 0)
		must(t, err)
		apath := fmt.Sprintf("/public-api/automations/%d", a.ID)
		if got := e.do("PUT", apath, e.keyA, `{"enabled": false}`).expect(t, 200).automation(t); got.Name != name || *got.Action.URL != hook || got.Enabled {
			t.Errorf("automation update without its text: %+v", got)
		}
		e.do("PUT", apath, e.keyA, map[string]any{"name": name}).expectError(t, api.CodeControlChar, "name")

		id, _ := storetest.AddWebhook(t, e.store, e.companyA, "https://crm.example.com/in")
		legacyURL := "https://crm.example.com/in\u009b"
		if _, err := storetest.DB(t, e.store).NewUpdate().Table("webhooks").Set("url = ?", legacyURL).Where("id = ?", id).Exec(ctx); err != nil {
			t.Fatal(err)
		}
		wpath := fmt.Sprintf("/public-api/webhooks/%d", id)
		var w api.WebhookEnvelope
		e.do("PUT", wpath, e.keyA, `{"enabled": false}`).expect(t, 200).JSON(t, &w)
		if w.Webhook.URL != legacyURL || w.Webhook.State != "disabled" {
			t.Errorf("webhook update without its URL: %+v", w.Webhook)
		}
	})
}
