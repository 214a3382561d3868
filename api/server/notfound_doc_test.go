package server_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/traineed/traineed/api"
)

// What an id of another company answers, on every route with an id, is
// what openapi.yaml says of it: the status is among the operation's
// responses, the id parameter's description names that status and no
// other answer for such an id, and X-Error-Reason's documented values are
// exactly the ones the server sends (a stale "500 with webhook-not-found"
// where the server answers 404 1025 fails here).
func TestNotFoundIsAsDocumented(t *testing.T) {
	doc, err := openapi3.NewLoader().LoadFromData(api.OpenAPIDocument)
	must(t, err)
	hdr := doc.Components.Headers["X-Error-Reason"].Value
	var documented []string
	for _, v := range hdr.Schema.Value.Enum {
		documented = append(documented, fmt.Sprint(v))
	}
	each(t, func(t *testing.T, e *env) {
		f := newScopeFixture(t, e)
		sent := map[string]bool{}
		for _, op := range docOperations(t) {
			if !strings.Contains(op.path, "{id}") {
				continue
			}
			r := e.do(op.method, f.path(e, op), f.otherAdmin, scopeBody(e, op))
			if reason := r.Header.Get(api.HeaderErrorReason); reason != "" {
				sent[reason] = true
			}
			o := doc.Paths.Find(op.path).GetOperation(op.method)
			if o.Responses.Status(r.Status) == nil {
				t.Errorf("%s %s: another company's id answers %d, which the operation does not document", op.method, op.path, r.Status)
			}
			desc := idParameter(doc, op.path, o)
			if !strings.Contains(desc, fmt.Sprintf("`%d`", r.Status)) {
				t.Errorf("%s %s: another company's id answers %d; the id's description says %q", op.method, op.path, r.Status, desc)
			}
			for _, other := range []int{404, 500} {
				if other != r.Status && strings.Contains(desc, fmt.Sprintf("is a `%d`", other)) {
					t.Errorf("%s %s: the id's description says %d for an id not the caller's; the server answers %d", op.method, op.path, other, r.Status)
				}
			}
		}
		var got []string
		for reason := range sent {
			got = append(got, reason)
		}
		slices.Sort(got)
		if want := slices.Sorted(slices.Values(documented)); !slices.Equal(got, want) {
			t.Errorf("X-Error-Reason: the server sends %v, openapi.yaml documents %v", got, want)
		}
	})
}

// idParameter is the description of the path parameter id of an
// operation, declared on the operation or on its path.
func idParameter(doc *openapi3.T, path string, o *openapi3.Operation) string {
	params := append(slices.Clone(o.Parameters), doc.Paths.Find(path).Parameters...)
	for _, p := range params {
		if p.Value != nil && p.Value.Name == "id" && p.Value.In == "path" {
			return p.Value.Description
		}
	}
	return ""
}
