package client

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/traineed/traineed/api"
)

// Do sends one logical request with retries and returns the body of its 2xx
// response, or one of the typed errors. path is relative to the base URL;
// body (nil for none) is marshalled to JSON; traineeID names the trainee of
// the path for a TraineeNotFoundError (0 when there is none); opts are the
// call's RequestOptions (IfMatch, WithResponse).
func (c *Client) Do(ctx context.Context, method, path string, query url.Values, body any, traineeID int64, opts ...RequestOption) ([]byte, error) {
	o := applyOptions(opts)
	ci, payload, err := c.newCall(method, path, query, body, o)
	if err != nil {
		return nil, err
	}
	rateWaits := 0
	for attempt := 1; ; attempt++ {
		ci.Attempts, ci.Status, ci.Body = attempt, 0, nil
		status, hdr, respBody, err := c.attempt(ctx, ci, payload)
		if err == nil {
			o.resp.observe(ci, status, hdr, c.now())
		}
		retry := false
		var result error
		switch {
		case err != nil && ctx.Err() != nil:
			return nil, ctx.Err()
		case err != nil:
			result, retry = &NetworkError{CallInfo: ci, Err: err}, true
		default:
			ci.Status, ci.Body = status, respBody
			switch {
			case status >= 200 && status < 300:
				return respBody, nil
			case status == http.StatusTooManyRequests && rateWaits < MaxRateLimitWaits:
				// Over the key's rate limit: wait what the server says (at
				// most MaxRateLimitWait), then send again; this is not one
				// of the retries.
				rateWaits++
				attempt--
				if err := c.sleep(ctx, retryAfter(hdr.Get("Retry-After"), c.now())); err != nil {
					return nil, err
				}
				continue
			default:
				retry, result = statusError(ci, hdr, path, traineeID)
			}
		}
		if !retry || attempt > len(c.delays) {
			return nil, result
		}
		if err := c.sleep(ctx, c.delays[attempt-1]); err != nil {
			return nil, err
		}
	}
}

// newCall is the call Do sends (its URL, a new request id, the options'
// headers and key) and its JSON body (nil without one).
func (c *Client) newCall(method, path string, query url.Values, body any, o callOptions) (CallInfo, []byte, error) {
	var payload []byte
	if body != nil {
		var err error
		if payload, err = json.Marshal(body); err != nil {
			return CallInfo{}, nil, fmt.Errorf("encode request: %w", err)
		}
	}
	u := c.base + path
	if len(query) > 0 {
		u += "?" + query.Encode()
	}
	return CallInfo{Method: method, URL: u, RequestID: c.newID(), header: o.header, idempotencyKey: o.idempotencyKey}, payload, nil
}

// statusError is the typed error of an answer that is neither a 2xx nor a
// 429 the client waits out, and whether it is worth sending again (retry:
// a 5xx but the typed not-founds). ci holds the answer's status and body; path
// names the resource of a not-found, traineeID the trainee of the path.
func statusError(ci CallInfo, hdr http.Header, path string, traineeID int64) (retry bool, err error) {
	status, reason := ci.Status, hdr.Get(api.HeaderErrorReason)
	switch {
	case status == http.StatusPreconditionFailed:
		re := &RejectedError{CallInfo: ci}
		_ = json.Unmarshal(ci.Body, &re.ErrorBody)
		return false, &PreconditionFailedError{RejectedError: re, ID: traineeID}
	case status == http.StatusUnauthorized:
		return false, &AuthRefusedError{ci}
	case status >= 400 && status < 500:
		re := &RejectedError{CallInfo: ci}
		_ = json.Unmarshal(ci.Body, &re.ErrorBody) // an older server's 404/405/413/429 had no body
		switch {
		case status == http.StatusNotFound && re.ErrorCode == api.CodeNotFound:
			return false, &NotFoundError{CallInfo: ci, Resource: resourceOfPath(path)}
		case status == http.StatusConflict && re.ErrorCode == api.CodeErased:
			return false, erasedError(re, ci.Body)
		}
		return false, re
	case status == http.StatusInternalServerError && reason == api.ReasonTraineeNotFound:
		return false, &TraineeNotFoundError{CallInfo: ci, ID: traineeID}
	case status == http.StatusInternalServerError && (reason == api.ReasonWebhookNotFound || reason == api.ReasonEventNotFound):
		return false, &NotFoundError{CallInfo: ci, Reason: reason, Resource: resourceOfPath(path)}
	}
	return status >= 500, &ServerError{ci}
}

