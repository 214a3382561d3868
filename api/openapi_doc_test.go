package api

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"
)

// loadOpenAPI loads and validates the embedded document, with external
// references refused.
func loadOpenAPI(t *testing.T) *openapi3.T {
	t.Helper()
	ctx := context.Background()
	loader := &openapi3.Loader{Context: ctx, IsExternalRefsAllowed: false}
	doc, err := loader.LoadFromData(OpenAPIDocument)
	if err != nil {
		t.Fatalf("load openapi.yaml: %v", err)
	}
	if err := doc.Validate(ctx); err != nil {
		t.Fatalf("openapi.yaml is not a valid OpenAPI document: %v", err)
	}
	return doc
}

func TestOpenAPIDocumentValidates(t *testing.T) {
	doc := loadOpenAPI(t)
	if doc.OpenAPI != "3.1.0" || !doc.IsOpenAPI31OrLater() {
		t.Fatalf("openapi = %q, want 3.1.0", doc.OpenAPI)
	}
	if doc.Info.Title != "traineed public API" || doc.Info.Version != "1.0.0" {
		t.Errorf("info = %q %q", doc.Info.Title, doc.Info.Version)
	}
	if len(doc.Servers) != 1 || doc.Servers[0].URL != "http://127.0.0.1:8080" {
		t.Errorf("servers = %v", doc.Servers)
	}
	s := doc.Components.SecuritySchemes["apiKey"]
	if s == nil || s.Value.Type != "apiKey" || s.Value.In != "header" || s.Value.Name != "X-API-Key" {
		t.Fatalf("security scheme apiKey missing or wrong: %+v", s)
	}
	if len(doc.Security) != 1 || doc.Security[0]["apiKey"] == nil {
		t.Errorf("apiKey is not required globally: %v", doc.Security)
	}
}

// contractOperations is every call of contract section 3 plus the probes.
var contractOperations = []struct {
	method, path string
	public       bool // under /public-api: needs the key, answers 400 and 401
	byID         bool // has an id in its path: a trainee's 500 may carry X-Error-Reason, the others' are a 404
	body         bool // has a request body: may answer 413
}{
	{"POST", "/public-api/trainees", true, false, true},
	{"POST", "/public-api/trainees/erased-check", true, false, true},
	{"GET", "/public-api/trainees/search", true, false, false},
	{"GET", "/public-api/trainees/stats", true, false, false},
	{"GET", "/public-api/trainees/{id}", true, true, false},
	{"PUT", "/public-api/trainees/{id}", true, true, true},
	{"DELETE", "/public-api/trainees/{id}", true, true, false},
	{"GET", "/public-api/trainees/{id}/weight-history", true, true, false},
	{"GET", "/public-api/trainees/{id}/measurements", true, true, false},
	{"GET", "/public-api/trainees/{id}/nutrition", true, true, false},
	{"GET", "/public-api/trainees/{id}/average-steps", true, true, false},
	{"GET", "/public-api/trainees/{id}/steps", true, true, false},
	{"POST", "/public-api/trainees/{id}/erase", true, true, true},
	{"GET", "/public-api/trainees/{id}/export", true, true, false},
	{"GET", "/public-api/automations", true, false, false},
	{"GET", "/public-api/trainers", true, false, false},
	{"POST", "/public-api/automations", true, false, true},
	{"GET", "/public-api/automations/{id}", true, true, false},
	{"PUT", "/public-api/automations/{id}", true, true, true},
	{"DELETE", "/public-api/automations/{id}", true, true, false},
	{"GET", "/public-api/automations/{id}/runs", true, true, false},
	{"POST", "/public-api/automations/{id}/test", true, true, true},
	{"GET", "/public-api/keys/current", true, false, false},
	{"GET", "/public-api/webhooks", true, false, false},
	{"POST", "/public-api/webhooks", true, false, true},
	{"GET", "/public-api/webhooks/{id}", true, true, false},
	{"PUT", "/public-api/webhooks/{id}", true, true, true},
	{"DELETE", "/public-api/webhooks/{id}", true, true, false},
	{"GET", "/public-api/webhooks/{id}/deliveries", true, true, false},
	{"POST", "/public-api/webhooks/{id}/test", true, true, true},
	{"POST", "/public-api/webhooks/{id}/rotate-secret", true, true, true},
	{"GET", "/public-api/events", true, false, false},
	{"POST", "/public-api/events/{id}/redeliver", true, true, true},
	{"GET", "/public-api/keys", true, false, false},
	{"POST", "/public-api/keys", true, false, true},
	{"GET", "/public-api/keys/{id}", true, true, false},
	{"PATCH", "/public-api/keys/{id}", true, true, true},
	{"DELETE", "/public-api/keys/{id}", true, true, false},
	{"POST", "/public-api/keys/{id}/rotate", true, true, true},
	{"POST", "/public-api/trainers", true, false, true},
	{"GET", "/public-api/trainers/{id}", true, true, false},
	{"PATCH", "/public-api/trainers/{id}", true, true, true},
	{"POST", "/public-api/trainers/{id}/reassign", true, true, true},
	{"GET", "/public-api/company", true, false, false},
	{"PATCH", "/public-api/company", true, false, true},
	{"GET", "/openapi.yaml", false, false, false},
	{"GET", "/healthz", false, false, false},
	{"GET", "/readyz", false, false, false},
	{"GET", "/metrics", false, false, false},
}

