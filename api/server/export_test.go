package server

import (
	"net/http"
	"time"
)

// WithAfterIdempotentCommit sets a function called after an idempotent
// request's transaction committed and before its answer is written (the
// kill -9 test kills the process there).
func WithAfterIdempotentCommit(fn func()) Option {
	return func(h *Handler) { h.afterIdempotentCommit = fn }
}

// WithLimiterClock sets the clock of the rate limiter.
func WithLimiterClock(now func() time.Time) Option { return func(h *Handler) { h.limitNow = now } }

// RateLimitFor applies h's limiter to a request of keyID.
func RateLimitFor(h *Handler, w http.ResponseWriter, keyID int64) error { return h.rateLimit(w, keyID) }

// RouteRules is each public route's declared scope and rule for keys
// limited to their trainer's trainees, by pattern, as openapi.yaml's
// x-scope and x-own-trainees name them.
func RouteRules(h *Handler) map[string][2]string {
	names := map[ownRule]string{ownRefused: "refused", ownTrainee: "trainee", ownNarrowed: "narrowed"}
	out := map[string][2]string{}
	for pattern, rt := range h.table {
		out[pattern] = [2]string{rt.scope, names[rt.own]}
	}
	return out
}