// attemptTimeoutError is an attempt that ran out of its time.
type attemptTimeoutError struct{ d time.Duration }

func (e *attemptTimeoutError) Error() string {
	return fmt.Sprintf("no answer within %s", e.d)
}

func (e *attemptTimeoutError) Unwrap() error { return context.DeadlineExceeded }

// attempt sends the request once and reads the whole response, within the
// attempt timeout.
func (c *Client) attempt(parent context.Context, ci CallInfo, payload []byte) (int, http.Header, []byte, error) {
	ctx := parent
	if c.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(parent, c.timeout)
		defer cancel()
	}
	return c.attemptOnce(parent, ctx, ci, payload)
}

func (c *Client) attemptOnce(parent, ctx context.Context, ci CallInfo, payload []byte) (int, http.Header, []byte, error) {
	var rd io.Reader
	if payload != nil {
		rd = bytes.NewReader(payload)
	}
	req, err := http.NewRequestWithContext(ctx, ci.Method, ci.URL, rd)
	if err != nil {
		return 0, nil, nil, err
	}
	if c.apiKey != "" {
		req.Header.Set(api.HeaderAPIKey, c.apiKey)
	}
	req.Header.Set(api.HeaderRequestID, ci.RequestID)
	if ci.idempotencyKey != "" {
		req.Header.Set(api.HeaderIdempotencyKey, ci.idempotencyKey) // IdempotencyKey: any method
	} else if ci.Method == http.MethodPost || ci.Method == http.MethodPut || ci.Method == http.MethodDelete {
		// The request id is the idempotency key: a retry after a lost
		// answer gets the first attempt's answer from a server that keeps
		// them; older servers ignore the header.
		req.Header.Set(api.HeaderIdempotencyKey, ci.RequestID)
	}
	for k, v := range ci.header {
		req.Header[k] = v
	}
	req.Header.Set("User-Agent", c.userAgent)
	req.Header.Set("Accept", "application/json")
	if payload != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	c.traceRequest(req, payload)
	start := c.now()
	resp, err := c.hc.Do(req)
	var body []byte
	if err == nil {
		body, err = io.ReadAll(io.LimitReader(resp.Body, maxResponseBody))
		resp.Body.Close()
	}
	elapsed := c.now().Sub(start)
	if err != nil && parent.Err() == nil && ctx.Err() != nil {
		err = &attemptTimeoutError{c.timeout} // this attempt's own time ran out
	}
	if err != nil {
		c.logAttempt(ctx, ci, start, elapsed, 0, payload, nil, err)
		c.traceError(err, elapsed)
		return 0, nil, nil, err
	}
	c.logAttempt(ctx, ci, start, elapsed, resp.StatusCode, payload, body, nil)
	c.traceResponse(resp, body, elapsed)
	return resp.StatusCode, resp.Header, body, nil
}

// RedactBody returns a JSON body with the value of every "password" member
// (at any depth) replaced by "***". A body that is not JSON is returned as
// it is.
func RedactBody(b []byte) []byte {
	if len(b) == 0 {
		return b
	}
	var v any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return b
	}
	var walk func(any) any
	walk = func(x any) any {
		switch t := x.(type) {
		case map[string]any:
			for k, e := range t {
				if strings.EqualFold(k, "password") {
					t[k] = "***"
				} else {
					t[k] = walk(e)
				}
			}
		case []any:
			for i, e := range t {
				t[i] = walk(e)
			}
		}
		return x
	}
	out, err := json.Marshal(walk(v))
	if err != nil {
		return b
	}
	return out
}

func truncateBody(b []byte) string {
	if len(b) <= maxLoggedBody {
		return string(b)
	}
	return fmt.Sprintf("%s… (%d bytes in all)", b[:maxLoggedBody], len(b))
}

