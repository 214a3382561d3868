package server_test

import (
	"context"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/server"
	"github.com/traineed/traineed/store/storetest"
)

// readKey makes a read-only key of company.
func (e *env) readKey(company int64) string {
	return e.scopedKey(company, api.NewKey{Name: "reader", Scope: api.KeyScopeRead})
}

// scopedKey makes a key of company as nk says, and returns it: the
// operator's way (no event in the feed) for a company key, the API's for a
// key bound to a trainer.
func (e *env) scopedKey(company int64, nk api.NewKey) string {
	e.t.Helper()
	k := api.GenerateKey()
	nk.Hash, nk.Prefix = api.HashKey(k), api.KeyDisplayPrefix(k)
	var err error
	if nk.TrainerID == nil && nk.ExpiresAt == nil {
		_, err = e.store.CreateScopedKey(context.Background(), company, nk.Name, nk.Scope, nk.Hash, nk.Prefix)
	} else {
		_, err = e.store.CreateCompanyKey(context.Background(), company, nk)
	}
	must(e.t, err)
	return k
}

// docOperation is one operation of openapi.yaml under /public-api, with
// the scope and the rule for limited keys it declares.
type docOperation struct {
	method, path string
	scope, own   string
}

// docOperations reads every public operation of the document, sorted.
func docOperations(t *testing.T) []docOperation {
	t.Helper()
	doc, err := openapi3.NewLoader().LoadFromData(api.OpenAPIDocument)
	must(t, err)
	var out []docOperation
	for path, item := range doc.Paths.Map() {
		if !strings.HasPrefix(path, "/public-api/") {
			continue
		}
		for method, op := range item.Operations() {
			scope, _ := op.Extensions["x-scope"].(string)
			own, _ := op.Extensions["x-own-trainees"].(string)
			out = append(out, docOperation{method: method, path: path, scope: scope, own: own})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].path+out[i].method < out[j].path+out[j].method })
	if len(out) < 40 {
		t.Fatalf("%d operations: the table is not the document", len(out))
	}
	return out
}

// The server's route table declares the scope and the limited-key rule of
// each route exactly as openapi.yaml does: a route cannot be added to one
// without the other.
func TestRouteScopesAreTheDocument(t *testing.T) {
	h := server.NewHandler(storetest.SQLite(t))
	got := server.RouteRules(h)
	for _, op := range docOperations(t) {
		pattern := op.method + " " + op.path
		rule, ok := got[pattern]
		if !ok {
			t.Errorf("%s is documented but not served", pattern)
			continue
		}
		if rule != [2]string{op.scope, op.own} {
			t.Errorf("%s: server %v, document x-scope %q x-own-trainees %q", pattern, rule, op.scope, op.own)
		}
		delete(got, pattern)
	}
	for pattern := range got {
		t.Errorf("%s is served but not documented", pattern)
	}
}

// scopeFixture is what the every-route test calls the routes on: company
// A's trainee (of trainer A0), webhook, event, automation, a spare key and
// trainer A1; and a key of each kind.
type scopeFixture struct {
	ada                         *api.Trainee
	webhook, automation, spare  int64
	event                       string
	admin, full, read, limited  string // company A's keys
	otherAdmin                  string // company B's admin key
	traineePath, traineeOfOther string
}

func newScopeFixture(t *testing.T, e *env) *scopeFixture {
	t.Helper()
	rc := storetest.NewReceiver(t, nil)
	f := &scopeFixture{}
	var wh api.WebhookEnvelope
	e.do("POST", api.PathWebhooks, e.keyA, map[string]any{"url": rc.URL}).expect(t, 200).JSON(t, &wh)
	f.webhook = wh.Webhook.ID
	body := newTraineeBody("Ada Park")
	body["trainerId"] = e.trainerA[0]
	f.ada = e.create(e.keyA, body)
	var feed api.EventPage
	e.do("GET", api.PathEvents, e.keyA, nil).expect(t, 200).JSON(t, &feed)
	f.event = feed.Events[0].ID
	f.automation = e.createAutomation(e.keyA, `{"name": "scope", "trigger": {"type": "EXPIRATION_APPROACHING", "days": 7}, "actionType": "DISABLE_TRAINEE"}`).ID
	f.admin = e.scopedKey(e.companyA, api.NewKey{Name: "owner", Scope: api.KeyScopeAdmin})
	f.full, f.read = e.keyA, e.readKey(e.companyA)
	f.limited = e.scopedKey(e.companyA, api.NewKey{Name: "coach 2", Scope: api.KeyScopeFull, TrainerID: &e.trainerA[1], OwnTraineesOnly: true})
	f.otherAdmin = e.scopedKey(e.companyB, api.NewKey{Name: "B owner", Scope: api.KeyScopeAdmin})
	spare, err := e.store.Keys(context.Background(), e.companyA)
	must(t, err)
	f.spare = spare[0].ID // the env's full key: patched, rotated, revoked last
	return f
}

