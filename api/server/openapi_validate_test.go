package server_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"
	"github.com/traineed/traineed/api"
)

var (
	oaOnce   sync.Once
	oaRouter routers.Router
	oaErr    error
)

// loadRouter builds a router over api/openapi.yaml with its servers
// removed, so that any host (the test server's) matches.
func loadRouter() (routers.Router, error) {
	oaOnce.Do(func() {
		loader := openapi3.NewLoader()
		doc, err := loader.LoadFromData(api.OpenAPIDocument)
		if err != nil {
			oaErr = err
			return
		}
		if err := doc.Validate(context.Background()); err != nil {
			oaErr = err
			return
		}
		doc.Servers = nil
		oaRouter, oaErr = legacy.NewRouter(doc)
	})
	return oaRouter, oaErr
}

// validateResponse checks one exchange against openapi.yaml: the route
// must be documented and the response's status, headers and body must
// match what the document says of it.
func validateResponse(t testing.TB, req *http.Request, reqBody []byte, r *resp) {
	t.Helper()
	router, err := loadRouter()
	if err != nil {
		t.Fatalf("openapi.yaml: %v", err)
	}
	head := req.Method == http.MethodHead
	if head {
		// The document says every GET answers HEAD with the same status
		// and headers and no body: check a HEAD as its GET.
		get := req.Clone(req.Context())
		get.Method = http.MethodGet
		req = get
		if len(r.Body) != 0 {
			t.Fatalf("HEAD %s answered a body", req.URL.Path)
		}
	}
	route, params, err := router.FindRoute(req)
	if err != nil {
		// Undocumented routes may only answer 401, 403 (a read key's
		// write, refused before the route), 404 or 405.
		if r.Status != 401 && r.Status != 403 && r.Status != 404 && r.Status != 405 {
			t.Fatalf("%s %s: not in openapi.yaml (%v) but answered %d", req.Method, req.URL.Path, err, r.Status)
		}
		return
	}
	if r.Status == 405 && !pathParamsFit(req, route, params) {
		// The router matched a pattern (/trainees/{id}) that the literal
		// path (/trainees/search) is not an instance of: the 405 is the
		// literal path's, for a method the document does not list.
		return
	}
	if reqBody != nil {
		req.Body = io.NopCloser(bytes.NewReader(reqBody))
	}
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route},
		Status:                 r.Status,
		Header:                 r.Header,
		Body:                   io.NopCloser(bytes.NewReader(r.Body)),
		Options:                &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true, ExcludeResponseBody: head},
	}
	if err := openapi3filter.ValidateResponse(context.Background(), in); err != nil {
		t.Fatalf("%s %s → %d does not match openapi.yaml: %v\nbody: %s", req.Method, req.URL, r.Status, err, r.Body)
	}
}

// pathParamsFit reports whether every path parameter of the matched route
// fits its schema (search does not fit an integer id).
func pathParamsFit(req *http.Request, route *routers.Route, params map[string]string) bool {
	in := &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route}
	for _, p := range route.PathItem.Parameters {
		if p.Value != nil && p.Value.In == "path" {
			if err := openapi3filter.ValidateParameter(context.Background(), in, p.Value); err != nil {
				return false
			}
		}
	}
	return true
}