func TestOpenAPIOperations(t *testing.T) {
	doc := loadOpenAPI(t)
	declared := 0
	for _, item := range doc.Paths.Map() {
		declared += len(item.Operations())
	}
	if declared != len(contractOperations) {
		t.Errorf("document declares %d operations, the contract %d", declared, len(contractOperations))
	}
	for _, c := range contractOperations {
		t.Run(c.method+" "+c.path, func(t *testing.T) {
			item := doc.Paths.Value(c.path)
			if item == nil {
				t.Fatalf("path missing")
			}
			op := item.GetOperation(c.method)
			if op == nil {
				t.Fatalf("method missing")
			}
			want := []int{200, 500}
			if c.public {
				want = append(want, 400, 401)
			}
			scope, own := op.Extensions["x-scope"], op.Extensions["x-own-trainees"]
			if c.public && (!slices.Contains([]any{"read", "full", "admin"}, scope) || !slices.Contains([]any{"refused", "trainee", "narrowed"}, own)) {
				t.Errorf("x-scope %v, x-own-trainees %v: every public operation declares both", scope, own)
			}
			if c.public && (c.method != "GET" || scope != "read" || own == "refused") {
				// A read-only key's write, a route above the key's scope,
				// a key limited to its trainer's trainees.
				want = append(want, 403)
			}
			trainee := strings.HasPrefix(c.path, "/public-api/trainees/{id}")
			if c.byID && !trainee {
				want = append(want, 404) // our own resources: the JSON 404
			}
			if c.public {
				want = append(want, 429)
			}
			if c.body {
				want = append(want, 413, 415)
				if op.RequestBody == nil || op.RequestBody.Value.Content.Get("application/json") == nil {
					t.Errorf("no application/json request body")
				}
			}
			for _, status := range want {
				if op.Responses.Status(status) == nil {
					t.Errorf("response %d not declared", status)
				}
			}
			for code, resp := range op.Responses.Map() {
				h := resp.Value.Headers["X-Request-Id"]
				if h == nil || !h.Value.Required {
					t.Errorf("response %s: X-Request-Id not declared as required", code)
				}
				_, hasReason := resp.Value.Headers["X-Error-Reason"]
				if hasReason != (trainee && code == "500") {
					t.Errorf("response %s: X-Error-Reason declared = %v", code, hasReason)
				}
				// Every answer to a request with a valid key carries the
				// rate-limit fields, old and new.
				if c.public && code != "401" {
					for _, name := range []string{"RateLimit-Policy", "RateLimit", "RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset"} {
						if resp.Value.Headers[name] == nil {
							t.Errorf("response %s: %s not declared", code, name)
						}
					}
				}
			}
			// Every refusal has the JSON error body but the seed's 401
			// and 500s.
			for _, status := range []int{400, 403, 404, 405, 409, 413, 415, 429} {
				if r := op.Responses.Status(status); r != nil {
					if r.Value.Content.Get("application/json") == nil {
						t.Errorf("%d has no JSON body", status)
					}
				}
			}
			for _, status := range []int{401, 500} {
				if r := op.Responses.Status(status); r != nil && len(r.Value.Content) != 0 {
					t.Errorf("%d declares a body; the contract says empty", status)
				}
			}
			// The global requirement applies unless the operation overrides
			// it; the probes override it with "no security".
			if c.public && op.Security != nil {
				t.Errorf("operation overrides the global apiKey requirement")
			}
			if !c.public && (op.Security == nil || len(*op.Security) != 0) {
				t.Errorf("probe must declare security: []")
			}
		})
	}
	for _, event := range []string{"trainee.created", "trainee.updated", "trainee.deleted", "trainee.restored", "trainee.expired", "automation.fired"} {
		w := doc.Webhooks[event]
		if w == nil || w.Post == nil {
			t.Errorf("webhook %s missing", event)
			continue
		}
		for _, h := range []string{"webhook-id", "webhook-timestamp", "webhook-signature"} {
			if p := w.Post.Parameters.GetByInAndName("header", h); p == nil || !p.Required {
				t.Errorf("webhook %s: header %s not required", event, h)
			}
		}
	}
}