// path is op's path with the fixture's id of its resource.
func (f *scopeFixture) path(e *env, op docOperation) string {
	id := strconv.FormatInt(f.ada.ID, 10)
	switch {
	case strings.HasPrefix(op.path, api.PathWebhooks):
		id = strconv.FormatInt(f.webhook, 10)
	case strings.HasPrefix(op.path, api.PathEvents):
		id = f.event
	case strings.HasPrefix(op.path, api.PathAutomations):
		id = strconv.FormatInt(f.automation, 10)
	case strings.HasPrefix(op.path, api.PathKeys):
		id = strconv.FormatInt(f.spare, 10)
	case strings.HasPrefix(op.path, api.PathTrainers):
		id = strconv.FormatInt(e.trainerA[1], 10)
	}
	return strings.ReplaceAll(op.path, "{id}", id)
}

// scopeBody is a body the route would take from a key allowed to call it.
func scopeBody(e *env, op docOperation) any {
	switch op.method + " " + op.path {
	case "POST " + api.PathTrainees:
		return newTraineeBody("Rita Scope")
	case "POST " + api.PathWebhooks:
		return map[string]any{"url": "https://hooks.example/scope"}
	case "POST " + api.PathAutomations:
		return `{"name": "scope 2", "trigger": {"type": "EXPIRATION_APPROACHING", "days": 3}, "actionType": "DISABLE_TRAINEE"}`
	case "PUT " + api.PathTrainees + "/{id}":
		return map[string]any{"name": "Ada Changed"}
	case "POST " + api.PathTrainees + "/{id}/erase":
		return map[string]any{"confirm": "not-her@example.com"} // 400 1028: nothing erased
	case "POST " + api.PathKeys:
		return map[string]any{"name": "new", "scope": "read"}
	case "PATCH " + api.PathKeys + "/{id}":
		return map[string]any{"name": "renamed"}
	case "POST " + api.PathTrainers:
		return map[string]any{"name": "New Coach", "email": "new.coach." + strconv.Itoa(len(op.path)) + "@a.example"}
	case "PATCH " + api.PathTrainers + "/{id}":
		return map[string]any{"name": "Coach Two"}
	case "POST " + api.PathTrainers + "/{id}/reassign":
		return map[string]any{"to": e.trainerA[0]}
	case "PATCH " + api.PathCompany:
		return map[string]any{"name": "Company A Renamed"}
	}
	switch op.method {
	case "PUT":
		return map[string]any{"enabled": true}
	case "POST", "PATCH":
		return map[string]any{}
	}
	return nil
}

// wantRefusal is the 403 errorCode a key of kind gets on op (0: allowed),
// by the document's declarations alone.
func wantRefusal(kind string, op docOperation) int {
	switch {
	case kind == "read" && op.method != "GET":
		return api.CodeReadOnlyKey
	case kind != "admin" && kind != "other" && op.scope == api.KeyScopeAdmin:
		return api.CodeAdminScope
	case kind == "limited" && op.own == "refused":
		return api.CodeOwnTrainees
	}
	return 0
}

// Every route of openapi.yaml, with every kind of key: admin, full, read,
// a full key limited to another trainer's trainees, and another company's
// admin key. A refusal is the 403 the document's x-scope and
// x-own-trainees give, with its JSON error, and changes nothing; a key
// allowed the route is never refused; a limited key's request for a
// trainee not its trainer's answers exactly as another company's key
// does (the empty 500); another company's key gets the 404 of its keys,
// trainers, webhooks, events and automations.
func TestEveryRouteWithEveryScope(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		f := newScopeFixture(t, e)
		ops := docOperations(t)
		// The admin's writes of the spare key (the full key) last, its
		// revocation the very last: the full key's turn comes before.
		last := func(op docOperation) int {
			switch {
			case !strings.HasPrefix(op.path, api.PathKeys+"/{id}") || op.method == "GET":
				return 0
			case op.method == "DELETE":
				return 2
			}
			return 1
		}
		sort.SliceStable(ops, func(i, j int) bool { return last(ops[i]) < last(ops[j]) })
		for _, kind := range []string{"read", "limited", "other", "full", "admin"} {
			key := map[string]string{"read": f.read, "limited": f.limited, "other": f.otherAdmin, "full": f.full, "admin": f.admin}[kind]
			for _, op := range ops {
				t.Run(kind+" "+op.method+" "+op.path, func(t *testing.T) { checkScope(t, e, f, kind, key, op) })
			}
		}
	})
}

