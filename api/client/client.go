package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
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
// 4xx never is. This holds for every method, as commands.md pins it; note
// that a create whose response was lost and that is retried may answer 400
// with errorCode 1008 (e-mail already in use) although the first attempt
// created the trainee: the API is not idempotent, so a caller that needs
// at-most-once creation deduplicates on its side before calling.
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

// ---------------------------------------------------------------- errors

// CallInfo describes a failed call by its last attempt.
type CallInfo struct {
	Method    string
	URL       string
	RequestID string
	Status    int    // 0 when no response arrived
	Body      []byte // the response body, empty for 401 and 500
	Attempts  int
}

// AuthRefusedError is a 401: the API key is missing, malformed, unknown,
// disabled or deleted.
type AuthRefusedError struct{ CallInfo }

func (e *AuthRefusedError) Error() string {
	return "authentication refused (401): check the API key"
}

// TraineeNotFoundError is the 500 marked X-Error-Reason: trainee-not-found:
// no such trainee in the caller's company.
type TraineeNotFoundError struct {
	CallInfo
	ID int64
}

func (e *TraineeNotFoundError) Error() string {
	return fmt.Sprintf("trainee %d not found", e.ID)
}

// RejectedError is a 4xx other than 401; for a 400 it carries the body the
// contract defines (errorCode, message, field, errors).
type RejectedError struct {
	CallInfo
	api.ErrorBody
}

func (e *RejectedError) Error() string {
	if e.ErrorCode == 0 {
		return fmt.Sprintf("request rejected: %d %s", e.Status, http.StatusText(e.Status))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "request rejected (%d): ", e.ErrorCode)
	if e.Field != "" {
		b.WriteString(e.Field + ": ")
	}
	msg := e.Message
	if msg == "" {
		msg = "invalid request"
	}
	b.WriteString(msg)
	if n := len(e.Errors); n > 1 {
		fmt.Fprintf(&b, " (and %d more)", n-1)
	}
	return b.String()
}

// ServerError is a 5xx that persisted through the retries, or any other
// status the API never sends.
type ServerError struct{ CallInfo }

func (e *ServerError) Error() string {
	s := fmt.Sprintf("server error: %d %s", e.Status, http.StatusText(e.Status))
	if e.Attempts > 1 {
		s += fmt.Sprintf(" (after %d attempts)", e.Attempts)
	}
	return s
}

// NetworkError is a failure to reach the server or to read its answer,
// after the retries.
type NetworkError struct {
	CallInfo
	Err error
}

func (e *NetworkError) Error() string {
	cause := e.Err
	var ue *url.Error
	if errors.As(cause, &ue) {
		cause = ue.Err
	}
	s := "cannot reach " + e.URL + ": " + cause.Error()
	if e.Attempts > 1 {
		s += fmt.Sprintf(" (after %d attempts)", e.Attempts)
	}
	return s
}

func (e *NetworkError) Unwrap() error { return e.Err }

// ---------------------------------------------------------------- envelope

// ResponseTimestamp is the envelope's timestamp in either variant of
// interface.md: integer (variant B, what traineed sends: Unix seconds) or a
// dd-MM-yyyy string (variant A).
type ResponseTimestamp struct {
	Unix   int64
	Date   api.Date // set for variant A
	IsDate bool     // variant A
	Raw    string   // the value as received
}

// UnmarshalJSON accepts an integer, a dd-MM-yyyy string, or null. Another
// string is kept in Raw only: the timestamp is informational.
func (t *ResponseTimestamp) UnmarshalJSON(b []byte) error {
	*t = ResponseTimestamp{Raw: string(b)}
	b = bytes.TrimSpace(b)
	switch {
	case len(b) == 0 || string(b) == "null":
		return nil
	case b[0] == '"':
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		t.Raw = s
		if d, err := api.ParseDate(s); err == nil {
			t.Date, t.IsDate = d, true
		}
		return nil
	default:
		var n json.Number
		if err := json.Unmarshal(b, &n); err != nil {
			return fmt.Errorf("timestamp: want an integer or a dd-MM-yyyy string, got %s", b)
		}
		if i, err := n.Int64(); err == nil {
			t.Unix = i
			return nil
		}
		f, err := n.Float64()
		if err != nil {
			return fmt.Errorf("timestamp: %w", err)
		}
		t.Unix = int64(f)
		return nil
	}
}

// MarshalJSON writes the form that was received.
func (t ResponseTimestamp) MarshalJSON() ([]byte, error) {
	if t.IsDate {
		return json.Marshal(t.Date)
	}
	return json.Marshal(t.Unix)
}