// checkResponse validates one response against the document the way the
// handler tests do: find the route of the request, then ValidateResponse.
func checkResponse(t *testing.T, router routers.Router, method, target string, status int, header http.Header, body string) error {
	t.Helper()
	req := httptest.NewRequest(method, target, nil)
	route, params, err := router.FindRoute(req)
	if err != nil {
		t.Fatalf("%s %s: no route: %v", method, target, err)
	}
	header = header.Clone() // the cases share their header maps
	if header == nil {
		header = http.Header{}
	}
	if body != "" && header.Get("Content-Type") == "" {
		header.Set("Content-Type", "application/json")
	}
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route},
		Status:                 status,
		Header:                 header,
		Options:                &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true},
	}
	in.SetBodyBytes([]byte(body))
	return openapi3filter.ValidateResponse(context.Background(), in)
}

func newOpenAPIRouter(t *testing.T) routers.Router {
	t.Helper()
	doc := loadOpenAPI(t)
	doc.Servers = nil // match any host: requests go to httptest servers
	router, err := legacy.NewRouter(doc)
	if err != nil {
		t.Fatalf("router: %v", err)
	}
	return router
}

const sampleTrainee = `{"id": 41, "userId": 977, "name": "Ada Park", "email": "ada@example.com", "username": "ada@example.com",
 "phoneNumber": null, "dateOfBirth": "02-03-1990", "expirationDate": null, "enabled": true,
 "companyId": 3, "trainerId": null, "createdByType": "ADMIN", "forcePasswordChange": true,
 "weightUnit": "KG", "authorities": ["TRAINEE", "USER"], "lastTrained": null}`

func envelope(trainee string) string { return `{"timestamp": 1795000000, "trainee": ` + trainee + `}` }

