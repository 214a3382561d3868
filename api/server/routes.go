package server

import (
	"context"
	"net/http"
	"slices"
	"strings"

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
	if h.metrics != nil && h.metricsEndpoint {
		h.root.Handle("GET /metrics", h.metrics.endpoint)
	}

	for pattern, fn := range map[string]handlerFunc{
		"POST " + api.PathTrainees:                         h.createTrainee,
		"GET " + api.PathSearch:                            h.searchTrainees,
		"GET " + api.PathStats:                             h.traineeStats,
		"GET " + api.PathTrainees + "/{id}":                h.getTrainee,
		"PUT " + api.PathTrainees + "/{id}":                h.updateTrainee,
		"DELETE " + api.PathTrainees + "/{id}":             h.deleteTrainee,
		"GET " + api.PathTrainees + "/{id}/weight-history": h.weightHistory,
		"GET " + api.PathTrainees + "/{id}/measurements":   h.measurements,
		"GET " + api.PathTrainees + "/{id}/nutrition":      h.nutrition,
		"GET " + api.PathTrainees + "/{id}/average-steps":  h.averageSteps,
		"POST " + api.PathTrainees + "/{id}/erase":         h.eraseTrainee,
		"GET " + api.PathTrainees + "/{id}/export":         h.exportTrainee,
		"GET " + api.PathCurrentKey:                        h.currentKey,
		"GET " + api.PathWebhooks:                          h.listWebhooks,
		"POST " + api.PathWebhooks:                         h.createWebhook,
		"GET " + api.PathWebhooks + "/{id}":                h.getWebhook,
		"PUT " + api.PathWebhooks + "/{id}":                h.updateWebhook,
		"DELETE " + api.PathWebhooks + "/{id}":             h.deleteWebhook,
		"GET " + api.PathWebhooks + "/{id}/deliveries":     h.webhookDeliveries,
		"POST " + api.PathWebhooks + "/{id}/test":          h.testWebhook,
		"POST " + api.PathWebhooks + "/{id}/rotate-secret": h.rotateWebhookSecret,
		"GET " + api.PathEvents:                            h.listEvents,
		"POST " + api.PathEvents + "/{id}/redeliver":       h.redeliverEvent,
		"GET " + api.PathAutomations:                       h.listAutomations,
		"POST " + api.PathAutomations:                      h.createAutomation,
		"GET " + api.PathAutomations + "/{id}":             h.getAutomation,
		"PUT " + api.PathAutomations + "/{id}":             h.updateAutomation,
		"DELETE " + api.PathAutomations + "/{id}":          h.deleteAutomation,
		"GET " + api.PathAutomations + "/{id}/runs":        h.automationRuns,
		"POST " + api.PathAutomations + "/{id}/test":       h.testAutomation,
		"GET " + api.PathTrainers:                          h.listTrainers,
	} {
		h.public.Handle(pattern, h.handle(fn))
	}
}

// authenticate checks the key before anything else, the route included,
// then dispatches on the public routes.
func (h *Handler) authenticate(w http.ResponseWriter, r *http.Request) error {
	keys := r.Header.Values(api.HeaderAPIKey)
	if len(keys) != 1 || !api.WellFormedKey(keys[0]) {
		return api.ErrUnauthorized // none, or several: which one would decide?
	}
	key := keys[0]
	p, read, err := h.authenticateRead(r, api.HashKey(key))
	if err != nil {
		return err
	}
	if rec, ok := w.(*recorder); ok {
		rec.companyID = p.CompanyID
	}
	ctx := context.WithValue(r.Context(), principalKey, p)
	// The key is who makes the changes the request's store writes record
	// (the feed's actor).
	ctx = api.WithActor(ctx, api.Actor{Type: api.ActorKey, ID: p.KeyID})
	if read != nil {
		ctx = context.WithValue(ctx, traineeReadKey, read)
	}
	r = r.WithContext(ctx)
	w.Header().Set("Cache-Control", "no-store")
	if err := h.rateLimit(w, p.KeyID); err != nil {
		return err
	}
	if allow, ok := literalPaths[r.URL.Path]; ok && !slices.Contains(strings.Split(allow, ", "), r.Method) {
		return &routeError{status: http.StatusMethodNotAllowed, allow: allow}
	}
	// The one check of a key's scope, before any route: a read key may
	// only GET, whatever the path, so no write route can be missed.
	if !api.WritesAllowed(p.Scope, r.Method) {
		return api.ErrReadOnlyKey
	}
	if r.Method == http.MethodPost || idempotentTraineeWrite(r) {
		if values := r.Header.Values(api.HeaderIdempotencyKey); len(values) > 0 {
			return h.idempotent(w, r, p, values)
		}
	}
	return h.dispatch(h.public, w, r)
}

// idempotentTraineeWrite reports whether r is a PUT or DELETE of one
// trainee: those take an Idempotency-Key as POSTs do (their store writes
// join the key's transaction); on other PUT and DELETE routes the header
// is ignored, as before.
func idempotentTraineeWrite(r *http.Request) bool {
	if r.Method != http.MethodPut && r.Method != http.MethodDelete {
		return false
	}
	rest, ok := strings.CutPrefix(r.URL.Path, api.PathTrainees+"/")
	return ok && rest != "" && !strings.Contains(rest, "/")
}

// authenticateRead authenticates the key whose hash is hash. For GET (or
// HEAD) /trainees/{id} it also reads the trainee, in the same round trip
// when the store can (api.KeyTraineeReader): the read is then in the
// context, for getTrainee. The key is looked up anew either way (never
// cached); when the one statement finds nothing, the key is looked up
// alone to tell a bad key (401) from a missing trainee (404).
func (h *Handler) authenticateRead(r *http.Request, hash [32]byte) (*api.Principal, *versionedTrainee, error) {
	if id, ok := traineeReadID(r); ok {
		if kv, ok := h.store.(api.KeyTraineeVersionReader); ok {
			p, t, version, found, err := kv.AuthenticateTraineeVersion(r.Context(), hash, id)
			if err != nil || found {
				return p, &versionedTrainee{t, version}, err
			}
		} else if kt, ok := h.store.(api.KeyTraineeReader); ok {
			p, t, found, err := kt.AuthenticateTrainee(r.Context(), hash, id)
			if err != nil || found {
				return p, &versionedTrainee{t, 0}, err
			}
		}
	}
	p, err := h.store.Authenticate(r.Context(), hash)
	return p, nil, err
}

// traineeReadID is the id of a GET or HEAD /trainees/{id}.
func traineeReadID(r *http.Request) (int64, bool) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		return 0, false
	}
	rest, ok := strings.CutPrefix(r.URL.Path, api.PathTrainees+"/")
	if !ok {
		return 0, false
	}
	return api.ParseID(rest)
}

// literalPaths are the literal paths that a pattern with a wildcard would
// match too (/trainees/search against /trainees/{id}), with the methods
// they allow: the literal path wins, so any other method is a 405 with
// that Allow rather than the wildcard route's answer.
var literalPaths = map[string]string{
	api.PathSearch: "GET, HEAD",
	api.PathStats:  "GET, HEAD",
}

// dispatch serves r with mux's handler for it; when mux has none it
// returns the *routeError (404, or 405 with Allow) the mux would answer.
func (h *Handler) dispatch(mux *http.ServeMux, w http.ResponseWriter, r *http.Request) error {
	next, pattern := mux.Handler(r)
	if rec, ok := w.(*recorder); ok {
		rec.pattern = pattern // "" (no route) is counted as unmatched
	}
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