type clientEnvelope struct {
	Timestamp ResponseTimestamp `json:"timestamp"`
	Trainee   *api.Trainee      `json:"trainee"`
}

// DecodeTraineeEnvelope reads a single-trainee body in either variant of
// interface.md.
func DecodeTraineeEnvelope(body []byte) (*api.Trainee, ResponseTimestamp, error) {
	var env clientEnvelope
	if err := json.Unmarshal(body, &env); err != nil {
		return nil, ResponseTimestamp{}, fmt.Errorf("decode trainee response: %w", err)
	}
	if env.Trainee == nil {
		return nil, env.Timestamp, errors.New("decode trainee response: no trainee in the body")
	}
	return env.Trainee, env.Timestamp, nil
}

type clientPage struct {
	Timestamp ResponseTimestamp `json:"timestamp"`
	Content   []*api.Trainee    `json:"content"`
	Page      api.PageInfo      `json:"page"`
}

// ---------------------------------------------------------------- calls

// CreateTrainee creates a trainee (POST /public-api/trainees). See the
// Client documentation on retries of a create.
func (c *Client) CreateTrainee(ctx context.Context, r api.CreateRequest) (*api.Trainee, error) {
	return c.trainee(ctx, http.MethodPost, api.PathTrainees, r, 0)
}

// Trainee returns one trainee, soft-deleted ones included.
func (c *Client) Trainee(ctx context.Context, id int64) (*api.Trainee, error) {
	return c.trainee(ctx, http.MethodGet, traineePath(id), nil, id)
}

// UpdateTrainee changes the fields set in u and returns the result. body is
// usually a TraineeUpdate; any value that marshals to a JSON object works
// (a map to send exactly the members wanted).
func (c *Client) UpdateTrainee(ctx context.Context, id int64, body any) (*api.Trainee, error) {
	if body == nil {
		body = struct{}{}
	}
	return c.trainee(ctx, http.MethodPut, traineePath(id), body, id)
}

// DeleteTrainee soft-deletes a trainee and returns it (enabled false).
// Deleting a deleted trainee succeeds again.
func (c *Client) DeleteTrainee(ctx context.Context, id int64) (*api.Trainee, error) {
	return c.trainee(ctx, http.MethodDelete, traineePath(id), nil, id)
}

// RestoreTrainee restores a soft-deleted trainee (PUT enabled: true).
func (c *Client) RestoreTrainee(ctx context.Context, id int64) (*api.Trainee, error) {
	return c.UpdateTrainee(ctx, id, TraineeUpdate{Enabled: api.Val(true)})
}

// SearchParams are the query of GET /public-api/trainees/search. Zero
// values are not sent, so the server's defaults apply.
type SearchParams struct {
	Query  string // q: part of a name, e-mail or phone number
	Status string // live (default), active, expired, deleted, all
	Page   int    // 0-based
	Size   int    // 1..100, default 20
	Sort   string // id, name, email, expirationDate, lastTrained, optionally ",asc" or ",desc"
}

func (p SearchParams) values() url.Values {
	v := url.Values{}
	if p.Query != "" {
		v.Set("q", p.Query)
	}
	if p.Status != "" {
		v.Set("status", p.Status)
	}
	if p.Page != 0 {
		v.Set("page", strconv.Itoa(p.Page))
	}
	if p.Size != 0 {
		v.Set("size", strconv.Itoa(p.Size))
	}
	if p.Sort != "" {
		v.Set("sort", p.Sort)
	}
	return v
}

// Validate checks p as the server would (ParseSearch): a status, sort,
// page, size or query the server would refuse with 1012 is refused here,
// as a *ValidationError naming the parameters, before anything is sent.
func (p SearchParams) Validate() error {
	_, err := api.ParseSearch(p.values(), api.Date{})
	return err
}

// SearchTrainees returns one page of a search.
func (c *Client) SearchTrainees(ctx context.Context, p SearchParams) (*api.TraineePage, error) {
	body, err := c.Do(ctx, http.MethodGet, api.PathSearch, p.values(), nil, 0)
	if err != nil {
		return nil, err
	}
	var pg clientPage
	if err := json.Unmarshal(body, &pg); err != nil {
		return nil, fmt.Errorf("decode search response: %w", err)
	}
	if pg.Content == nil {
		pg.Content = []*api.Trainee{}
	}
	return &api.TraineePage{Timestamp: pg.Timestamp.Unix, Content: pg.Content, Page: pg.Page}, nil
}

