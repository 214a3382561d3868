package api

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Webhook event types (contract section 7).
const (
	EventTraineeCreated  = "trainee.created"
	EventTraineeUpdated  = "trainee.updated"
	EventTraineeDeleted  = "trainee.deleted"
	EventTraineeRestored = "trainee.restored"
	// EventTraineeExpired is sent on the company's calendar day a live
	// trainee's expirationDate is reached (by the automations evaluator of
	// `traineed serve`), once per trainee and expirationDate.
	EventTraineeExpired = "trainee.expired"
	// EventWebhookDisabled is put in the event feed (never delivered to an
	// endpoint) when the server disables an endpoint or a WEBHOOK
	// automation by itself: it answered 410 Gone, or its address is one
	// the server does not send to.
	EventWebhookDisabled = "webhook.disabled"
)

// FeedEventTypes are the types GET /events may hold (and filter by):
// the webhook events and webhook.disabled.
var FeedEventTypes = append(append([]string{}, WebhookEventTypes...), EventWebhookDisabled)

// WebhookDisabledEvent is the payload of a webhook.disabled event.
type WebhookDisabledEvent struct {
	Type      string              `json:"type"`
	Timestamp int64               `json:"timestamp"`
	Data      WebhookDisabledData `json:"data"`
}

// WebhookDisabledData says which endpoint was disabled, and why: the
// company's webhook (webhookId) or a WEBHOOK automation's (automationId).
type WebhookDisabledData struct {
	WebhookID    *int64 `json:"webhookId"`
	AutomationID *int64 `json:"automationId"`
	URL          string `json:"url"`
	Reason       string `json:"reason"`
}

// TraineeEventTypes are the events of trainees: what an endpoint created
// without events is subscribed to.
var TraineeEventTypes = []string{EventTraineeCreated, EventTraineeUpdated, EventTraineeDeleted, EventTraineeRestored, EventTraineeExpired, EventTraineeErased}

// WebhookEventTypes lists every event type an endpoint may subscribe to,
// in the order they are shown: the trainees', then company
// administration's (AdminEventTypes).
var WebhookEventTypes = append(append([]string{}, TraineeEventTypes...), AdminEventTypes...)

// WebhookEvent is the body of a webhook delivery.
type WebhookEvent struct {
	Type      string      `json:"type"`
	Timestamp int64       `json:"timestamp"` // Unix seconds of the change
	Data      WebhookData `json:"data"`
}

// WebhookData is the "data" member of a WebhookEvent: the trainee after the
// change and the API names of the fields the change altered. For
// trainee.created it lists every field the new trainee has a value for
// (null fields are left out); a new password is listed as "password",
// without its value.
type WebhookData struct {
	Trainee       *Trainee `json:"trainee"`
	ChangedFields []string `json:"changedFields"`
}

// Webhook states, as `webhook list` shows them.
const (
	WebhookActive   = "active"
	WebhookDisabled = "disabled"
)

// Webhook is a configured endpoint as `traineed webhook list` shows it: never
// its secret.
type Webhook struct {
	ID        int64    `json:"id"`
	CompanyID int64    `json:"companyId"`
	URL       string   `json:"url"`
	Events    []string `json:"events"`
	State     string   `json:"state"`
	// DisabledReason says why the server disabled the endpoint (it
	// answered 410 Gone, or its address is one the server does not send
	// to); null while it is active or when a person disabled it.
	DisabledReason *string   `json:"disabledReason"`
	CreatedAt      time.Time `json:"createdAt"`
}

// RedactURL hides a URL's userinfo, user name and password alike
// (https://xxxxx@host/...): URLs with credentials are refused since issue
// 24, but one stored before is never shown, to read-only keys least of all.
func RedactURL(raw string) string {
	if !strings.Contains(raw, "@") {
		return raw
	}
	u, err := url.Parse(raw)
	if err != nil || u.User == nil {
		return raw
	}
	u.User = url.User("xxxxx")
	return u.String()
}

// Delivery states.
const (
	DeliveryPending   = "pending"
	DeliverySucceeded = "succeeded"
	DeliveryFailed    = "failed"
)

// WebhookAttempt is one row of `traineed webhook deliveries`: one attempt to
// deliver an event to an endpoint, with the state of its delivery. A
// delivery not attempted yet appears once, with Attempt 0 and no result.
type WebhookAttempt struct {
	DeliveryID int64  `json:"deliveryId"`
	EventID    string `json:"eventId"` // the webhook-id header
	Type       string `json:"type"`
	// TraineeID is the trainee the event was about (null for an event
	// about none), and TraineeName their name as it is now, for people to
	// read (null when the trainee is gone or the event is about none).
	TraineeID     *int64     `json:"traineeId"`
	TraineeName   *string    `json:"traineeName"`
	Attempt       int        `json:"attempt"`
	StatusCode    *int       `json:"statusCode"`
	LatencyMs     *float64   `json:"latencyMs"`
	Error         *string    `json:"error"`
	Response      *string    `json:"response"` // the first MaxWebhookResponse bytes of the body
	Time          time.Time  `json:"time"`     // when the attempt started; for Attempt 0, when the delivery was scheduled
	State         string     `json:"state"`    // the delivery's: pending, succeeded or failed
	NextAttemptAt *time.Time `json:"nextAttemptAt"`
}

// ShownState is the delivery's state as people read it (tables, the TUI):
// a pending delivery that was attempted already (and failed, or it would
// have succeeded) waits for its retry, "retrying"; otherwise State. The
// JSON keeps State.
func (a *WebhookAttempt) ShownState() string {
	if a.State == DeliveryPending && a.Attempt > 0 {
		return "retrying"
	}
	return a.State
}

