// Package client is the Go client of the trainee API: typed calls, one
// iterator per list (ListX), per-call options (IfMatch, WithResponse), the
// interface's retry advice (1 s then 5 s, never a 4xx or a
// "trainee-not-found" 500), a request id per call, the support log and the
// verbose trace. traineectl and the TUI use it; it imports only api.
package client

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/traineed/traineed/api"
)

// DefaultRetryDelays are the waits before the second and the third attempt,
// as interface.md section 7 advises: 2 retries, 1 s then 5 s.
var DefaultRetryDelays = []time.Duration{time.Second, 5 * time.Second}

// DefaultAttemptTimeout bounds one attempt (connecting, sending, and reading
// the whole answer) unless WithAttemptTimeout says otherwise.
const DefaultAttemptTimeout = 30 * time.Second

// maxResponseBody bounds what the client reads of a response.
const maxResponseBody = 32 << 20

// maxLoggedBody bounds what the support log keeps of one body.
const maxLoggedBody = 64 << 10

// Client calls the trainee API. It is safe for concurrent use.
//
// Every call is one logical request with its own X-Request-Id, sent up to
// three times: a connection failure or a 5xx (other than the 500 marked
// X-Error-Reason: trainee-not-found) is retried after 1 s and then 5 s; a
// 4xx never is. This holds for every method, as commands.md pins it. Every
// POST carries its X-Request-Id as Idempotency-Key too, so a server that
// keeps idempotent answers (traineed since issue 16) answers a retried
// create with the first attempt's answer. On a server without the
// feature a create whose response was lost and that is retried may answer
// 400 with errorCode 1008 (e-mail already in use) although the first
// attempt created the trainee, so a caller that needs at-most-once
// creation against such servers settles that case on its side.
type Client struct {
	base      string
	apiKey    string
	hc        *http.Client
	userAgent string
	delays    []time.Duration
	timeout   time.Duration // per attempt; 0: none
	sleep     func(context.Context, time.Duration) error
	log       slog.Handler
	verbose   io.Writer
	now       func() time.Time
	newID     func() string
}

// Option configures a Client.
type Option func(*Client)

// WithHTTPClient sets the http.Client used for every attempt.
func WithHTTPClient(hc *http.Client) Option { return func(c *Client) { c.hc = hc } }

// WithUserAgent sets the User-Agent header (default "traineectl/dev").
func WithUserAgent(ua string) Option { return func(c *Client) { c.userAgent = ua } }

// WithRetryDelays sets the waits before each retry; their number is the
// number of retries. No delays means no retries.
func WithRetryDelays(d ...time.Duration) Option {
	return func(c *Client) { c.delays = append([]time.Duration(nil), d...) }
}

// WithAttemptTimeout bounds each attempt of a call: connecting, sending
// and reading the whole answer (default DefaultAttemptTimeout; 0 or less
// means no bound). An attempt that runs out of time counts as a connection
// failure: it is retried like one and, after the retries, is a
// *NetworkError whose Err wraps context.DeadlineExceeded.
func WithAttemptTimeout(d time.Duration) Option {
	return func(c *Client) { c.timeout = max(d, 0) }
}

// WithSleep replaces how the client waits between attempts; f returns
// ctx.Err() when the context ends first. Tests use it to never sleep.
func WithSleep(f func(ctx context.Context, d time.Duration) error) Option {
	return func(c *Client) { c.sleep = f }
}

// WithSupportLog writes one line per attempt to w (logfmt, as slog's text
// handler writes it): RFC 3339 time with zone, request id, attempt, method,
// URL, status, errorCode, duration, the request body with the password
// redacted, the response body, and the error of a failed connection. The
// API key is never written.
func WithSupportLog(w io.Writer) Option {
	return func(c *Client) {
		if w != nil {
			c.log = slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelDebug})
		}
	}
}

// WithVerbose writes each request and response to w in a readable form, the
// API key masked and passwords redacted.
func WithVerbose(w io.Writer) Option { return func(c *Client) { c.verbose = w } }

// WithRequestIDs replaces the generator of X-Request-Id values.
func WithRequestIDs(f func() string) Option { return func(c *Client) { c.newID = f } }

// WithClock replaces the clock used for log timestamps and durations.
func WithClock(now func() time.Time) Option { return func(c *Client) { c.now = now } }

// New returns a client of the API at baseURL (for example
// http://127.0.0.1:8080) that authenticates with apiKey.
func New(baseURL, apiKey string, opts ...Option) *Client {
	c := &Client{
		base:      strings.TrimRight(baseURL, "/"),
		apiKey:    apiKey,
		hc:        http.DefaultClient,
		userAgent: "traineectl/dev",
		delays:    DefaultRetryDelays,
		timeout:   DefaultAttemptTimeout,
		sleep:     sleepContext,
		now:       time.Now,
		newID:     api.NewRequestID,
	}
	for _, o := range opts {
		o(c)
	}
	return c
}

// BaseURL returns the base URL the client calls.
func (c *Client) BaseURL() string { return c.base }

// HasAPIKey reports whether the client has a key to send.
func (c *Client) HasAPIKey() bool { return c.apiKey != "" }

func sleepContext(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