// SearchAllTrainees follows the pages of a search from p.Page to the last
// and returns every trainee, and the page information of the last page
// read. p.Size 0 asks for pages of 100.
func (c *Client) SearchAllTrainees(ctx context.Context, p SearchParams) ([]*api.Trainee, api.PageInfo, error) {
	if p.Size == 0 {
		p.Size = 100
	}
	all := []*api.Trainee{}
	seen := map[int64]bool{}
	for {
		pg, err := c.SearchTrainees(ctx, p)
		if err != nil {
			return nil, api.PageInfo{}, err
		}
		for _, t := range pg.Content {
			if !seen[t.ID] { // a trainee created meanwhile may shift a page
				seen[t.ID] = true
				all = append(all, t)
			}
		}
		if len(pg.Content) == 0 || pg.Page.Number+1 >= pg.Page.TotalPages {
			return all, pg.Page, nil
		}
		p.Page = pg.Page.Number + 1
	}
}

// TrackedRange is the from/to of weight history and measurements, both
// inclusive. A zero date is not sent: to defaults to the company's today,
// from to 29 days before to.
type TrackedRange struct {
	From, To api.Date
}

func (r TrackedRange) values() url.Values {
	v := url.Values{}
	if !r.From.IsZero() {
		v.Set("from", r.From.String())
	}
	if !r.To.IsZero() {
		v.Set("to", r.To.String())
	}
	return v
}

// WeightHistory returns the daily weight of a trainee over r.
func (c *Client) WeightHistory(ctx context.Context, id int64, r TrackedRange) (*api.WeightHistory, error) {
	var out api.WeightHistory
	if err := c.getJSON(ctx, traineePath(id)+"/weight-history", r.values(), id, &out); err != nil {
		return nil, err
	}
	if out.Entries == nil {
		out.Entries = []api.WeightEntry{}
	}
	return &out, nil
}

// Measurements returns a trainee's body measurements over r; typ ("" for
// every type) filters on one type such as WAIST.
func (c *Client) Measurements(ctx context.Context, id int64, r TrackedRange, typ string) (*api.Measurements, error) {
	v := r.values()
	if typ != "" {
		v.Set("type", typ)
	}
	var out api.Measurements
	if err := c.getJSON(ctx, traineePath(id)+"/measurements", v, id, &out); err != nil {
		return nil, err
	}
	if out.Measurements == nil {
		out.Measurements = []api.Measurement{}
	}
	return &out, nil
}

// Nutrition returns what a trainee logged eating on day (zero: the
// company's today).
func (c *Client) Nutrition(ctx context.Context, id int64, day api.Date) (*api.Nutrition, error) {
	v := url.Values{}
	if !day.IsZero() {
		v.Set("date", day.String())
	}
	var out api.Nutrition
	if err := c.getJSON(ctx, traineePath(id)+"/nutrition", v, id, &out); err != nil {
		return nil, err
	}
	if out.Meals == nil {
		out.Meals = []api.Meal{}
	}
	for i := range out.Meals {
		if out.Meals[i].Items == nil {
			out.Meals[i].Items = []api.NutritionItem{}
		}
	}
	return &out, nil
}