func TestOpenAPIResponseValidation(t *testing.T) {
	router := newOpenAPIRouter(t)
	rid := http.Header{"X-Request-Id": {"r-1"}}
	withRid := func(kv ...string) http.Header {
		h := rid.Clone()
		for i := 0; i+1 < len(kv); i += 2 {
			h.Set(kv[i], kv[i+1])
		}
		return h
	}
	// set replaces the value of one field of a trainee object.
	set := func(trainee, field, value string) string {
		i := strings.Index(trainee, `"`+field+`": `)
		if i < 0 {
			t.Fatalf("no field %s", field)
		}
		j := i + len(field) + 4
		k := strings.IndexAny(trainee[j:], ",}")
		if strings.HasPrefix(trainee[j:], "[") {
			k = strings.Index(trainee[j:], "]") + 1
		}
		return trainee[:j] + value + trainee[j+k:]
	}
	// without removes one field (not the last) of sampleTrainee.
	without := func(field string) string {
		i := strings.Index(sampleTrainee, `"`+field+`": `)
		if i < 0 {
			t.Fatalf("no field %s", field)
		}
		k := strings.Index(sampleTrainee[i:], ",")
		return sampleTrainee[:i] + sampleTrainee[i+k+1:]
	}

	cases := []struct {
		name           string
		method, target string
		status         int
		header         http.Header
		body           string
		valid          bool
	}{
		{"trainee with nulls", "GET", "/public-api/trainees/41", 200, rid, envelope(sampleTrainee), true},
		{"trainee with values", "PUT", "/public-api/trainees/41", 200, rid,
			envelope(set(set(set(sampleTrainee, "phoneNumber", `"+447700900123"`), "trainerId", "7"), "lastTrained", `"01-11-2026"`)), true},
		{"created trainee", "POST", "/public-api/trainees", 200, rid,
			envelope(set(sampleTrainee, "expirationDate", `"31-12-2026"`)), true},
		{"deleted trainee", "DELETE", "/public-api/trainees/41", 200, rid, envelope(set(sampleTrainee, "enabled", "false")), true},
		{"no X-Request-Id", "GET", "/public-api/trainees/41", 200, nil, envelope(sampleTrainee), false},
		{"stray field", "GET", "/public-api/trainees/41", 200, rid,
			envelope(strings.Replace(sampleTrainee, `"id": 41`, `"id": 41, "password": "x"`, 1)), false},
		{"missing nullable field", "GET", "/public-api/trainees/41", 200, rid, envelope(without("expirationDate")), false},
		{"null for a non-nullable field", "GET", "/public-api/trainees/41", 200, rid, envelope(set(sampleTrainee, "weightUnit", "null")), false},
		{"ISO date", "GET", "/public-api/trainees/41", 200, rid, envelope(set(sampleTrainee, "dateOfBirth", `"1990-03-02"`)), false},
		{"phone not normalised", "GET", "/public-api/trainees/41", 200, rid, envelope(set(sampleTrainee, "phoneNumber", `"+44 7700 900123"`)), false},
		{"unknown weight unit", "GET", "/public-api/trainees/41", 200, rid, envelope(set(sampleTrainee, "weightUnit", `"ST"`)), false},
		{"string trainerId", "GET", "/public-api/trainees/41", 200, rid, envelope(set(sampleTrainee, "trainerId", `"7"`)), false},
		{"string timestamp", "GET", "/public-api/trainees/41", 200, rid,
			`{"timestamp": "21-11-2026", "trainee": ` + sampleTrainee + `}`, false},

		{"page", "GET", "/public-api/trainees/search?q=ada", 200, rid,
			`{"timestamp": 1795000000, "content": [` + sampleTrainee + `], "page": {"size": 20, "number": 0, "totalElements": 1, "totalPages": 1, "totalExact": true, "nextCursor": null, "hasMore": false}}`, true},
		{"empty page", "GET", "/public-api/trainees/search", 200, rid,
			`{"timestamp": 1795000000, "content": [], "page": {"size": 20, "number": 3, "totalElements": 0, "totalPages": 0, "totalExact": true, "nextCursor": null, "hasMore": false}}`, true},
		{"page with a lower-bound total", "GET", "/public-api/trainees/search", 200, withRid("Link", `</public-api/trainees/search?after=eyJzIjoiaWQiLCJpIjoyMCwibyI6MjAsImYiOiJ5Y2ZPV3BFTyJ9>; rel="next"`),
			`{"timestamp": 1795000000, "content": [], "page": {"size": 20, "number": 0, "totalElements": 1001, "totalPages": 51, "totalExact": false, "nextCursor": "eyJzIjoiaWQiLCJpIjoyMCwibyI6MjAsImYiOiJ5Y2ZPV3BFTyJ9", "hasMore": true}}`, true},
		{"page without hasMore", "GET", "/public-api/trainees/search", 200, rid,
			`{"timestamp": 1795000000, "content": [], "page": {"size": 20, "number": 3, "totalElements": 0, "totalPages": 0, "totalExact": true, "nextCursor": null}}`, false},
		{"Link not rel next", "GET", "/public-api/trainees/search", 200, withRid("Link", `</public-api/trainees/search?after=x>; rel="prev"`),
			`{"timestamp": 1795000000, "content": [], "page": {"size": 20, "number": 0, "totalElements": 0, "totalPages": 0, "totalExact": true, "nextCursor": null, "hasMore": false}}`, false},
		{"deliveries page", "GET", "/public-api/webhooks/3/deliveries?limit=1", 200, withRid("Link", `</public-api/webhooks/3/deliveries?after=eyJsIjoiYSIsImsiOls1LDJdLCJvIjoxfQ&limit=1>; rel="next"`),
			`{"timestamp": 1795000000, "deliveries": [], "page": {"nextCursor": "eyJsIjoiYSIsImsiOls1LDJdLCJvIjoxfQ", "hasMore": true}, "size": 1, "hasMore": true}`, true},
		{"deliveries with a page number", "GET", "/public-api/webhooks/3/deliveries", 200, rid,
			`{"timestamp": 1795000000, "deliveries": [], "page": 0, "size": 20, "hasMore": false}`, false},
		{"events page", "GET", "/public-api/events?order=desc", 200, rid,
			`{"timestamp": 1795000000, "events": [], "next": "", "hasMore": false, "page": {"nextCursor": null, "hasMore": false}}`, true},
		{"events without page", "GET", "/public-api/events", 200, rid,
			`{"timestamp": 1795000000, "events": [], "next": "", "hasMore": false}`, false},
		{"page without nextCursor", "GET", "/public-api/trainees/search", 200, rid,
			`{"timestamp": 1795000000, "content": [], "page": {"size": 20, "number": 3, "totalElements": 0, "totalPages": 0, "totalExact": true}}`, false},
		{"page with a numeric nextCursor", "GET", "/public-api/trainees/search", 200, rid,
			`{"timestamp": 1795000000, "content": [], "page": {"size": 20, "number": 3, "totalElements": 0, "totalPages": 0, "totalExact": true, "nextCursor": 7}}`, false},
		{"page without totalExact", "GET", "/public-api/trainees/search", 200, rid,
			`{"timestamp": 1795000000, "content": [], "page": {"size": 20, "number": 3, "totalElements": 0, "totalPages": 0, "nextCursor": null}}`, false},
		{"page without page", "GET", "/public-api/trainees/search", 200, rid,
			`{"timestamp": 1795000000, "content": []}`, false},
		{"page with null content", "GET", "/public-api/trainees/search", 200, rid,
			`{"timestamp": 1795000000, "content": null, "page": {"size": 20, "number": 0, "totalElements": 0, "totalPages": 0, "totalExact": true, "nextCursor": null, "hasMore": false}}`, false},

		{"error body", "POST", "/public-api/trainees", 400, rid,
			`{"errorCode": 1001, "message": "name is required", "field": "name", "errors": [{"errorCode": 1001, "message": "name is required", "field": "name"}, {"errorCode": 1003, "message": "", "field": "password"}]}`, true},
		{"error body without field", "PUT", "/public-api/trainees/41", 400, rid,
			`{"errorCode": 1000, "message": "body must be one JSON object", "errors": [{"errorCode": 1000, "message": "body must be one JSON object"}]}`, true},
		{"error body without errors", "PUT", "/public-api/trainees/41", 400, rid,
			`{"errorCode": 1000, "message": "x"}`, false},
		{"unknown error code", "GET", "/public-api/trainees/x", 400, rid,
			`{"errorCode": 999, "message": "x", "errors": [{"errorCode": 999, "message": "x"}]}`, false},
		{"401", "GET", "/public-api/trainees/41", 401, rid, "", true},
		{"413", "POST", "/public-api/trainees", 413, rid, `{"errorCode": 1022, "message": "the body is over 1048576 bytes", "errors": [{"errorCode": 1022, "message": "the body is over 1048576 bytes"}]}`, true},
		{"413 without a body", "POST", "/public-api/trainees", 413, rid, "", false},
		{"404 of an automation", "GET", "/public-api/automations/7", 404, rid, `{"errorCode": 1025, "message": "there is no automation 7 in your company", "field": "id", "errors": [{"errorCode": 1025, "message": "there is no automation 7 in your company", "field": "id"}]}`, true},
		{"500 not found", "GET", "/public-api/trainees/41/nutrition", 500, withRid("X-Error-Reason", "trainee-not-found"), "", true},
		{"500 bad reason", "GET", "/public-api/trainees/41", 500, withRid("X-Error-Reason", "gone"), "", false},
		{"undeclared status", "GET", "/public-api/trainees/41", 404, rid, "", false},
		{"413 on a GET", "GET", "/public-api/trainees/41", 413, rid, "", false},

		{"weight history", "GET", "/public-api/trainees/41/weight-history?from=01-10-2026", 200, rid,
			`{"timestamp": 1795000000, "traineeId": 41, "from": "01-10-2026", "to": "01-11-2026", "unit": "LB", "entries": [{"date": "01-11-2026", "weight": 179.5}]}`, true},
		{"weight history without unit", "GET", "/public-api/trainees/41/weight-history", 200, rid,
			`{"timestamp": 1795000000, "traineeId": 41, "from": "01-10-2026", "to": "01-11-2026", "entries": []}`, false},
		{"measurements", "GET", "/public-api/trainees/41/measurements", 200, rid,
			`{"timestamp": 1795000000, "traineeId": 41, "from": "01-10-2026", "to": "01-11-2026", "measurements": [
			 {"date": "01-11-2026", "type": "CUSTOM", "name": "Wrist", "value": 17, "unit": "CM"},
			 {"date": "01-11-2026", "type": "BODY_FAT", "name": null, "value": 18.5, "unit": "PERCENT"}]}`, true},
		{"custom measurement without name", "GET", "/public-api/trainees/41/measurements", 200, rid,
			`{"timestamp": 1795000000, "traineeId": 41, "from": "01-10-2026", "to": "01-11-2026", "measurements": [
			 {"date": "01-11-2026", "type": "CUSTOM", "name": null, "value": 17, "unit": "CM"}]}`, false},
		{"named waist", "GET", "/public-api/trainees/41/measurements", 200, rid,
			`{"timestamp": 1795000000, "traineeId": 41, "from": "01-10-2026", "to": "01-11-2026", "measurements": [
			 {"date": "01-11-2026", "type": "WAIST", "name": "Waist", "value": 82, "unit": "CM"}]}`, false},
		{"nutrition", "GET", "/public-api/trainees/41/nutrition?date=01-11-2026", 200, rid,
			`{"timestamp": 1795000000, "traineeId": 41, "date": "01-11-2026", "meals": [{"meal": "BREAKFAST", "items": [
			 {"name": "Oats", "quantity": 80, "unit": "g", "calories": 300, "protein": 10, "carbs": 54, "fat": 5}],
			 "totals": {"calories": 300, "protein": 10, "carbs": 54, "fat": 5}}], "totals": {"calories": 300, "protein": 10, "carbs": 54, "fat": 5}}`, true},
		{"empty nutrition day", "GET", "/public-api/trainees/41/nutrition", 200, rid,
			`{"timestamp": 1795000000, "traineeId": 41, "date": "01-11-2026", "meals": [], "totals": {"calories": 0, "protein": 0, "carbs": 0, "fat": 0}}`, true},
		{"nutrition bad meal", "GET", "/public-api/trainees/41/nutrition", 200, rid,
			`{"timestamp": 1795000000, "traineeId": 41, "date": "01-11-2026", "meals": [{"meal": "BRUNCH", "items": [], "totals": {"calories": 0, "protein": 0, "carbs": 0, "fat": 0}}], "totals": {"calories": 0, "protein": 0, "carbs": 0, "fat": 0}}`, false},
		{"average steps", "GET", "/public-api/trainees/41/average-steps", 200, rid,
			`{"timestamp": 1795000000, "traineeId": 41, "from": "26-10-2026", "to": "01-11-2026", "averageSteps": 8421, "daysWithData": 5}`, true},
		{"average steps without data", "GET", "/public-api/trainees/41/average-steps", 200, rid,
			`{"timestamp": 1795000000, "traineeId": 41, "from": "26-10-2026", "to": "01-11-2026", "averageSteps": null, "daysWithData": 0}`, true},
		{"fractional average", "GET", "/public-api/trainees/41/average-steps", 200, rid,
			`{"timestamp": 1795000000, "traineeId": 41, "from": "26-10-2026", "to": "01-11-2026", "averageSteps": 8421.5, "daysWithData": 2}`, false},

		{"healthz", "GET", "/healthz", 200, rid, `{"status": "ok"}`, true},
		{"readyz down", "GET", "/readyz", 503, http.Header{"X-Request-Id": {"r-1"}, "Retry-After": {"1"}}, `{"status": "unavailable"}`, true},
		{"readyz down without Retry-After", "GET", "/readyz", 503, rid, `{"status": "unavailable"}`, false},
		{"readyz bad status", "GET", "/readyz", 200, rid, `{"status": "fine"}`, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := checkResponse(t, router, c.method, c.target, c.status, c.header, c.body)
			if c.valid && err != nil {
				t.Errorf("valid response refused: %v", err)
			}
			if !c.valid && err == nil {
				t.Errorf("invalid response accepted")
			}
			if !c.valid && err != nil && testing.Verbose() {
				t.Logf("refused as expected: %.300s", err)
			}
		})
	}
}

