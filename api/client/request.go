package client

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/traineed/traineed/api"
)

// RequestOption changes one call of the client (every method takes them
// last): IfMatch makes it conditional, WithResponse hands back what the
// answer said besides its body. Options of the client as a whole (retries,
// logs, timeouts) are Options of New.
type RequestOption func(*callOptions)

// callOptions are a call's RequestOptions applied.
type callOptions struct {
	header         http.Header // extra request headers (If-Match)
	resp           *Response   // WithResponse's, or nil
	idempotencyKey string      // IdempotencyKey's, or ""
}

func applyOptions(opts []RequestOption) callOptions {
	var o callOptions
	for _, f := range opts {
		if f != nil {
			f(&o)
		}
	}
	return o
}

// IfMatch sends the call with If-Match: etag (none when etag is ""): a
// change of a trainee that someone changed since the read that gave etag
// (a Response's ETag) changes nothing and fails with a
// *PreconditionFailedError (412, errorCode 1026).
func IfMatch(etag string) RequestOption {
	return func(o *callOptions) {
		if etag == "" {
			return
		}
		if o.header == nil {
			o.header = http.Header{}
		}
		o.header.Set(api.HeaderIfMatch, etag)
	}
}

// RefuseErased sends a create with Traineed-Refuse-Erased: true: a trainee
// whose e-mail address or phone number is that of a trainee erased from
// the company is not created, and the error is an *ErasedError (409,
// errorCode 1038). Without it a create is as the interface defines it.
func RefuseErased() RequestOption {
	return func(o *callOptions) {
		if o.header == nil {
			o.header = http.Header{}
		}
		o.header.Set(api.HeaderRefuseErased, "true")
	}
}

// IdempotencyKey sends the call (of any method) with key as its
// Idempotency-Key instead of its request id: a request sent again with the
// same key and the same method, path and body, by this process or a later
// one, gets the first answer and changes nothing again (the server keeps
// answers 24 hours). key must be 1 to 255 printable ASCII characters.
// Without it a POST, PUT or DELETE carries its request id, so that the
// client's own retries are replayed, never applied twice.
func IdempotencyKey(key string) RequestOption {
	return func(o *callOptions) { o.idempotencyKey = key }
}

// WithResponse fills r with the metadata of the call's answer: status,
// request id, ETag, rate limit, Retry-After. It is filled whenever an
// answer arrived, an error status included (a 412's or a 429's), and
// left as it was when none did. An iterator fills it from each page it
// reads, and adds the list's paging (Pages, Page, Counted, More).
//
// The client returns metadata through an option rather than as a second
// result (go-github's (*T, *Response, error)): a caller that wants it
// asks for it, every other call keeps its one result, and the one
// option works the same for a call, an iterator and Do.
func WithResponse(r *Response) RequestOption {
	return func(o *callOptions) { o.resp = r }
}

// Response is the metadata of one answer of the API (WithResponse).
type Response struct {
	// Status is the HTTP status of the last attempt's answer.
	Status int
	// RequestID is the answer's X-Request-Id: the id the client sent,
	// which the server echoes and logs (quote it to support).
	RequestID string
	// ETag is the version of the trainee the answer holds (quoted, as the
	// server sends it; "" when none): what IfMatch takes.
	ETag string
	// RateLimit is the key's rate-limit state the answer announced (nil
	// when it announced none).
	RateLimit *RateLimit
	// RetryAfter is the answer's Retry-After (of a 429 or a 503), 0 when
	// absent. The client has already waited it out for a 429 it sent
	// again; it is here for the caller's own pacing.
	RetryAfter time.Duration
	// Attempts is how many times the call was sent (retries included).
	Attempts int
	// Header is the answer's whole header.
	Header http.Header

	// The paging of a list, set by an iterator: Pages is how many pages it
	// has read so far; Page the page object of the last one (its totals
	// when Counted: search, automations, runs and dry runs); More whether
	// rows follow the last row it yielded, once the loop is over.
	Pages   int
	Page    api.PageInfo
	Counted bool
	More    bool

	pageRows int // the rows the iterator yields of its last page (ByPage)
}

// observe fills r from one answer.
func (r *Response) observe(ci CallInfo, status int, hdr http.Header, now time.Time) {
	if r == nil {
		return
	}
	r.Status, r.Attempts, r.Header = status, ci.Attempts, hdr
	r.RequestID = hdr.Get(api.HeaderRequestID)
	if r.RequestID == "" {
		r.RequestID = ci.RequestID
	}
	r.ETag = hdr.Get(api.HeaderETag)
	r.RateLimit = nil
	if rl, ok := ParseRateLimit(hdr.Get("RateLimit-Policy"), hdr.Get("RateLimit")); ok {
		r.RateLimit = &rl
	}
	r.RetryAfter = parseRetryAfter(hdr.Get("Retry-After"), now)
}

// parseRetryAfter reads a Retry-After (seconds, or an HTTP date) as it
// is: 0 when absent or unreadable.
func parseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if n, err := strconv.Atoi(v); err == nil {
		return time.Duration(max(n, 0)) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0)
	}
	return 0
}
