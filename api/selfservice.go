package api

import (
	"context"
	"encoding/json"
	"errors"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Paths of company self-service (issue 12).
const (
	PathWebhooks   = "/public-api/webhooks"
	PathEvents     = "/public-api/events"
	PathCurrentKey = "/public-api/keys/current"
)

// CodeReadOnlyKey is the errorCode of a write made with a read-only key
// (status 403).
const CodeReadOnlyKey = 1014

// Key scopes, each including the next: admin (KeyScopeAdmin) may call
// every route, full every route but company administration (keys,
// trainers, the company's settings), read every GET of full's.
const (
	KeyScopeFull = "full"
	KeyScopeRead = "read"
)

// KeyScopes lists the scopes, the widest first.
var KeyScopes = []string{KeyScopeAdmin, KeyScopeFull, KeyScopeRead}

// ValidKeyScope reports whether s is a scope.
func ValidKeyScope(s string) bool { _, ok := scopeRank[s]; return ok }

// ErrReadOnlyKey is a write attempted with a read key: a 403 with errorCode
// 1014, before the route runs, so nothing changes.
var ErrReadOnlyKey = errors.New("this key is read-only")

// ReadOnlyBody is the body of the 403 of ErrReadOnlyKey.
func ReadOnlyBody() ErrorBody { return ErrorOf(CodeReadOnlyKey, "", "this key is read-only") }

// WritesAllowed reports whether a request with method may be made with a
// key of scope: a read key may only GET (HEAD is a GET without the body).
func WritesAllowed(scope, method string) bool {
	return scope != KeyScopeRead || method == "GET" || method == "HEAD"
}

// CurrentKey is GET /public-api/keys/current: the calling key, never the
// key itself. TrainerID (and TrainerName) is the trainer the key acts as,
// null for a company key; OwnTraineesOnly limits it to that trainer's
// trainees.
type CurrentKey struct {
	ID              int64      `json:"id"`
	Name            string     `json:"name"`
	Prefix          string     `json:"prefix"`
	Scope           string     `json:"scope"`
	CompanyID       int64      `json:"companyId"`
	CompanyName     string     `json:"companyName"`
	CreatedAt       time.Time  `json:"createdAt"`
	TrainerID       *int64     `json:"trainerId"`
	TrainerName     *string    `json:"trainerName"`
	OwnTraineesOnly bool       `json:"ownTraineesOnly"`
	ExpiresAt       *time.Time `json:"expiresAt"`
	TimeZone        string     `json:"timeZone"`
}

// CurrentKeyEnvelope is the body of GET /public-api/keys/current.
type CurrentKeyEnvelope struct {
	Timestamp int64       `json:"timestamp"`
	Key       *CurrentKey `json:"key"`
}

// WebhookEnvelope is the body of every single-webhook response. Secret is
// present only on create and rotate-secret: the only times it is shown.
type WebhookEnvelope struct {
	Timestamp int64    `json:"timestamp"`
	Webhook   *Webhook `json:"webhook"`
	Secret    string   `json:"secret,omitempty"`
	// PreviousSecretExpiresAt, on rotate-secret, is when the old secret
	// stops signing.
	PreviousSecretExpiresAt *time.Time `json:"previousSecretExpiresAt,omitempty"`
}

// WebhookList is the body of GET /public-api/webhooks: one page of the
// company's webhooks by id, paged like every list.
type WebhookList struct {
	Timestamp int64      `json:"timestamp"`
	Webhooks  []*Webhook `json:"webhooks"`
	Page      CursorPage `json:"page"`
}

func (p *WebhookList) Rows() []*Webhook   { return p.Webhooks }
func (p *WebhookList) Paging() CursorPage { return p.Page }

// WebhookDeliveries is the body of GET /public-api/webhooks/{id}/deliveries:
// one page of attempts, newest first.
type WebhookDeliveries struct {
	Timestamp  int64             `json:"timestamp"`
	Deliveries []*WebhookAttempt `json:"deliveries"`
	Page       CursorPage        `json:"page"`
	// Size (the limit) and HasMore (Page's) are kept from the offset
	// pages before cursors.
	Size    int  `json:"size"`
	HasMore bool `json:"hasMore"`
}

func (p *WebhookDeliveries) Rows() []*WebhookAttempt { return p.Deliveries }
func (p *WebhookDeliveries) Paging() CursorPage      { return p.Page }

// RedeliverResult is the body of POST /public-api/events/{id}/redeliver.
type RedeliverResult struct {
	Timestamp  int64  `json:"timestamp"`
	EventID    string `json:"eventId"`
	Deliveries int    `json:"deliveries"` // how many deliveries were scheduled
}

// WebhookTestResult is the body of POST /public-api/webhooks/{id}/test: the
// one attempt made, at once, of a webhook.test event.
type WebhookTestResult struct {
	Timestamp  int64   `json:"timestamp"`
	EventID    string  `json:"eventId"`
	OK         bool    `json:"ok"`
	StatusCode *int    `json:"statusCode"`
	LatencyMs  float64 `json:"latencyMs"`
	Error      *string `json:"error"`
	Response   *string `json:"response"`
}

// EventWebhookTest is the type of the event a test sends; it is never in
// the feed and never retried.
const EventWebhookTest = "webhook.test"

// WebhookTestEvent is the body of a webhook.test delivery.
type WebhookTestEvent struct {
	Type      string               `json:"type"`
	Timestamp int64                `json:"timestamp"`
	Data      WebhookTestEventData `json:"data"`
}

// WebhookTestEventData is the "data" of a webhook.test event.
type WebhookTestEventData struct {
	WebhookID int64 `json:"webhookId"`
}

// WebhookRotation is how long a rotated-out secret keeps signing.
const WebhookRotation = 24 * time.Hour

// WebhookPatch is a change to a webhook; nil fields are left alone.
type WebhookPatch struct {
	URL     *string
	Events  []string // nil: unchanged; never empty when set
	Enabled *bool
}

// NewWebhook is an endpoint to create.
type NewWebhook struct {
	URL     string
	Events  []string
	Secret  string
	Enabled bool
}

// Default caps per company (traineed serve --max-webhooks and
// --max-automations): one tenant cannot turn the server into an amplifier.
const (
	DefaultMaxWebhooks    = 16
	DefaultMaxAutomations = 100
)

// LimitReached is the error of a create past a cap: a 400 with
// CodeLimitReached.
func LimitReached(what string, max int, flag string) error {
	return Invalid(CodeLimitReached, "", "a company may have at most %d %s; delete one first, or ask the operator to raise the limit (traineed serve %s)", max, what, flag)
}

// WebhookTarget is what a test attempt needs: where, and which secrets
// sign (the current one first).
type WebhookTarget struct {
	URL     string
	Secrets []string
}

// ParseWebhookCreate reads the body of POST /public-api/webhooks: url
// (required), events (a list of types; absent or empty is every type),
// enabled (default true).
func ParseWebhookCreate(body []byte) (url string, events []string, enabled bool, err error) {
	p, err := parseWebhookBody(body, true)
	if err != nil {
		return "", nil, false, err
	}
	events, enabled = p.Events, true
	if events == nil {
		events = append([]string(nil), TraineeEventTypes...)
	}
	if p.Enabled != nil {
		enabled = *p.Enabled
	}
	return *p.URL, events, enabled, nil
}

// ParseWebhookUpdate reads the body of PUT /public-api/webhooks/{id}: any
// of url, events, enabled.
func ParseWebhookUpdate(body []byte) (*WebhookPatch, error) { return parseWebhookBody(body, false) }

func parseWebhookBody(body []byte, create bool) (*WebhookPatch, error) {
	m, err := object(body)
	if err != nil {
		return nil, err
	}
	f := &fields{m: m, v: &ValidationError{}, skip: map[string]bool{}}
	p := &WebhookPatch{}
	if raw, ok := f.present("url", create, false); ok {
		var s string
		if f.str("url", raw, &s) {
			f.v.merge(ValidateURL("url", s))
			p.URL = &s
		}
	}
	if raw, ok := f.present("events", false, false); ok {
		var list []string
		if err := json.Unmarshal(raw, &list); err != nil {
			f.typeError("events", "an array of strings")
		} else if len(list) == 0 {
			if create {
				p.Events = append([]string(nil), TraineeEventTypes...)
			} else {
				f.v.Add(CodeRequired, "events", "events must list at least one event type")
			}
		} else if slices.Contains(list, "all") {
			f.v.Add(CodeInvalidEnum, "events", "events lists event types (all of them: %s)", strings.Join(WebhookEventTypes, ", "))
		} else if evs, err := ParseWebhookEvents(strings.Join(list, ",")); err != nil {
			f.v.Add(CodeInvalidEnum, "events", "%s", err.Error())
		} else {
			p.Events = evs
		}
	}
	if raw, ok := f.present("enabled", false, false); ok {
		var b bool
		if f.boolean("enabled", raw, &b) {
			p.Enabled = &b
		}
	}
	if err := f.v.Err(); err != nil {
		return nil, err
	}
	return p, nil
}

// Event is one item of the event feed: the event a webhook delivery sends,
// with the same id (webhook-id) and the exact payload (the delivery's body).
type Event struct {
	ID        string          `json:"id"`
	Type      string          `json:"type"`
	CreatedAt time.Time       `json:"createdAt"`
	Payload   json.RawMessage `json:"payload"`
	// Actor is who made the change: null for an event written before
	// actors were recorded. Feed only: a delivery's body (Payload) never
	// carries it.
	Actor *Actor `json:"actor"`
	// Seq is the event's place in the company's feed (its row id): the
	// keyset of the feed's cursors. Never sent.
	Seq int64 `json:"-"`
}

// EventPage is the body of GET /public-api/events.
type EventPage struct {
	Timestamp int64    `json:"timestamp"`
	Events    []*Event `json:"events"`
	// Next is the feed's cursor, kept from before page: the event id to
	// pass as after= to continue, the last event's, or the request's
	// after when no event came (so a client following the feed always
	// has one).
	Next    string `json:"next"`
	HasMore bool   `json:"hasMore"`
	// Page is every list's page object: NextCursor is null when no event
	// follows yet.
	Page CursorPage `json:"page"`
}

func (p *EventPage) Rows() []*Event     { return p.Events }
func (p *EventPage) Paging() CursorPage { return p.Page }

// Feed limits.
const (
	DefaultEventLimit = 100
	MaxEventLimit     = 500
	// MaxEventWait caps the long-poll's wait= seconds.
	MaxEventWait = 30
	// EventRetention is how long the feed keeps events at least.
	EventRetention = 30 * 24 * time.Hour
)

// Orders of the feed (GET /public-api/events?order=).
const (
	OrderAsc  = "asc"  // the feed's order, oldest first (the default)
	OrderDesc = "desc" // newest first
)

// EventQuery is a parsed GET /public-api/events.
type EventQuery struct {
	// After is an event id (evt_...): the events after it. The feed's
	// cursor before page, still taken; "" is from the first event.
	After string
	// AfterSeq, from a page.nextCursor, is the Seq of the event the page
	// starts after (0: none).
	AfterSeq int64
	Types    []string // nil is every type
	Limit    int
	Desc     bool          // newest first (order=desc)
	Wait     time.Duration // long-poll: how long to wait for an event when none is there
	// Offset counts the events of the pages before this one (a cursor's).
	Offset int64
	// List is the feed's ListFingerprint with these types and order.
	List string
	// TrainerID, set by the server for a key limited to its trainer's
	// trainees, keeps the events of that trainer's trainees only.
	TrainerID *int64
}

// feedList is how the feed reads limit: 1 to 500, no page.
var feedList = ListParams{Default: DefaultEventLimit, Max: MaxEventLimit, Keys: 1}

// ParseEventQuery reads after (an event id, or a page.nextCursor of the
// feed of companyID with the same type and order), type (a
// comma-separated list, may repeat), limit, order and wait; a bad value
// is a 400 with errorCode 1012.
func ParseEventQuery(q url.Values, companyID int64) (EventQuery, error) {
	v := &ValidationError{}
	out := EventQuery{Limit: parseLimit(v, q, feedList)}
	if ts := q["type"]; len(ts) > 0 {
		evs, err := ParseFeedEvents(strings.Join(ts, ","))
		if err != nil {
			v.Add(CodeInvalidParameter, "type", "%s", err.Error())
		}
		out.Types = evs
	}
	switch o := q.Get("order"); o {
	case "", OrderAsc:
	case OrderDesc:
		out.Desc = true
	default:
		v.Add(CodeInvalidParameter, "order", "order must be asc (oldest first, the default) or desc (newest first)")
	}
	order := OrderAsc
	if out.Desc {
		order = OrderDesc
	}
	out.List = ListFingerprint("events", companyID, strings.Join(out.Types, ","), order)
	switch a := q.Get("after"); {
	case strings.HasPrefix(a, WebhookEventIDPrefix):
		if len(a) > 64 {
			v.Add(CodeInvalidParameter, "after", "after must be an event id (evt_...) or a page's page.nextCursor")
		}
		out.After = a
	case a != "":
		if c, ok := parseAfter(v, a, feedList, out.List); ok {
			out.AfterSeq, out.Offset = c.Key[0], c.Offset
		}
	}
	if w := q.Get("wait"); w != "" {
		n, err := strconv.Atoi(w)
		switch {
		case err != nil || n < 0 || n > MaxEventWait:
			v.Add(CodeInvalidParameter, "wait", "wait must be an integer number of seconds from 0 to %d", MaxEventWait)
		case n > 0 && out.Desc:
			v.Add(CodeInvalidParameter, "wait", "wait follows the feed's order: it cannot go with order=desc")
		}
		out.Wait = time.Duration(n) * time.Second
	}
	return out, v.Err()
}

// UnknownEvent is the error of an after= cursor that is no event of the
// company (or one pruned): a 400 with errorCode 1012.
func UnknownEvent() error {
	return Invalid(CodeInvalidParameter, "after", "after is not an event of this company (events are kept at least %d days)", int(EventRetention/(24*time.Hour)))
}

// WebhookStore is what the self-service routes need from storage. Every
// method takes the caller's company id; another company's webhook or event
// is ErrNotFound.
type WebhookStore interface {
	CurrentKey(ctx context.Context, companyID, keyID int64) (*CurrentKey, error)

	// CreateWebhookEnabled adds an endpoint, unless the company has max
	// of them already (max > 0): then a 400 with CodeLimitReached.
	CreateWebhookEnabled(ctx context.Context, companyID int64, w NewWebhook, max int) (*Webhook, error)
	// WebhookPage returns one page of the company's webhooks by id.
	WebhookPage(ctx context.Context, companyID int64, q ListQuery) (ListPage[*Webhook], error)
	Webhook(ctx context.Context, companyID, id int64) (*Webhook, error)
	UpdateWebhook(ctx context.Context, companyID, id int64, p WebhookPatch) (*Webhook, error)
	DeleteCompanyWebhook(ctx context.Context, companyID, id int64) error
	// CompanyWebhookAttempts returns one page of an endpoint's attempts,
	// newest first (keyset: delivery id, attempt), and whether more
	// follow; no total.
	CompanyWebhookAttempts(ctx context.Context, companyID, id int64, q ListQuery) (ListPage[*WebhookAttempt], error)
	// RotateWebhookSecret makes secret the endpoint's secret; the old one
	// keeps signing for keepFor, until the time it returns.
	RotateWebhookSecret(ctx context.Context, companyID, id int64, secret string, keepFor time.Duration) (*Webhook, time.Time, error)
	// WebhookTarget returns an endpoint's URL and its signing secrets.
	WebhookTarget(ctx context.Context, companyID, id int64) (*WebhookTarget, error)
	// RedeliverCompanyEvent schedules the event again to the company's
	// subscribed endpoints and returns how many deliveries it made.
	RedeliverCompanyEvent(ctx context.Context, companyID int64, eventID string) (int, error)

	// Events returns the company's events after the cursor (q.After or
	// q.AfterSeq), in feed order or newest first (q.Desc), with their Seq;
	// UnknownEvent() when q.After is no event of the company.
	Events(ctx context.Context, companyID int64, q EventQuery) ([]*Event, error)
	// LatestEventID is a number that changes exactly when an event of the
	// company commits (0 when it has none): the long-poll's cheap check.
	LatestEventID(ctx context.Context, companyID int64) (int64, error)
}