// The search path must not be taken for a trainee id.
func TestOpenAPIRoutes(t *testing.T) {
	router := newOpenAPIRouter(t)
	for target, want := range map[string]string{
		"/public-api/trainees/search":            "searchTrainees",
		"/public-api/trainees/41":                "getTrainee",
		"/public-api/trainees/41/weight-history": "getWeightHistory",
		"/healthz":                               "healthz",
		"/public-api/automations":                "listAutomations",
		"/public-api/automations/7":              "getAutomation",
		"/public-api/automations/7/runs":         "listAutomationRuns",
	} {
		route, _, err := router.FindRoute(httptest.NewRequest("GET", target, nil))
		if err != nil {
			t.Errorf("%s: %v", target, err)
			continue
		}
		if route.Operation.OperationID != want {
			t.Errorf("%s routed to %s, want %s", target, route.Operation.OperationID, want)
		}
	}
}

// Schema-level examples are not checked by doc.Validate; check them here so
// the examples integrators read are true.
func TestOpenAPISchemaExamples(t *testing.T) {
	doc := loadOpenAPI(t)
	seen := map[*openapi3.Schema]bool{}
	checked := 0
	var walk func(name string, s *openapi3.Schema)
	walk = func(name string, s *openapi3.Schema) {
		if s == nil || seen[s] {
			return
		}
		seen[s] = true
		for i, ex := range s.Examples {
			checked++
			if err := s.VisitJSON(ex, openapi3.EnableJSONSchema2020()); err != nil {
				t.Errorf("%s: example %d does not match: %v", name, i, err)
			}
		}
		for p, ref := range s.Properties {
			walk(name+"."+p, ref.Value)
		}
		if s.Items != nil {
			walk(name+"[]", s.Items.Value)
		}
	}
	for name, ref := range doc.Components.Schemas {
		walk(name, ref.Value)
	}
	t.Logf("%d schema examples checked", checked)
	if checked < 8 {
		t.Errorf("only %d schema examples found", checked)
	}
}

