package server

import (
	"context"
	"net/http"
	"time"

	"github.com/traineed/traineed/api"
)

// healthz answers while the process is up.
func (h *Handler) healthz(w http.ResponseWriter, _ *http.Request) error {
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	return nil
}

// readyz answers 200 while the database answers, else 503; 503 too once
// the handler drains before a shutdown.
func (h *Handler) readyz(w http.ResponseWriter, r *http.Request) error {
	if h.draining.Load() {
		// Retry soon: through the load balancer another instance answers.
		w.Header().Set("Retry-After", "1")
		writeJSON(w, http.StatusServiceUnavailable, map[string]string{"status": "draining"})
		return nil
	}
	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
	defer cancel()
	if err := h.store.Ping(ctx); err != nil {
		h.log.Warn("readiness check failed", logArgs(r.Context(), "request_id", RequestID(r.Context()), "error", err)...)
		w.Header().Set("Retry-After", "1")
		writeJSON(w, http.StatusServiceUnavailable, map[string]string{"status": "unavailable"})
		return nil
	}
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	return nil
}

// document serves the OpenAPI document this server implements.
func (h *Handler) document(w http.ResponseWriter, r *http.Request) error {
	w.Header().Set("Content-Type", "application/yaml")
	w.Header().Set("Cache-Control", "public, max-age=300")
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodGet {
		_, _ = w.Write(api.OpenAPIDocument)
	}
	return nil
}
