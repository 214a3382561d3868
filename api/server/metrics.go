package server

import (
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Metrics are the HTTP side's Prometheus metrics: requests by route
// pattern (the ServeMux pattern, never the path, so no id reaches a
// label), method and status, their latency, and the argon2id queue's wait.
// Labels never carry ids, keys or e-mails.
type Metrics struct {
	requests *prometheus.CounterVec
	latency  *prometheus.HistogramVec
	hashWait prometheus.Histogram
	endpoint http.Handler
}

// unmatched is the pattern label of a request no route matched (404, 405).
const unmatched = "unmatched"

// NewMetrics registers the HTTP metrics with reg and returns them; g is
// what GET /metrics serves (the same registry, usually).
func NewMetrics(reg prometheus.Registerer, g prometheus.Gatherer) *Metrics {
	m := &Metrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "traineed_http_requests_total",
			Help: "HTTP requests answered, by route pattern, method, status and reason (none; trainee_not_found: the seed's 500 for an unknown trainee id; fault: a genuine server error; unavailable: the database connection was lost, a 503).",
		}, []string{"pattern", "method", "status", "reason"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "traineed_http_request_duration_seconds",
			Help:    "Time from the request's headers to the handler's return, by route pattern and method.",
			Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30},
		}, []string{"pattern", "method"}),
		hashWait: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "traineed_password_hash_queue_wait_seconds",
			Help:    "Time a password waited for an argon2id hashing slot.",
			Buckets: []float64{.0001, .001, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5},
		}),
	}
	reg.MustRegister(m.requests, m.latency, m.hashWait)
	m.endpoint = promhttp.HandlerFor(g, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError})
	return m
}

// Endpoint is the handler of GET /metrics (for a separate listener).
func (m *Metrics) Endpoint() http.Handler { return m.endpoint }

// WithMetrics records every request in m, and the hasher's queue wait.
// serveEndpoint adds GET /metrics to the routes (no key needed); without
// it the caller serves m.Endpoint() on another listener.
func WithMetrics(m *Metrics, serveEndpoint bool) Option {
	return func(h *Handler) { h.metrics, h.metricsEndpoint = m, serveEndpoint }
}

// observe records one answered request.
func (m *Metrics) observe(pattern, method string, status int, reason string, d time.Duration) {
	if pattern == "" {
		pattern = unmatched
	}
	method = metricMethod(method)
	m.requests.WithLabelValues(pattern, method, strconv.Itoa(status), reason).Inc()
	m.latency.WithLabelValues(pattern, method).Observe(d.Seconds())
}

// metricMethod bounds the method label: any method outside the standard
// ones is "other", so a client cannot create series at will.
func metricMethod(m string) string {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodOptions:
		return m
	}
	return "other"
}

// observeHashWait is the hasher's hook.
func (m *Metrics) observeHashWait(d time.Duration) { m.hashWait.Observe(d.Seconds()) }
