// Package server is the HTTP side of the trainee API: routing on the
// standard library's ServeMux, authentication, the handlers of every
// route, the one function that turns errors into statuses, the access log
// and the password hasher. It implements the contract of package api over
// an api.Store and imports nothing of the module but api.
package server

import (
	"context"
	"log/slog"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/outbound"
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

	outbound       *outbound.Client // every request to a company's URL (the webhook test)
	maxWebhooks    int              // a company's endpoints at most (0: no cap)
	maxAutomations int              // a company's automations at most (0: no cap)
	pings          companySlots     // the test pings in flight, per company
	feedPoll       time.Duration
	feed           feedWaiters   // waiting feed requests, and their pollers
	waitsEnded     chan struct{} // closed by EndWaits
	endWaits       sync.Once

	root   *http.ServeMux   // every route; /public-api/ leads to authenticate
	public *http.ServeMux   // the routes under /public-api/, after authentication
	table  map[string]route // the public routes by pattern: their scope and rules

	draining atomic.Bool // set by Drain

	limiter  RateLimiter      // nil: no rate limit
	limitNow func() time.Time // the limiter's clock (tests)

	idemLocks             keyLocks // idempotency keys being served on this instance
	afterIdempotentCommit func()   // tests: between the commit and the answer

	metrics         *Metrics // nil: no metrics
	metricsEndpoint bool     // serve GET /metrics

	tracer trace.Tracer // nil: tracing off (WithTracerProvider)
}

// Drain tells the handler that the instance is about to stop: from now on
// /readyz answers 503 (so the load balancer stops sending requests) and
// every response carries Connection: close (so no client keeps a
// connection the server is about to close), while every request is still
// served in full.
func (h *Handler) Drain() { h.draining.Store(true) }

// EndWaits ends every feed request's wait, now and from now on: each one
// answers what it has (an empty page, as when its wait runs out) at once.
// The server calls it when it shuts down, so that no long poll holds the
// shutdown up.
func (h *Handler) EndWaits() { h.endWaits.Do(func() { close(h.waitsEnded) }) }

// Hashing tells how passwords are hashed: how many at once, and whether
// in the low-priority helper process.
func (h *Handler) Hashing() (concurrency int, lowPriority bool) {
	return h.hasher.Concurrency(), h.hasher.LowPriority()
}

// Draining reports whether Drain was called.
func (h *Handler) Draining() bool { return h.draining.Load() }

// NewHandler returns the HTTP handler of the service over st.
func NewHandler(st api.Store, opts ...Option) *Handler {
	h := &Handler{store: st, now: time.Now, log: slog.New(slog.DiscardHandler), root: http.NewServeMux(), public: http.NewServeMux(),
		maxWebhooks: api.DefaultMaxWebhooks, maxAutomations: api.DefaultMaxAutomations, pings: companySlots{n: TestPingsPerCompany}}
	for _, o := range opts {
		o(h)
	}
	if h.hasher == nil {
		h.hasher = NewHasher(DefaultPasswordParams)
	}
	if h.metrics != nil || h.tracer != nil {
		var onWait func(time.Duration)
		if h.metrics != nil {
			onWait = h.metrics.observeHashWait
		}
		h.hasher = h.hasher.observed(onWait, h.tracer)
	}
	if h.outbound == nil {
		h.outbound = outbound.New(outbound.Config{}) // the default policy: internal addresses refused
	}
	if h.limitNow == nil {
		h.limitNow = time.Now
	}
	if h.feedPoll <= 0 {
		h.feedPoll = DefaultFeedPoll
	}
	h.waitsEnded = make(chan struct{})
	h.feed = feedWaiters{latest: st.LatestEventID, poll: h.feedPoll, log: h.log}
	h.routes()
	return h
}

type ctxKey int

const (
	principalKey ctxKey = iota
	requestIDKey
	traineeReadKey // *versionedTrainee read with the key (authenticateRead)
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
// line and dispatches on the routes.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	id := r.Header.Get(api.HeaderRequestID)
	if !api.SaneRequestID(id) {
		id = api.NewRequestID()
	}
	w.Header().Set(api.HeaderRequestID, id)
	if h.draining.Load() {
		w.Header().Set("Connection", "close")
	}
	rec := &recorder{ResponseWriter: w}
	r = r.WithContext(context.WithValue(r.Context(), requestIDKey, id))
	var span trace.Span // nil: tracing off
	if h.tracer != nil {
		r, span = h.startSpan(r)
	}
	defer func() {
		if p := recover(); p != nil {
			if p == http.ErrAbortHandler {
				if span != nil {
					span.End()
				}
				panic(p)
			}
			h.log.Error("panic", logArgs(r.Context(), "request_id", id, "method", r.Method, "path", r.URL.Path, "panic", p)...)
			rec.reason = reasonFault
			if !rec.wrote {
				rec.WriteHeader(http.StatusInternalServerError)
			}
		}
		status := rec.status
		if status == 0 {
			status = http.StatusOK
		}
		if rec.abandoned {
			status = statusClientClosedRequest
		}
		took := time.Since(start)
		// Typed attributes: LogAttrs boxes none of them (one line per
		// request, so its allocations are the server's).
		attrs := [10]slog.Attr{slog.String("method", r.Method), slog.String("path", r.URL.Path),
			slog.Int("status", status), slog.Float64("duration_ms", float64(took.Microseconds())/1000),
			slog.Int("bytes", rec.bytes), slog.String("request_id", id)}
		n := 6
		if rec.companyID != 0 {
			attrs[n] = slog.Int64("company_id", rec.companyID)
			n++
		}
		reason := rec.reason
		if reason == "" {
			reason = reasonNone
		} else {
			attrs[n] = slog.String("reason", reason)
			n++
		}
		if span != nil {
			n += copy(attrs[n:], traceAttrs(r.Context()))
			finishSpan(span, r.Method, rec, status, id)
		}
		h.log.LogAttrs(r.Context(), slog.LevelInfo, "request", attrs[:n]...)
		if h.metrics != nil {
			h.metrics.observe(rec.pattern, r.Method, status, reason, took)
		}
	}()
	if err := h.dispatch(h.root, rec, r); err != nil {
		h.writeError(rec, r, err)
	}
}

// recorder remembers what was written, for the access log.
type recorder struct {
	http.ResponseWriter
	status    int
	bytes     int
	wrote     bool
	companyID int64
	pattern   string // the route's ServeMux pattern, for the metrics
	reason    string // why an error answer was given (reasonFault, ...); "" is none
	abandoned bool   // the client went away before the answer
}

// statusClientClosedRequest is the status the access log and the metrics
// give a request whose client went away before its answer (nginx's 499);
// nothing reaches the client.
const statusClientClosedRequest = 499

func (r *recorder) WriteHeader(code int) {
	if r.wrote {
		return
	}
	r.wrote, r.status = true, code
	r.ResponseWriter.WriteHeader(code)
}

func (r *recorder) Write(b []byte) (int, error) {
	if !r.wrote {
		r.WriteHeader(http.StatusOK)
	}
	n, err := r.ResponseWriter.Write(b)
	r.bytes += n
	return n, err
}

// Unwrap lets http.ResponseController reach the connection.
func (r *recorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

// NewHTTPServer returns an http.Server with the timeouts a public service
// needs.
func NewHTTPServer(addr string, h http.Handler) *http.Server {
	return &http.Server{
		Addr:              addr,
		Handler:           h,
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       120 * time.Second,
		MaxHeaderBytes:    64 << 10,
	}
}