// MaxWebhookResponse is how much of a receiver's response body is kept.
const MaxWebhookResponse = 1024

// ParseWebhookEvents reads a comma-separated list of event types; "" is
// every trainee event (TraineeEventTypes), "all" every type. The result is
// in the order of WebhookEventTypes.
func ParseWebhookEvents(list string) ([]string, error) {
	return parseEventTypes(list, WebhookEventTypes, TraineeEventTypes)
}

// ParseFeedEvents is ParseWebhookEvents over FeedEventTypes: the types the
// event feed filters by ("" is every one).
func ParseFeedEvents(list string) ([]string, error) {
	return parseEventTypes(list, FeedEventTypes, FeedEventTypes)
}

// EventsLabel is how a list of an endpoint's types is shown: "all" for
// every type, "trainee.*" for the trainees' (the default), else the list.
func EventsLabel(evs []string) string {
	switch {
	case slices.Equal(evs, WebhookEventTypes):
		return "all"
	case slices.Equal(evs, TraineeEventTypes):
		return "trainee.*"
	}
	return strings.Join(evs, ",")
}

func parseEventTypes(list string, types, defaults []string) ([]string, error) {
	switch strings.TrimSpace(list) {
	case "":
		return slices.Clone(defaults), nil
	case "all":
		return slices.Clone(types), nil
	}
	seen := map[string]bool{}
	for _, p := range strings.Split(list, ",") {
		p = strings.TrimSpace(p)
		if !slices.Contains(types, p) {
			return nil, fmt.Errorf("unknown event type %q: want a comma-separated list of %s", p, strings.Join(types, ", "))
		}
		seen[p] = true
	}
	var out []string
	for _, t := range types {
		if seen[t] {
			out = append(out, t)
		}
	}
	return out, nil
}

// WebhookSecretPrefix starts every webhook secret.
const WebhookSecretPrefix = "whsec_"

// GenerateWebhookSecret returns a new secret: whsec_ and the standard base64
// of 32 bytes from the CSPRNG, as Standard Webhooks specifies.
func GenerateWebhookSecret() string {
	var b [32]byte
	_, _ = rand.Read(b[:]) // never fails (crypto/rand.Read)
	return WebhookSecretPrefix + base64.StdEncoding.EncodeToString(b[:])
}

// WebhookKey returns the HMAC key a secret encodes: the bytes of the base64
// after the whsec_ prefix (the prefix may be left out).
func WebhookKey(secret string) ([]byte, error) {
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, WebhookSecretPrefix))
	if err != nil || len(key) == 0 {
		return nil, errors.New("webhook secret: want whsec_ followed by standard base64")
	}
	return key, nil
}

// SignWebhook returns the webhook-signature header of a delivery: "v1," and
// the base64 of HMAC-SHA256(key, id + "." + timestamp + "." + body).
func SignWebhook(secret, id string, timestamp int64, body []byte) (string, error) {
	key, err := WebhookKey(secret)
	if err != nil {
		return "", err
	}
	return "v1," + base64.StdEncoding.EncodeToString(webhookMAC(key, id, strconv.FormatInt(timestamp, 10), body)), nil
}

// webhookMAC signs id + "." + timestamp + "." + body, the timestamp as the
// header carries it.
func webhookMAC(key []byte, id, timestamp string, body []byte) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(id + "." + timestamp + "."))
	m.Write(body)
	return m.Sum(nil)
}

// HeaderGetter reads a request's headers: an http.Header is one. (The
// contract package names no net/http type, so the store, which imports it,
// links no HTTP code.)
type HeaderGetter interface{ Get(key string) string }

// WebhookTolerance is how far a delivery's webhook-timestamp may be from the
// receiver's clock before VerifyWebhook refuses it (against replays).
const WebhookTolerance = 5 * time.Minute

// Errors of VerifyWebhook.
var (
	ErrWebhookHeaders   = errors.New("webhook: missing or malformed webhook-id, webhook-timestamp or webhook-signature")
	ErrWebhookTimestamp = errors.New("webhook: timestamp outside the tolerance")
	ErrWebhookSignature = errors.New("webhook: no signature matches")
)

// VerifyWebhook checks a delivery as a receiver should: the timestamp is
// within WebhookTolerance of now and one of the space-separated v1
// signatures matches the raw body (compared in constant time).
func VerifyWebhook(secret string, header HeaderGetter, body []byte, now time.Time) error {
	key, err := WebhookKey(secret)
	if err != nil {
		return err
	}
	id, ts, sigs := header.Get("webhook-id"), header.Get("webhook-timestamp"), header.Get("webhook-signature")
	if id == "" || ts == "" || sigs == "" {
		return ErrWebhookHeaders
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		return ErrWebhookHeaders
	}
	if d := now.Sub(time.Unix(sec, 0)); d > WebhookTolerance || d < -WebhookTolerance {
		return ErrWebhookTimestamp
	}
	want := webhookMAC(key, id, ts, body)
	for _, s := range strings.Fields(sigs) {
		version, sig, ok := strings.Cut(s, ",")
		if !ok || version != "v1" {
			continue
		}
		got, err := base64.StdEncoding.DecodeString(sig)
		if err == nil && hmac.Equal(got, want) {
			return nil
		}
	}
	return ErrWebhookSignature
}

// WebhookEventIDPrefix starts every event id, the value of webhook-id.
const WebhookEventIDPrefix = "evt_"

// NewWebhookEventID returns a new event id: evt_ and 24 random letters and
// digits. Random rather than a sequence number, so that a database rebuilt
// from scratch never reuses an id a receiver has already seen.
func NewWebhookEventID() string { return WebhookEventIDPrefix + RandomString(24, keyAlphabet) }
