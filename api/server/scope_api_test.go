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
	"github.com/traineed/traineed/store/storetest"
)

// readKey makes a read-only key of company.
func (e *env) readKey(company int64) string {
	e.t.Helper()
	k := api.GenerateKey()
	_, err := e.store.CreateScopedKey(context.Background(), company, "reader", api.KeyScopeRead, api.HashKey(k), api.KeyDisplayPrefix(k))
	must(e.t, err)
	return k
}

// A read key is refused on every write of the document, with the 403 1014
// body and nothing changed, and may call every GET. The table is every
// route and method of api/openapi.yaml, so a new write route is covered
// the day it is documented.
func TestReadKeyOnEveryRoute(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		rc := storetest.NewReceiver(t, nil)
		var wh api.WebhookEnvelope
		e.do("POST", api.PathWebhooks, e.keyA, map[string]any{"url": rc.URL}).expect(t, 200).JSON(t, &wh)
		ada := e.create(e.keyA, newTraineeBody("Ada Park"))
		var feed api.EventPage
		e.do("GET", api.PathEvents, e.keyA, nil).expect(t, 200).JSON(t, &feed)
		if len(feed.Events) != 1 {
			t.Fatalf("feed %+v", feed)
		}
		reader := e.readKey(e.companyA)
		before := snapshot(t, e)

		doc, err := openapi3.NewLoader().LoadFromData(api.OpenAPIDocument)
		must(t, err)
		var paths []string
		for p := range doc.Paths.Map() {
			paths = append(paths, p)
		}
		sort.Strings(paths)
		writes, reads := 0, 0
		for _, p := range paths {
			if !strings.HasPrefix(p, "/public-api/") {
				continue
			}
			id := strconv.FormatInt(ada.ID, 10)
			switch {
			case strings.HasPrefix(p, api.PathWebhooks):
				id = strconv.FormatInt(wh.Webhook.ID, 10)
			case strings.HasPrefix(p, api.PathEvents):
				id = feed.Events[0].ID
			}
			path := strings.ReplaceAll(p, "{id}", id)
			for method := range doc.Paths.Value(p).Operations() {
				t.Run(method+" "+p, func(t *testing.T) {
					// A body the route would accept from a full key.
					var body any
					switch {
					case method == "POST" && p == api.PathTrainees:
						body = newTraineeBody("Rita Reader")
					case method == "POST" && p == api.PathWebhooks:
						body = map[string]any{"url": rc.URL}
					case method == "PUT" && strings.HasPrefix(p, api.PathTrainees):
						body = map[string]any{"name": "Changed"}
					case method == "PUT":
						body = map[string]any{"enabled": false}
					case method == "POST":
						body = map[string]any{}
					}
					r := e.do(method, path, reader, body)
					if method == "GET" {
						reads++
						if r.Status == http.StatusForbidden {
							t.Fatalf("a read key is refused a GET: %s", r.Body)
						}
						return
					}
					writes++
					r.expect(t, http.StatusForbidden)
					var b api.ErrorBody
					r.JSON(t, &b)
					if b.ErrorCode != api.CodeReadOnlyKey || b.Message != "this key is read-only" || len(b.Errors) != 1 || b.Errors[0].ErrorCode != api.CodeReadOnlyKey {
						t.Fatalf("403 body %s", r.Body)
					}
				})
			}
		}
		if writes < 10 || reads < 10 {
			t.Fatalf("walked %d writes and %d reads: the table is not the document", writes, reads)
		}
		// Also a write with a method the document does not have.
		e.do("PATCH", "/public-api/trainees/"+strconv.FormatInt(ada.ID, 10), reader, map[string]any{}).expect(t, http.StatusForbidden)
		if rc.Count() != 0 {
			t.Fatalf("a read key's test reached the receiver")
		}
		if after := snapshot(t, e); after != before {
			t.Fatalf("a read key changed something:\n%s\n%s", before, after)
		}
		// The same writes with the full key do go through (the table is
		// not vacuous): one of them.
		e.do("PUT", webhookPath(wh.Webhook.ID, ""), e.keyA, map[string]any{"enabled": false}).expect(t, http.StatusOK)
	})
}

// GET /keys/current describes the calling key, scope included.
func TestCurrentKey(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		reader := e.readKey(e.companyB)
		for _, c := range []struct {
			key, scope, company string
			companyID           int64
		}{{e.keyA, "full", "Company A", e.companyA}, {reader, "read", "Company B", e.companyB}} {
			var got api.CurrentKeyEnvelope
			e.do("GET", api.PathCurrentKey, c.key, nil).expect(t, 200).JSON(t, &got)
			k := got.Key
			if k == nil || k.Scope != c.scope || k.CompanyID != c.companyID || k.CompanyName != c.company || k.Prefix != c.key[:8] || k.Name == "" || k.ID == 0 {
				t.Fatalf("current key %+v, want scope %s of %s", k, c.scope, c.company)
			}
			if strings.Contains(string(e.do("GET", api.PathCurrentKey, c.key, nil).Body), c.key) {
				t.Fatal("the key itself is returned")
			}
		}
		e.do("GET", api.PathCurrentKey, "", nil).expect(t, http.StatusUnauthorized)
	})
}
