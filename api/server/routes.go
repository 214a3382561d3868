package server

import (
	"context"
	"net/http"

	"github.com/traineed/traineed/api"
)

// handlerFunc is a handler that returns its error instead of writing it:
// handle turns it into an http.Handler whose errors go to writeError.
type handlerFunc func(w http.ResponseWriter, r *http.Request) error

func (h *Handler) handle(fn handlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := fn(w, r); err != nil {
			h.writeError(w, r, err)
		}
	})
}

// routes registers every route. GET patterns answer HEAD too.
func (h *Handler) routes() {
	h.root.Handle("GET /healthz", h.handle(h.healthz))
	h.root.Handle("GET /readyz", h.handle(h.readyz))
	h.root.Handle("GET /openapi.yaml", h.handle(h.document))
	h.root.Handle("/public-api/", h.handle(h.authenticate))

	for pattern, fn := range map[string]handlerFunc{
		"POST " + api.PathTrainees:                         h.createTrainee,
		"GET " + api.PathSearch:                            h.searchTrainees,
		"GET " + api.PathTrainees + "/{id}":                h.getTrainee,
		"PUT " + api.PathTrainees + "/{id}":                h.updateTrainee,
		"DELETE " + api.PathTrainees + "/{id}":             h.deleteTrainee,
		"GET " + api.PathTrainees + "/{id}/weight-history": h.weightHistory,
		"GET " + api.PathTrainees + "/{id}/measurements":   h.measurements,
		"GET " + api.PathTrainees + "/{id}/nutrition":      h.nutrition,
		"GET " + api.PathTrainees + "/{id}/average-steps":  h.averageSteps,
		"GET " + api.PathTrainers:                          h.listTrainers,
		"/public-api/automations":                          h.reserved,
		"/public-api/automations/":                         h.reserved,
	} {
		h.public.Handle(pattern, h.handle(fn))
	}
}

// authenticate checks the key before anything else, the route included,
// then dispatches on the public routes.
func (h *Handler) authenticate(w http.ResponseWriter, r *http.Request) error {
	key := r.Header.Get(api.HeaderAPIKey)
	if !api.WellFormedKey(key) {
		return api.ErrUnauthorized
	}
	p, err := h.store.Authenticate(r.Context(), api.HashKey(key))
	if err != nil {
		return err
	}
	if rec, ok := w.(*recorder); ok {
		rec.companyID = p.CompanyID
	}
	r = r.WithContext(context.WithValue(r.Context(), principalKey, p))
	w.Header().Set("Cache-Control", "no-store")
	return h.dispatch(h.public, w, r)
}

// dispatch serves r with mux's handler for it; when mux has none it
// returns the *routeError (404, or 405 with Allow) the mux would answer.
func (h *Handler) dispatch(mux *http.ServeMux, w http.ResponseWriter, r *http.Request) error {
	next, pattern := mux.Handler(r)
	if pattern == "" {
		return newRouteError(next, r)
	}
	mux.ServeHTTP(w, r)
	return nil
}

// routeError is a request no route serves: 404, or 405 with the methods
// the path allows.
type routeError struct {
	status int
	allow  string
}

func (e *routeError) Error() string { return http.StatusText(e.status) }

// newRouteError asks the mux's own 404/405 handler what it would answer.
func newRouteError(muxHandler http.Handler, r *http.Request) error {
	probe := &headerProbe{header: http.Header{}}
	muxHandler.ServeHTTP(probe, r)
	return &routeError{status: probe.status, allow: probe.header.Get("Allow")}
}

// headerProbe records a status and headers and drops the body.
type headerProbe struct {
	header http.Header
	status int
}

func (p *headerProbe) Header() http.Header { return p.header }
func (p *headerProbe) Write(b []byte) (int, error) {
	if p.status == 0 {
		p.status = http.StatusOK
	}
	return len(b), nil
}
func (p *headerProbe) WriteHeader(code int) {
	if p.status == 0 {
		p.status = code
	}
}