func checkScope(t *testing.T, e *env, f *scopeFixture, kind, key string, op docOperation) {
	path := f.path(e, op)
	before := snapshot(t, e)
	r := e.do(op.method, path, key, scopeBody(e, op))
	if code := wantRefusal(kind, op); code != 0 {
		r.expect(t, http.StatusForbidden)
		var b api.ErrorBody
		r.JSON(t, &b)
		if b.ErrorCode != code || len(b.Errors) != 1 || b.Errors[0].ErrorCode != code || b.Message == "" {
			t.Fatalf("403 body %s, want errorCode %d", r.Body, code)
		}
		if after := snapshot(t, e); after != before {
			t.Fatalf("a refused request changed something:\n%s\n%s", before, after)
		}
		return
	}
	if r.Status == http.StatusForbidden || r.Status == http.StatusUnauthorized {
		t.Fatalf("%s key refused: %d %s", kind, r.Status, r.Body)
	}
	byID := strings.Contains(op.path, "{id}")
	foreign := kind == "other" || (kind == "limited" && op.own == "trainee")
	switch {
	case byID && foreign && strings.HasPrefix(op.path, api.PathTrainees):
		r.expectNotFound(t)
		if kind == "limited" {
			other := e.do(op.method, path, f.otherAdmin, scopeBody(e, op))
			if other.Status != r.Status || string(other.Body) != string(r.Body) || other.Header.Get("X-Error-Reason") != r.Header.Get("X-Error-Reason") {
				t.Fatalf("another trainer's trainee: %d %q; another company's: %d %q", r.Status, r.Body, other.Status, other.Body)
			}
		}
		if after := snapshot(t, e); after != before {
			t.Fatalf("a request on a foreign trainee changed something:\n%s\n%s", before, after)
		}
	case byID && kind == "other":
		r.expect(t, http.StatusNotFound)
		var b api.ErrorBody
		r.JSON(t, &b)
		if b.ErrorCode != api.CodeNotFound || b.Field != "id" {
			t.Fatalf("404 body %s", r.Body)
		}
	}
}

// GET /keys/current describes the calling key, scope included.
func TestCurrentKey(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		reader := e.readKey(e.companyB)
		for _, c := range []struct {
			key, scope, company string
			companyID           int64
			zone                string
		}{{e.keyA, "full", "Company A", e.companyA, "UTC"}, {reader, "read", "Company B", e.companyB, "Pacific/Auckland"},
			{e.adminKey(e.companyA), "admin", "Company A", e.companyA, "UTC"}} {
			var got api.CurrentKeyEnvelope
			e.do("GET", api.PathCurrentKey, c.key, nil).expect(t, 200).JSON(t, &got)
			k := got.Key
			if k == nil || k.Scope != c.scope || k.CompanyID != c.companyID || k.CompanyName != c.company || k.Prefix != c.key[:8] || k.Name == "" || k.ID == 0 ||
				k.TimeZone != c.zone || k.TrainerID != nil || k.TrainerName != nil || k.OwnTraineesOnly || k.ExpiresAt != nil {
				t.Fatalf("current key %+v, want scope %s of %s", k, c.scope, c.company)
			}
			if strings.Contains(string(e.do("GET", api.PathCurrentKey, c.key, nil).Body), c.key) {
				t.Fatal("the key itself is returned")
			}
		}
		e.do("GET", api.PathCurrentKey, "", nil).expect(t, http.StatusUnauthorized)
		// The literal path wins over /keys/{id}: a 405 with its methods,
		// not a key route's answer.
		r := e.do("PATCH", api.PathCurrentKey, e.adminKey(e.companyA), map[string]any{"name": "x"}).expect(t, http.StatusMethodNotAllowed)
		if r.Header.Get("Allow") != "GET, HEAD" {
			t.Fatalf("Allow %q", r.Header.Get("Allow"))
		}
	})
}