func (c *Client) logAttempt(ctx context.Context, ci CallInfo, at time.Time, d time.Duration, status int, req, resp []byte, err error) {
	if c.log == nil {
		return
	}
	level := slog.LevelInfo
	if err != nil || status >= 400 {
		level = slog.LevelError
	}
	r := slog.NewRecord(at, level, "request", 0)
	r.AddAttrs(
		slog.String("request_id", ci.RequestID),
		slog.Int("attempt", ci.Attempts),
		slog.String("method", ci.Method),
		slog.String("url", ci.URL),
		slog.Int("status", status),
	)
	if status >= 400 && len(resp) > 0 {
		var eb api.ErrorBody
		if json.Unmarshal(resp, &eb) == nil && eb.ErrorCode != 0 {
			r.AddAttrs(slog.Int("error_code", eb.ErrorCode))
		}
	}
	r.AddAttrs(slog.Int64("duration_ms", d.Milliseconds()))
	if len(req) > 0 {
		r.AddAttrs(slog.String("request_body", truncateBody(RedactBody(req))))
	}
	r.AddAttrs(slog.String("response_body", truncateBody(resp)))
	if err != nil {
		r.AddAttrs(slog.String("error", err.Error()))
	}
	_ = c.log.Handle(ctx, r)
}

// MaskKey shows the first 8 characters of a key (what `traineed key list`
// shows) and hides the rest.
func MaskKey(k string) string {
	if k == "" {
		return ""
	}
	if len(k) <= 8 {
		return strings.Repeat("*", len(k))
	}
	return k[:8] + "…"
}

func (c *Client) traceRequest(req *http.Request, payload []byte) {
	if c.verbose == nil {
		return
	}
	var b strings.Builder
	fmt.Fprintf(&b, "> %s %s\n", req.Method, req.URL)
	for _, h := range []string{api.HeaderRequestID, api.HeaderIdempotencyKey, api.HeaderIfMatch, "User-Agent", "Content-Type"} {
		if v := req.Header.Get(h); v != "" {
			fmt.Fprintf(&b, "> %s: %s\n", h, v)
		}
	}
	if c.apiKey != "" {
		fmt.Fprintf(&b, "> %s: %s\n", api.HeaderAPIKey, MaskKey(c.apiKey))
	}
	if len(payload) > 0 {
		fmt.Fprintf(&b, "> %s\n", RedactBody(payload))
	}
	c.writeTrace(b.String())
}

// writeTrace writes lines of the verbose trace, each through
// api.EscapeText: a body or header of the server never commands the
// terminal the trace goes to.
func (c *Client) writeTrace(lines string) {
	var b strings.Builder
	for _, l := range strings.SplitAfter(lines, "\n") {
		line, nl := strings.CutSuffix(l, "\n")
		b.WriteString(api.EscapeText(line))
		if nl {
			b.WriteByte('\n')
		}
	}
	io.WriteString(c.verbose, b.String())
}

func (c *Client) traceResponse(resp *http.Response, body []byte, d time.Duration) {
	if c.verbose == nil {
		return
	}
	var b strings.Builder
	fmt.Fprintf(&b, "< %s (%s)\n", resp.Status, d.Round(time.Millisecond))
	for _, h := range []string{api.HeaderRequestID, api.HeaderErrorReason, api.HeaderETag, "Content-Type"} {
		if v := resp.Header.Get(h); v != "" {
			fmt.Fprintf(&b, "< %s: %s\n", h, v)
		}
	}
	if len(body) > 0 {
		fmt.Fprintf(&b, "< %s\n", strings.TrimRight(truncateBody(body), "\n"))
	}
	c.writeTrace(b.String())
}

func (c *Client) traceError(err error, d time.Duration) {
	if c.verbose == nil {
		return
	}
	c.writeTrace(fmt.Sprintf("< error after %s: %v\n", d.Round(time.Millisecond), err))
}

// A 429 is waited for and sent again at most MaxRateLimitWaits times, each
// wait its Retry-After capped at MaxRateLimitWait.
const (
	MaxRateLimitWaits = 2
	MaxRateLimitWait  = 60 * time.Second
)

// retryAfter reads a Retry-After (seconds, or an HTTP date) into a wait of
// 1 s to MaxRateLimitWait; 1 s when it is absent or unreadable.
func retryAfter(v string, now time.Time) time.Duration {
	d := time.Second
	if n, err := strconv.Atoi(strings.TrimSpace(v)); err == nil {
		d = time.Duration(n) * time.Second
	} else if t, err := http.ParseTime(v); err == nil {
		d = t.Sub(now)
	}
	return min(max(d, time.Second), MaxRateLimitWait)
}
