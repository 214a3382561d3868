package server

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"

	"github.com/traineed/traineed/api"
)

// handlerFunc is a handler that returns its error instead of writing it:
// handle turns it into an http.Handler whose errors go to writeError.
type handlerFunc func(w http.ResponseWriter, r *http.Request) error

// handle serves fn, its error written by writeError. A GET or HEAD whose
// handler met a lost database connection (api.ErrUnavailable) before
// writing anything is run once more: a read changes nothing, and the
// store has dropped the connections that went with the lost one, so the
// second run gets a new one.
func (h *Handler) handle(fn handlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		err := h.classify(fn(w, r))
		if err != nil && retryRead(w, r, err) {
			err = h.classify(fn(w, r))
		}
		if err != nil {
			h.writeError(w, r, err)
		}
	})
}

// classify marks err api.ErrUnavailable when the store says it is a lost
// connection (api.ErrorClassifier).
func (h *Handler) classify(err error) error {
	if c, ok := h.store.(api.ErrorClassifier); ok && err != nil {
		return c.ClassifyError(err)
	}
	return err
}

// retryRead reports whether a request that failed with err may be run
// again: a GET or HEAD that lost its database connection, wrote nothing
// yet, and whose client still waits.
func retryRead(w http.ResponseWriter, r *http.Request, err error) bool {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		return false
	}
	rec, ok := w.(*recorder)
	return ok && !rec.wrote && errors.Is(err, api.ErrUnavailable) && r.Context().Err() == nil
}

// route is one public route: its handler, the least scope that may call
// it (admin ⊇ full ⊇ read), and what a key limited to its trainer's
// trainees (ownTraineesOnly) may do with it. openapi.yaml declares the same
// scope on each operation (x-scope); a test holds the two together.
type route struct {
	fn    handlerFunc
	scope string
	own   ownRule
	// secret: the answer carries a key's secret, which an idempotent
	// replay would have to keep: the route takes no Idempotency-Key.
	secret bool
}

// ownRule is what a key limited to its trainer's trainees may do with a
// route.
type ownRule int

const (
	// ownRefused: the route reaches the whole company (webhooks,
	// automations, administration): 403 1030.
	ownRefused ownRule = iota
	// ownTrainee: the path's {id} is a trainee, which must be the
	// trainer's (checked before the route; any other answers as another
	// company's).
	ownTrainee
	// ownNarrowed: the handler keeps to the trainer's trainees (search,
	// stats, the feed, a create) or shows nothing of the others'.
	ownNarrowed
)

