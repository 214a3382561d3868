package server

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/traineed/traineed/api"
)

// Option configures a Handler.
type Option func(*Handler)

// WithHasher sets the password hasher (tests pass cheap parameters).
func WithHasher(h *Hasher) Option { return func(x *Handler) { x.hasher = h } }

// WithLogger sets the logger for access lines and server errors.
func WithLogger(l *slog.Logger) Option { return func(x *Handler) { x.log = l } }

// WithClock sets the clock used for timestamps and "today".
func WithClock(now func() time.Time) Option { return func(x *Handler) { x.now = now } }

// Handler serves the public API, /healthz, /readyz and /openapi.yaml.
type Handler struct {
	store  api.Store
	hasher *Hasher
	log    *slog.Logger
	now    func() time.Time
	api    *http.ServeMux // routes under /public-api/, reached after authentication
}

// NewHandler returns the HTTP handler of the service over st.
func NewHandler(st api.Store, opts ...Option) *Handler {
	h := &Handler{store: st, now: time.Now, log: slog.New(slog.DiscardHandler), api: http.NewServeMux()}
	for _, o := range opts {
		o(h)
	}
	if h.hasher == nil {
		h.hasher = NewHasher(DefaultPasswordParams)
	}
	h.routes()
	return h
}

func (h *Handler) routes() {
	h.api.HandleFunc("POST /public-api/trainees", h.createTrainee)
	h.api.HandleFunc("GET /public-api/trainees/search", h.searchTrainees)
	h.api.HandleFunc("GET /public-api/trainees/{id}", h.getTrainee)
	h.api.HandleFunc("PUT /public-api/trainees/{id}", h.updateTrainee)
	h.api.HandleFunc("DELETE /public-api/trainees/{id}", h.deleteTrainee)
	h.api.HandleFunc("GET /public-api/trainees/{id}/weight-history", h.weightHistory)
	h.api.HandleFunc("GET /public-api/trainees/{id}/measurements", h.measurements)
	h.api.HandleFunc("GET /public-api/trainees/{id}/nutrition", h.nutrition)
	h.api.HandleFunc("GET /public-api/trainees/{id}/average-steps", h.averageSteps)
	h.api.HandleFunc("/public-api/automations", h.reserved)
	h.api.HandleFunc("/public-api/automations/", h.reserved)
}

type ctxKey int

const (
	principalKey ctxKey = iota
	requestIDKey
)

// principal returns the authenticated caller; handlers under /public-api
// always have one.
func principal(ctx context.Context) *api.Principal { return ctx.Value(principalKey).(*api.Principal) }

// RequestID returns the request id of a request being served.
func RequestID(ctx context.Context) string {
	id, _ := ctx.Value(requestIDKey).(string)
	return id
}

// ServeHTTP assigns the request id, recovers panics, writes the access log
// line and dispatches: health checks, then /public-api behind the key.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	id := r.Header.Get("X-Request-Id")
	if !api.SaneRequestID(id) {
		id = api.NewRequestID()
	}
	w.Header().Set("X-Request-Id", id)
	ctx := context.WithValue(r.Context(), requestIDKey, id)
	rec := &recorder{ResponseWriter: w}
	r = r.WithContext(ctx)
	defer func() {
		if p := recover(); p != nil {
			if p == http.ErrAbortHandler {
				panic(p)
			}
			h.log.Error("panic", "request_id", id, "method", r.Method, "path", r.URL.Path, "panic", p)
			if !rec.wrote {
				rec.WriteHeader(http.StatusInternalServerError)
			}
		}
		attrs := []any{"method", r.Method, "path", r.URL.Path, "status", rec.status,
			"duration_ms", float64(time.Since(start).Microseconds()) / 1000, "bytes", rec.bytes, "request_id", id}
		if rec.companyID != 0 {
			attrs = append(attrs, "company_id", rec.companyID)
		}
		h.log.Info("request", attrs...)
	}()
	switch {
	case r.URL.Path == "/healthz" || r.URL.Path == "/readyz":
		h.health(rec, r)
	case r.URL.Path == "/openapi.yaml":
		h.document(rec, r)
	case strings.HasPrefix(r.URL.Path, "/public-api/"):
		h.serveAPI(rec, r)
	default:
		rec.WriteHeader(http.StatusNotFound)
	}
}

