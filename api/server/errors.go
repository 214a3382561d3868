package server

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"

	"github.com/traineed/traineed/api"
)

// errTooLarge is a body over api.MaxBodyBytes.
var errTooLarge = errors.New("request body too large")

// writeError is the one place that turns an error into a status and body.
func (h *Handler) writeError(w http.ResponseWriter, r *http.Request, err error) {
	var (
		v  *api.ValidationError
		c  *api.ConflictError
		re *routeError
	)
	switch {
	case errors.As(err, &c):
		writeJSON(w, http.StatusBadRequest, api.ValidationFromConflict(c).Body())
	case errors.As(err, &v):
		writeJSON(w, http.StatusBadRequest, v.Body())
	case errors.Is(err, api.ErrReadOnlyKey):
		writeJSON(w, http.StatusForbidden, api.ReadOnlyBody())
	case errors.Is(err, api.ErrIdempotencyMismatch):
		writeJSON(w, http.StatusBadRequest, api.IdempotencyMismatchBody())
	case errors.Is(err, api.ErrIdempotencyInProgress):
		writeJSON(w, http.StatusConflict, api.IdempotencyInProgressBody())
	case errors.Is(err, api.ErrRateLimited):
		w.WriteHeader(http.StatusTooManyRequests)
	case errors.Is(err, api.ErrUnauthorized):
		w.WriteHeader(http.StatusUnauthorized)
	case errors.Is(err, api.ErrNotFound):
		w.Header().Set(api.HeaderErrorReason, notFoundReason(r))
		w.WriteHeader(http.StatusInternalServerError)
	case errors.Is(err, errTooLarge):
		w.WriteHeader(http.StatusRequestEntityTooLarge)
	case errors.As(err, &re):
		if re.allow != "" {
			w.Header().Set("Allow", re.allow)
		}
		w.WriteHeader(re.status)
	default:
		if r.Context().Err() != nil {
			// The client went away (its connection closed) before the
			// answer: logged and counted as 499, not as a server error.
			h.log.Info("request abandoned by client", "request_id", RequestID(r.Context()), "error", err)
			if rec, ok := w.(*recorder); ok {
				rec.abandoned = true
			}
		} else {
			h.log.Error("server error", "request_id", RequestID(r.Context()), "method", r.Method, "path", r.URL.Path, "error", err)
		}
		w.WriteHeader(http.StatusInternalServerError)
	}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v) // the status is out; a failed write is the client's loss
}

// readBody reads a request body of at most api.MaxBodyBytes.
func readBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	b, err := io.ReadAll(http.MaxBytesReader(w, r.Body, api.MaxBodyBytes))
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		return nil, errTooLarge
	}
	return b, err
}

// pathID reads the {id} path value: a positive 64-bit integer written in
// canonical decimal (api.ParseID), else 1012.
func pathID(r *http.Request) (int64, error) {
	id, ok := api.ParseID(r.PathValue("id"))
	if !ok {
		return 0, api.Invalid(api.CodeInvalidParameter, "id", "id must be a positive integer in decimal, without sign or leading zeros")
	}
	return id, nil
}

// notFoundReason names what a route's {id} is, for the X-Error-Reason of
// its "not in your company" 500.
func notFoundReason(r *http.Request) string {
	switch {
	case strings.Contains(r.Pattern, " "+api.PathWebhooks):
		return api.ReasonWebhookNotFound
	case strings.Contains(r.Pattern, " "+api.PathEvents):
		return api.ReasonEventNotFound
	}
	return api.ReasonTraineeNotFound
}