// publicRoutes are the routes under /public-api/, by pattern.
func (h *Handler) publicRoutes() map[string]route {
	read, full, admin := api.KeyScopeRead, api.KeyScopeFull, api.KeyScopeAdmin
	id := api.PathTrainees + "/{id}"
	return map[string]route{
		"POST " + api.PathTrainees:                         {fn: h.createTrainee, scope: full, own: ownNarrowed},
		"POST " + api.PathErasedCheck:                      {fn: h.erasedCheck, scope: full, own: ownNarrowed},
		"GET " + api.PathSearch:                            {fn: h.searchTrainees, scope: read, own: ownNarrowed},
		"GET " + api.PathStats:                             {fn: h.traineeStats, scope: read, own: ownNarrowed},
		"GET " + id:                                        {fn: h.getTrainee, scope: read, own: ownTrainee},
		"PUT " + id:                                        {fn: h.updateTrainee, scope: full, own: ownTrainee},
		"DELETE " + id:                                     {fn: h.deleteTrainee, scope: full, own: ownTrainee},
		"GET " + id + "/weight-history":                    {fn: h.weightHistory, scope: read, own: ownTrainee},
		"GET " + id + "/measurements":                      {fn: h.measurements, scope: read, own: ownTrainee},
		"GET " + id + "/nutrition":                         {fn: h.nutrition, scope: read, own: ownTrainee},
		"GET " + id + "/average-steps":                     {fn: h.averageSteps, scope: read, own: ownTrainee},
		"GET " + id + "/steps":                             {fn: h.steps, scope: read, own: ownTrainee},
		"POST " + id + "/erase":                            {fn: h.eraseTrainee, scope: full, own: ownTrainee},
		"GET " + id + "/export":                            {fn: h.exportTrainee, scope: read, own: ownTrainee},
		"GET " + api.PathCurrentKey:                        {fn: h.currentKey, scope: read, own: ownNarrowed},
		"GET " + api.PathWebhooks:                          {fn: h.listWebhooks, scope: read},
		"POST " + api.PathWebhooks:                         {fn: h.createWebhook, scope: full},
		"GET " + api.PathWebhooks + "/{id}":                {fn: h.getWebhook, scope: read},
		"PUT " + api.PathWebhooks + "/{id}":                {fn: h.updateWebhook, scope: full},
		"DELETE " + api.PathWebhooks + "/{id}":             {fn: h.deleteWebhook, scope: full},
		"GET " + api.PathWebhooks + "/{id}/deliveries":     {fn: h.webhookDeliveries, scope: read},
		"POST " + api.PathWebhooks + "/{id}/test":          {fn: h.testWebhook, scope: full},
		"POST " + api.PathWebhooks + "/{id}/rotate-secret": {fn: h.rotateWebhookSecret, scope: full},
		"GET " + api.PathEvents:                            {fn: h.listEvents, scope: read, own: ownNarrowed},
		"POST " + api.PathEvents + "/{id}/redeliver":       {fn: h.redeliverEvent, scope: full},
		"GET " + api.PathAutomations:                       {fn: h.listAutomations, scope: read},
		"POST " + api.PathAutomations:                      {fn: h.createAutomation, scope: full},
		"GET " + api.PathAutomations + "/{id}":             {fn: h.getAutomation, scope: read},
		"PUT " + api.PathAutomations + "/{id}":             {fn: h.updateAutomation, scope: full},
		"DELETE " + api.PathAutomations + "/{id}":          {fn: h.deleteAutomation, scope: full},
		"GET " + api.PathAutomations + "/{id}/runs":        {fn: h.automationRuns, scope: read},
		"POST " + api.PathAutomations + "/{id}/test":       {fn: h.testAutomation, scope: full},
		"GET " + api.PathTrainers:                          {fn: h.listTrainers, scope: read, own: ownNarrowed},
		"POST " + api.PathTrainers:                         {fn: h.createTrainer, scope: admin},
		"GET " + api.PathTrainers + "/{id}":                {fn: h.getTrainer, scope: read, own: ownNarrowed},
		"PATCH " + api.PathTrainers + "/{id}":              {fn: h.updateTrainer, scope: admin},
		"POST " + api.PathTrainers + "/{id}/reassign":      {fn: h.reassignTrainees, scope: admin},
		"GET " + api.PathKeys:                              {fn: h.listKeys, scope: admin},
		"POST " + api.PathKeys:                             {fn: h.createKey, scope: admin, secret: true},
		"GET " + api.PathKeys + "/{id}":                    {fn: h.getKey, scope: admin},
		"PATCH " + api.PathKeys + "/{id}":                  {fn: h.updateKey, scope: admin},
		"DELETE " + api.PathKeys + "/{id}":                 {fn: h.revokeKey, scope: admin},
		"POST " + api.PathKeys + "/{id}/rotate":            {fn: h.rotateKey, scope: admin, secret: true},
		"GET " + api.PathCompany:                           {fn: h.getCompany, scope: read, own: ownNarrowed},
		"PATCH " + api.PathCompany:                         {fn: h.updateCompany, scope: admin},
	}
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
	h.table = h.publicRoutes()
	for pattern, rt := range h.table {
		h.public.Handle(pattern, h.handle(rt.fn))
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
	// A read key may only GET, whatever the path, so no write route can
	// be missed (an unknown one included); then the route's own scope, and
	// what a key limited to its trainer's trainees may do with it.
	if !api.WritesAllowed(p.Scope, r.Method) {
		return api.ErrReadOnlyKey
	}
	next, pattern := h.public.Handler(r)
	rt, known := h.table[pattern]
	if known {
		if err := h.admit(r, p, rt); err != nil {
			return err
		}
	}
	if (r.Method == http.MethodPost && !rt.secret) || idempotentTraineeWrite(r) {
		if values := r.Header.Values(api.HeaderIdempotencyKey); len(values) > 0 {
			return h.idempotent(w, r, p, values)
		}
	}
	return h.serve(h.public, w, r, next, pattern)
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
	api.PathSearch:      "GET, HEAD",
	api.PathStats:       "GET, HEAD",
	api.PathCurrentKey:  "GET, HEAD",
	api.PathErasedCheck: "POST",
}

// dispatch serves r with mux's handler for it; when mux has none it
// returns the *routeError (404, or 405 with Allow) the mux would answer.
func (h *Handler) dispatch(mux *http.ServeMux, w http.ResponseWriter, r *http.Request) error {
	next, pattern := mux.Handler(r)
	return h.serve(mux, w, r, next, pattern)
}

// serve is dispatch once mux.Handler has answered next and pattern.
func (h *Handler) serve(mux *http.ServeMux, w http.ResponseWriter, r *http.Request, next http.Handler, pattern string) error {
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