// serveAPI authenticates before anything else, the route included.
func (h *Handler) serveAPI(w *recorder, r *http.Request) {
	key := r.Header.Get("X-API-Key")
	if !api.WellFormedKey(key) {
		w.WriteHeader(http.StatusUnauthorized)
		return
	}
	p, err := h.store.Authenticate(r.Context(), api.HashKey(key))
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	w.companyID = p.CompanyID
	r = r.WithContext(context.WithValue(r.Context(), principalKey, p))
	w.Header().Set("Cache-Control", "no-store")
	if next, pattern := h.api.Handler(r); pattern == "" {
		// The mux's own 404 and 405 (with Allow): keep the status and
		// headers, drop its text body.
		next.ServeHTTP(bodiless{w}, r)
		return
	}
	h.api.ServeHTTP(w, r)
}

// document serves the OpenAPI document this server implements.
func (h *Handler) document(w *recorder, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	w.Header().Set("Content-Type", "application/yaml")
	w.Header().Set("Cache-Control", "public, max-age=300")
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodGet {
		_, _ = w.Write(api.OpenAPIDocument)
	}
}

func (h *Handler) health(w *recorder, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	status, body := http.StatusOK, "ok"
	if r.URL.Path == "/readyz" {
		ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
		defer cancel()
		if err := h.store.Ping(ctx); err != nil {
			h.log.Warn("readiness check failed", "request_id", RequestID(r.Context()), "error", err)
			status, body = http.StatusServiceUnavailable, "unavailable"
		}
	}
	writeJSON(w, status, map[string]string{"status": body})
}

// errTooLarge is a body over MaxBodyBytes.
var errTooLarge = errors.New("request body too large")

// writeError is the one place that turns an error into a status and body.
func (h *Handler) writeError(w http.ResponseWriter, r *http.Request, err error) {
	var v *api.ValidationError
	var c *api.ConflictError
	switch {
	case errors.As(err, &c):
		writeJSON(w, http.StatusBadRequest, api.ValidationFromConflict(c).Body())
	case errors.As(err, &v):
		writeJSON(w, http.StatusBadRequest, v.Body())
	case errors.Is(err, api.ErrUnauthorized):
		w.WriteHeader(http.StatusUnauthorized)
	case errors.Is(err, api.ErrNotFound):
		w.Header().Set("X-Error-Reason", "trainee-not-found")
		w.WriteHeader(http.StatusInternalServerError)
	case errors.Is(err, errTooLarge):
		w.WriteHeader(http.StatusRequestEntityTooLarge)
	default:
		if r.Context().Err() != nil {
			h.log.Info("request abandoned by client", "request_id", RequestID(r.Context()), "error", err)
		} else {
			h.log.Error("server error", "request_id", RequestID(r.Context()), "method", r.Method, "path", r.URL.Path, "error", err)
		}
		w.WriteHeader(http.StatusInternalServerError)
	}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	_ = enc.Encode(v) // the status is out; a failed write is the client's loss
}

// readBody reads a request body of at most MaxBodyBytes.
func readBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	b, err := io.ReadAll(http.MaxBytesReader(w, r.Body, api.MaxBodyBytes))
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		return nil, errTooLarge
	}
	return b, err
}

// pathID reads the {id} path value: a positive 64-bit integer, else 1012.
func pathID(r *http.Request) (int64, error) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil || id <= 0 {
		return 0, api.Invalid(api.CodeInvalidParameter, "id", "id must be a positive integer")
	}
	return id, nil
}

func (h *Handler) writeTrainee(w http.ResponseWriter, t *api.Trainee) {
	writeJSON(w, http.StatusOK, api.TraineeEnvelope{Timestamp: h.now().Unix(), Trainee: t})
}