// Requests the contract accepts pass the document's request schemas and
// parameters, and malformed ones do not.
func TestOpenAPIRequestValidation(t *testing.T) {
	router := newOpenAPIRouter(t)
	cases := []struct {
		name, method, target, body string
		valid                      bool
	}{
		{"smallest create", "POST", "/public-api/trainees", `{"name": "Ada", "email": "ada@example.com", "password": "12345678"}`, true},
		{"full create", "POST", "/public-api/trainees", `{"name": "Ada", "email": "ada@example.com", "password": "12345678",
			"phoneNumber": "+44 (7700) 900-123", "dateOfBirth": "02-03-1990", "expirationDate": null, "trainerId": 7, "weightUnit": "LB", "companyId": 99}`, true},
		{"create without password", "POST", "/public-api/trainees", `{"name": "Ada", "email": "ada@example.com"}`, false},
		{"create with short password", "POST", "/public-api/trainees", `{"name": "Ada", "email": "ada@example.com", "password": "1234567"}`, false},
		{"update clearing", "PUT", "/public-api/trainees/41", `{"phoneNumber": null, "dateOfBirth": null, "expirationDate": null, "enabled": true}`, true},
		{"empty update", "PUT", "/public-api/trainees/41", `{}`, true},
		{"update with null name", "PUT", "/public-api/trainees/41", `{"name": null}`, false},
		{"update with null weightUnit", "PUT", "/public-api/trainees/41", `{"weightUnit": null}`, false},
		{"search", "GET", "/public-api/trainees/search?q=7700%20900&status=expired&page=2&size=100&sort=expirationDate,desc", "", true},
		{"search size 101", "GET", "/public-api/trainees/search?size=101", "", false},
		{"search bad sort", "GET", "/public-api/trainees/search?sort=password", "", false},
		{"search bad status", "GET", "/public-api/trainees/search?status=gone", "", false},
		{"weight range", "GET", "/public-api/trainees/41/weight-history?from=01-11-2025&to=01-11-2026", "", true},
		{"ISO from", "GET", "/public-api/trainees/41/weight-history?from=2026-11-01", "", false},
		{"measurement type", "GET", "/public-api/trainees/41/measurements?type=LEFT_CALF", "", true},
		{"unknown measurement type", "GET", "/public-api/trainees/41/measurements?type=ELBOW", "", false},
		{"id 0", "GET", "/public-api/trainees/0", "", false},
		{"automation create", "POST", "/public-api/automations", `{"name": "CRM", "trigger": {"type": "EXPIRATION_APPROACHING", "days": 7},
			"conditions": {"trainerId": null, "status": "active"}, "actionType": "WEBHOOK", "action": {"url": "https://crm.example/in"}}`, true},
		{"automation create without trigger", "POST", "/public-api/automations", `{"name": "CRM", "actionType": "WEBHOOK"}`, false},
		{"automation merge update", "PUT", "/public-api/automations/7", `{"trigger": {"days": 3}}`, true},
		{"automation list page", "GET", "/public-api/automations?page=1&size=100", "", true},
		{"automation list cursor", "GET", "/public-api/automations?after=eyJsIjoiYSIsImsiOls1XSwibyI6MX0&limit=100", "", true},
		{"automation list limit 0", "GET", "/public-api/automations?limit=0", "", false},
		{"automation runs size 101", "GET", "/public-api/automations/7/runs?size=101", "", false},
		{"automation runs limit 101", "GET", "/public-api/automations/7/runs?limit=101", "", false},
		{"deliveries cursor", "GET", "/public-api/webhooks/3/deliveries?after=eyJsIjoiYSIsImsiOls1LDJdLCJvIjoxfQ&limit=1", "", true},
		{"deliveries cursor not base64url", "GET", "/public-api/webhooks/3/deliveries?after=a%2Bb", "", false},
		{"events limit 500 newest first", "GET", "/public-api/events?limit=500&order=desc", "", true},
		{"events limit 501", "GET", "/public-api/events?limit=501", "", false},
		{"events order up", "GET", "/public-api/events?order=up", "", false},
		{"search after and limit", "GET", "/public-api/trainees/search?after=eyJzIjoiaWQiLCJpIjoyMCwibyI6MjAsImYiOiJ5Y2ZPV3BFTyJ9&limit=100", "", true},
		{"automation dry run", "POST", "/public-api/automations/7/test", "", true},
		{"automation id 0", "DELETE", "/public-api/automations/0", "", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var body *bytes.Reader
			if c.body != "" {
				body = bytes.NewReader([]byte(c.body))
			} else {
				body = bytes.NewReader(nil)
			}
			req := httptest.NewRequest(c.method, c.target, body)
			req.Header.Set("X-API-Key", "pk_0123456789012345678901234567890123456789")
			if c.body != "" {
				req.Header.Set("Content-Type", "application/json")
			}
			route, params, err := router.FindRoute(req)
			if err != nil {
				t.Fatalf("no route: %v", err)
			}
			err = openapi3filter.ValidateRequest(context.Background(), &openapi3filter.RequestValidationInput{
				Request: req, PathParams: params, Route: route,
				Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc},
			})
			if c.valid && err != nil {
				t.Errorf("valid request refused: %v", err)
			}
			if !c.valid && err == nil {
				t.Errorf("invalid request accepted")
			}
			if !c.valid && err != nil && testing.Verbose() {
				t.Logf("refused as expected: %.200s", err)
			}
		})
	}
}
