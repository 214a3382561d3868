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

// errNotJSON is a body whose Content-Type is not JSON.
var errNotJSON = errors.New("the body's Content-Type is not JSON")

// Reasons of an answer, for the metrics and the access log: a genuine
// fault is told from the seed's compatibility 500 (an unknown trainee id),
// which alerts must not count.
const (
	reasonNone            = "none"
	reasonTraineeNotFound = "trainee_not_found"
	reasonFault           = "fault"
	reasonUnavailable     = "unavailable"
)

// writeError is the one place that turns an error into a status and body.
// Every refusal has the JSON error body, but the seed's three empty ones:
// the 401, the 500 of a trainee id not in the caller's company (with
// X-Error-Reason: trainee-not-found) and the 500 of a fault.
func (h *Handler) writeError(w http.ResponseWriter, r *http.Request, err error) {
	var (
		v  *api.ValidationError
		c  *api.ConflictError
		cs *api.ConflictStateError
		re *routeError
		ee *api.ErasedError
	)
	switch {
	case errors.As(err, &c):
		writeJSON(w, http.StatusBadRequest, api.ValidationFromConflict(c).Body())
	case errors.As(err, &v):
		writeJSON(w, http.StatusBadRequest, v.Body())
	case errors.Is(err, api.ErrReadOnlyKey):
		writeJSON(w, http.StatusForbidden, api.ReadOnlyBody())
	case errors.Is(err, api.ErrAdminScope):
		writeJSON(w, http.StatusForbidden, api.ErrorOf(api.CodeAdminScope, "", "this route needs an admin key: keys, trainers and the company's settings are administered with one"))
	case errors.Is(err, api.ErrOwnTrainees):
		writeJSON(w, http.StatusForbidden, api.ErrorOf(api.CodeOwnTrainees, "", "this key acts for its trainer's own trainees only: it can neither reach the whole company nor give trainees to another trainer"))
	case errors.Is(err, api.ErrEscalation):
		writeJSON(w, http.StatusForbidden, api.ErrorOf(api.CodeEscalation, "scope", "a key cannot change its own scope, nor give a key more than it has: use another admin key"))
	case errors.As(err, &cs):
		writeJSON(w, http.StatusConflict, cs.Body())
	case errors.As(err, &ee):
		writeJSON(w, http.StatusConflict, ee.Body())
	case errors.Is(err, api.ErrIdempotencyMismatch):
		writeJSON(w, http.StatusBadRequest, api.IdempotencyMismatchBody())
	case errors.Is(err, api.ErrPreconditionFailed):
		writeJSON(w, http.StatusPreconditionFailed, api.PreconditionFailedBody())
	case errors.Is(err, api.ErrIdempotencyInProgress):
		writeJSON(w, http.StatusConflict, api.IdempotencyInProgressBody())
	case errors.Is(err, api.ErrRateLimited):
		writeJSON(w, http.StatusTooManyRequests, api.ErrorOf(api.CodeRateLimited, "",
			"this API key is over its rate limit; retry after %s seconds", w.Header().Get("Retry-After")))
	case errors.Is(err, api.ErrUnavailable):
		setReason(w, reasonUnavailable)
		h.log.Warn("database unavailable", logArgs(r.Context(), "request_id", RequestID(r.Context()), "method", r.Method, "path", r.URL.Path, "error", err)...)
		w.Header().Set("Retry-After", "1")
		writeJSON(w, http.StatusServiceUnavailable, api.ErrorOf(api.CodeUnavailable, "",
			"the database did not answer; retry in a second"))
	case errors.Is(err, api.ErrUnauthorized):
		w.WriteHeader(http.StatusUnauthorized)
	case errors.Is(err, api.ErrNotFound):
		if what := resourceOf(r); what != "" {
			writeJSON(w, http.StatusNotFound, api.ErrorOf(api.CodeNotFound, "id", "there is no %s %s in your company", what, r.PathValue("id")))
			return
		}
		// The seed's rule, for trainee ids only: an empty 500 that does
		// not say whether the id exists in another company.
		setReason(w, reasonTraineeNotFound)
		w.Header().Set(api.HeaderErrorReason, api.ReasonTraineeNotFound)
		w.WriteHeader(http.StatusInternalServerError)
	case errors.Is(err, errTooLarge):
		writeJSON(w, http.StatusRequestEntityTooLarge, api.ErrorOf(api.CodeBodyTooLarge, "", "the body is over %d bytes", api.MaxBodyBytes))
	case errors.Is(err, errNotJSON):
		writeJSON(w, http.StatusUnsupportedMediaType, api.ErrorOf(api.CodeUnsupportedMediaType, "",
			"the body must be JSON, sent with Content-Type: application/json (not %s)", r.Header.Get("Content-Type")))
	case errors.As(err, &re) && re.status == http.StatusMethodNotAllowed:
		w.Header().Set("Allow", re.allow)
		writeJSON(w, http.StatusMethodNotAllowed, api.ErrorOf(api.CodeMethodNotAllowed, "", "%s is not allowed here; allowed: %s", r.Method, re.allow))
	case errors.As(err, &re):
		writeJSON(w, re.status, api.ErrorOf(api.CodeNoRoute, "", "no route serves %s", r.URL.Path))
	default:
		if r.Context().Err() != nil {
			// The client went away (its connection closed) before the
			// answer: logged and counted as 499, not as a server error.
			h.log.Info("request abandoned by client", "request_id", RequestID(r.Context()), "error", err)
			if rec, ok := w.(*recorder); ok {
				rec.abandoned = true
			}
		} else {
			setReason(w, reasonFault)
			h.log.Error("server error", logArgs(r.Context(), "request_id", RequestID(r.Context()), "method", r.Method, "path", r.URL.Path, "error", err)...)
		}
		w.WriteHeader(http.StatusInternalServerError)
	}
}

// setReason marks the answer's reason on the recorder (the metrics' and
// the access log's).
func setReason(w http.ResponseWriter, reason string) {
	if rec, ok := w.(*recorder); ok {
		rec.reason = reason
	}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v) // the status is out; a failed write is the client's loss
}

// readBody reads a request body of at most api.MaxBodyBytes, sent as JSON
// (a Content-Type that names something else is a 415).
func readBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	b, err := io.ReadAll(http.MaxBytesReader(w, r.Body, api.MaxBodyBytes))
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		return nil, errTooLarge
	}
	if err == nil && len(b) > 0 && !api.IsJSONMediaType(r.Header.Get("Content-Type")) {
		return nil, errNotJSON
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

// resourceOf names what a route's {id} is when it is one of our own
// resources (webhook, event, automation), whose unknown ids are a 404;
// "" for a trainee route, which keeps the seed's 500.
func resourceOf(r *http.Request) string {
	switch {
	case strings.Contains(r.Pattern, " "+api.PathWebhooks+"/"):
		return "webhook"
	case strings.Contains(r.Pattern, " "+api.PathEvents+"/"):
		return "event"
	case strings.Contains(r.Pattern, " "+api.PathAutomations+"/"):
		return "automation"
	case strings.Contains(r.Pattern, " "+api.PathKeys+"/"):
		return "key"
	case strings.Contains(r.Pattern, " "+api.PathTrainers+"/"):
		return "trainer"
	}
	return ""
}