func (h *Handler) createTrainee(w http.ResponseWriter, r *http.Request) {
	p := principal(r.Context())
	body, err := readBody(w, r)
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	req, err := api.ParseCreate(body, p.Today(h.now()))
	if err != nil {
		if req != nil {
			err = h.withTrainerProblem(r.Context(), p.CompanyID, req.TrainerID, err)
		}
		h.writeError(w, r, err)
		return
	}
	hash, err := h.hasher.Hash(r.Context(), req.Password)
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	t, err := h.store.CreateTrainee(r.Context(), p.CompanyID, api.NewTrainee{
		Name: req.Name, Email: req.Email, PhoneNumber: req.PhoneNumber, PasswordHash: hash,
		DateOfBirth: req.DateOfBirth, ExpirationDate: req.ExpirationDate, TrainerID: req.TrainerID,
		WeightUnit: req.WeightUnit, CreatedByType: api.CreatedByAdmin, Enabled: true,
	})
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	h.writeTrainee(w, t)
}

// withTrainerProblem adds a 1010 to a body's other problems when its
// trainerId is not a trainer of the company, so that the 400 lists every
// problem at once (a valid body gets the 1010 from the store instead).
func (h *Handler) withTrainerProblem(ctx context.Context, companyID int64, trainerID *int64, err error) error {
	var v *api.ValidationError
	if trainerID == nil || *trainerID <= 0 || !errors.As(err, &v) {
		return err // absent, or already reported by validation
	}
	ok, lookupErr := h.store.IsTrainer(ctx, companyID, *trainerID)
	if lookupErr != nil {
		return lookupErr
	}
	if !ok {
		v.Add(api.CodeUnknownTrainer, "trainerId", "trainer %d is not a trainer of this company", *trainerID)
	}
	return v
}

func (h *Handler) getTrainee(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r)
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	t, err := h.store.Trainee(r.Context(), principal(r.Context()).CompanyID, id)
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	h.writeTrainee(w, t)
}

func (h *Handler) updateTrainee(w http.ResponseWriter, r *http.Request) {
	p := principal(r.Context())
	id, err := pathID(r)
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	body, err := readBody(w, r)
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	req, err := api.ParseUpdate(body, p.Today(h.now()))
	if err != nil {
		if req != nil && req.Patch.TrainerID.Set {
			err = h.withTrainerProblem(r.Context(), p.CompanyID, &req.Patch.TrainerID.Value, err)
		}
		h.writeError(w, r, err)
		return
	}
	if req.Password != nil {
		hash, err := h.hasher.Hash(r.Context(), *req.Password)
		if err != nil {
			h.writeError(w, r, err)
			return
		}
		req.Patch.PasswordHash = api.Val(hash)
	}
	h.patch(w, r, id, req.Patch)
}

func (h *Handler) deleteTrainee(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r)
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	h.patch(w, r, id, api.TraineePatch{Enabled: api.Val(false)})
}

func (h *Handler) patch(w http.ResponseWriter, r *http.Request, id int64, p api.TraineePatch) {
	t, err := h.store.UpdateTrainee(r.Context(), principal(r.Context()).CompanyID, id, p)
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	h.writeTrainee(w, t)
}

func (h *Handler) searchTrainees(w http.ResponseWriter, r *http.Request) {
	p := principal(r.Context())
	s, err := api.ParseSearch(r.URL.Query(), p.Today(h.now()))
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	list, total, err := h.store.SearchTrainees(r.Context(), p.CompanyID, s)
	if err != nil {
		h.writeError(w, r, err)
		return
	}
	if list == nil {
		list = []*api.Trainee{}
	}
	writeJSON(w, http.StatusOK, api.TraineePage{Timestamp: h.now().Unix(), Content: list, Page: api.PageInfo{
		Size: s.Size, Number: s.Page, TotalElements: total, TotalPages: int((total + int64(s.Size) - 1) / int64(s.Size)),
	}})
}