// AverageSteps returns a trainee's mean daily steps over the trailing 7 days.
func (c *Client) AverageSteps(ctx context.Context, id int64) (*api.AverageSteps, error) {
	var out api.AverageSteps
	if err := c.getJSON(ctx, traineePath(id)+"/average-steps", nil, id, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

func traineePath(id int64) string { return api.PathTrainees + "/" + strconv.FormatInt(id, 10) }

func (c *Client) trainee(ctx context.Context, method, path string, body any, id int64) (*api.Trainee, error) {
	b, err := c.Do(ctx, method, path, nil, body, id)
	if err != nil {
		return nil, err
	}
	t, _, err := DecodeTraineeEnvelope(b)
	return t, err
}

func (c *Client) getJSON(ctx context.Context, path string, q url.Values, id int64, out any) error {
	b, err := c.Do(ctx, http.MethodGet, path, q, nil, id)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, out); err != nil {
		return fmt.Errorf("decode response of GET %s: %w", path, err)
	}
	return nil
}

// ---------------------------------------------------------------- update body

// TraineeUpdate is a PUT body that sends only the fields that are Set; a
// Set and Null field is sent as null (which clears phoneNumber,
// dateOfBirth and expirationDate; the server refuses null elsewhere).
type TraineeUpdate struct {
	Name                api.Optional[string]
	Email               api.Optional[string]
	Password            api.Optional[string]
	PhoneNumber         api.Optional[string]
	DateOfBirth         api.Optional[api.Date]
	ExpirationDate      api.Optional[api.Date]
	TrainerID           api.Optional[int64]
	WeightUnit          api.Optional[string]
	Enabled             api.Optional[bool]
	ForcePasswordChange api.Optional[bool]
}

// IsEmpty reports whether u sends no field at all.
func (u TraineeUpdate) IsEmpty() bool {
	b, _ := u.MarshalJSON()
	return string(b) == "{}"
}

// MarshalJSON writes the set fields only, in a fixed order.
func (u TraineeUpdate) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	n := 0
	add := func(name string, set, null bool, v any) error {
		if !set {
			return nil
		}
		if n > 0 {
			b.WriteByte(',')
		}
		n++
		b.WriteString(strconv.Quote(name) + ":")
		if null {
			b.WriteString("null")
			return nil
		}
		j, err := json.Marshal(v)
		if err != nil {
			return err
		}
		b.Write(j)
		return nil
	}
	for _, f := range []struct {
		name      string
		set, null bool
		v         any
	}{
		{"name", u.Name.Set, u.Name.Null, u.Name.Value},
		{"email", u.Email.Set, u.Email.Null, u.Email.Value},
		{"password", u.Password.Set, u.Password.Null, u.Password.Value},
		{"phoneNumber", u.PhoneNumber.Set, u.PhoneNumber.Null, u.PhoneNumber.Value},
		{"dateOfBirth", u.DateOfBirth.Set, u.DateOfBirth.Null, u.DateOfBirth.Value},
		{"expirationDate", u.ExpirationDate.Set, u.ExpirationDate.Null, u.ExpirationDate.Value},
		{"trainerId", u.TrainerID.Set, u.TrainerID.Null, u.TrainerID.Value},
		{"weightUnit", u.WeightUnit.Set, u.WeightUnit.Null, u.WeightUnit.Value},
		{"enabled", u.Enabled.Set, u.Enabled.Null, u.Enabled.Value},
		{"forcePasswordChange", u.ForcePasswordChange.Set, u.ForcePasswordChange.Null, u.ForcePasswordChange.Value},
	} {
		if err := add(f.name, f.set, f.null, f.v); err != nil {
			return nil, err
		}
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// ---------------------------------------------------------------- transport

// Do sends one logical request with retries and returns the body of its 2xx
// response, or one of the typed errors. path is relative to the base URL;
// body (nil for none) is marshalled to JSON; traineeID names the trainee of
// the path for a TraineeNotFoundError (0 when there is none).
func (c *Client) Do(ctx context.Context, method, path string, query url.Values, body any, traineeID int64) ([]byte, error) {
	var payload []byte
	if body != nil {
		var err error
		if payload, err = json.Marshal(body); err != nil {
			return nil, fmt.Errorf("encode request: %w", err)
		}
	}
	u := c.base + path
	if len(query) > 0 {
		u += "?" + query.Encode()
	}
	ci := CallInfo{Method: method, URL: u, RequestID: c.newID()}
	for attempt := 1; ; attempt++ {
		ci.Attempts, ci.Status, ci.Body = attempt, 0, nil
		status, hdr, respBody, err := c.attempt(ctx, ci, payload)
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
			case status == http.StatusUnauthorized:
				result = &AuthRefusedError{ci}
			case status >= 400 && status < 500:
				re := &RejectedError{CallInfo: ci}
				_ = json.Unmarshal(respBody, &re.ErrorBody) // 404/405/413 have no body
				result = re
			case status == http.StatusInternalServerError && hdr.Get(api.HeaderErrorReason) == api.ReasonTraineeNotFound:
				result = &TraineeNotFoundError{CallInfo: ci, ID: traineeID}
			case status >= 500:
				result, retry = &ServerError{ci}, true
			default:
				result = &ServerError{ci}
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
	for _, h := range []string{api.HeaderRequestID, "User-Agent", "Content-Type"} {
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
	io.WriteString(c.verbose, b.String())
}

func (c *Client) traceResponse(resp *http.Response, body []byte, d time.Duration) {
	if c.verbose == nil {
		return
	}
	var b strings.Builder
	fmt.Fprintf(&b, "< %s (%s)\n", resp.Status, d.Round(time.Millisecond))
	for _, h := range []string{api.HeaderRequestID, api.HeaderErrorReason, "Content-Type"} {
		if v := resp.Header.Get(h); v != "" {
			fmt.Fprintf(&b, "< %s: %s\n", h, v)
		}
	}
	if len(body) > 0 {
		fmt.Fprintf(&b, "< %s\n", strings.TrimRight(truncateBody(body), "\n"))
	}
	io.WriteString(c.verbose, b.String())
}

func (c *Client) traceError(err error, d time.Duration) {
	if c.verbose == nil {
		return
	}
	fmt.Fprintf(c.verbose, "< error after %s: %v\n", d.Round(time.Millisecond), err)
}
