package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/traineed/traineed/api"
)

// NotFoundError is the 404 (errorCode api.CodeNotFound) of a webhook,
// event or automation id that is not the caller's company's (or, from an
// older server, the 500 marked webhook-not-found or event-not-found). It is
// never retried.
type NotFoundError struct {
	CallInfo
	// Resource is what the id names: "webhook", "event" or "automation".
	Resource string
	// Reason is the X-Error-Reason of an older server's 500, else "".
	Reason string
}

func (e *NotFoundError) Error() string {
	what := e.Resource
	if what == "" {
		what = strings.TrimSuffix(e.Reason, "-not-found")
	}
	id := e.URL
	if u, err := url.Parse(e.URL); err == nil {
		parts := strings.Split(strings.Trim(u.Path, "/"), "/")
		for i, p := range parts {
			if strings.TrimSuffix(p, "s") == what && i+1 < len(parts) {
				id = parts[i+1]
			}
		}
	}
	return fmt.Sprintf("%s %s not found", what, id)
}

// resourceOfPath is what the id after /public-api/ names in path:
// "webhook", "event", "automation", "key" or "trainer" ("" for anything
// else).
func resourceOfPath(path string) string {
	for _, p := range []string{api.PathWebhooks, api.PathEvents, api.PathAutomations, api.PathKeys, api.PathTrainers} {
		if strings.HasPrefix(path, p+"/") {
			return strings.TrimSuffix(strings.TrimPrefix(p, "/public-api/"), "s")
		}
	}
	return ""
}

// IsReadOnly reports whether err is the 403 of a read-only key (errorCode
// 1014).
func IsReadOnly(err error) bool {
	var re *RejectedError
	return errors.As(err, &re) && re.Status == http.StatusForbidden && re.ErrorCode == api.CodeReadOnlyKey
}

// CurrentKey describes the calling key (GET /public-api/keys/current).
func (c *Client) CurrentKey(ctx context.Context, opts ...RequestOption) (*api.CurrentKey, error) {
	var out api.CurrentKeyEnvelope
	if err := c.getJSON(ctx, api.PathCurrentKey, nil, 0, &out, opts); err != nil {
		return nil, err
	}
	return out.Key, nil
}

func webhookPath(id int64) string { return api.PathWebhooks + "/" + strconv.FormatInt(id, 10) }

// WebhookPage returns one page of the company's webhooks.
func (c *Client) WebhookPage(ctx context.Context, p ListParams, opts ...RequestOption) (*api.WebhookList, error) {
	var out api.WebhookList
	if err := c.getJSON(ctx, api.PathWebhooks, p.values(), 0, &out, opts); err != nil {
		return nil, err
	}
	return &out, nil
}

// ListWebhooks iterates over the company's webhooks.
func (c *Client) ListWebhooks(ctx context.Context, p ListParams, opts ...RequestOption) iter.Seq2[*api.Webhook, error] {
	return listSeq(ctx, c.WebhookPage, p, opts)
}

// Webhook returns one webhook.
func (c *Client) Webhook(ctx context.Context, id int64, opts ...RequestOption) (*api.Webhook, error) {
	env, err := c.webhook(ctx, http.MethodGet, webhookPath(id), nil, opts)
	if err != nil {
		return nil, err
	}
	return env.Webhook, nil
}

// WebhookInput is the body of a webhook create or update; nil fields are
// not sent.
type WebhookInput struct {
	URL     *string  `json:"url,omitempty"`
	Events  []string `json:"events,omitempty"`
	Enabled *bool    `json:"enabled,omitempty"`
}

// CreateWebhook adds a webhook; the envelope carries its secret, the only
// time it is shown.
func (c *Client) CreateWebhook(ctx context.Context, in WebhookInput, opts ...RequestOption) (*api.WebhookEnvelope, error) {
	return c.webhook(ctx, http.MethodPost, api.PathWebhooks, in, opts)
}

// UpdateWebhook changes a webhook.
func (c *Client) UpdateWebhook(ctx context.Context, id int64, in WebhookInput, opts ...RequestOption) (*api.Webhook, error) {
	env, err := c.webhook(ctx, http.MethodPut, webhookPath(id), in, opts)
	if err != nil {
		return nil, err
	}
	return env.Webhook, nil
}

// DeleteWebhook deletes a webhook and returns it as it was.
func (c *Client) DeleteWebhook(ctx context.Context, id int64, opts ...RequestOption) (*api.Webhook, error) {
	env, err := c.webhook(ctx, http.MethodDelete, webhookPath(id), nil, opts)
	if err != nil {
		return nil, err
	}
	return env.Webhook, nil
}

// RotateWebhookSecret gives a webhook a new secret (in the envelope, shown
// once); the old one signs beside it for 24 hours.
func (c *Client) RotateWebhookSecret(ctx context.Context, id int64, opts ...RequestOption) (*api.WebhookEnvelope, error) {
	return c.webhook(ctx, http.MethodPost, webhookPath(id)+"/rotate-secret", nil, opts)
}

// TestWebhook sends a webhook.test event now and returns the attempt.
func (c *Client) TestWebhook(ctx context.Context, id int64, opts ...RequestOption) (*api.WebhookTestResult, error) {
	b, err := c.Do(ctx, http.MethodPost, webhookPath(id)+"/test", nil, nil, 0, opts...)
	if err != nil {
		return nil, err
	}
	var out api.WebhookTestResult
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, fmt.Errorf("decode test response: %w", err)
	}
	return &out, nil
}

// WebhookDeliveries returns one page of a webhook's attempts, newest
// first.
func (c *Client) WebhookDeliveries(ctx context.Context, id int64, p ListParams, opts ...RequestOption) (*api.WebhookDeliveries, error) {
	var out api.WebhookDeliveries
	if err := c.getJSON(ctx, webhookPath(id)+"/deliveries", p.values(), 0, &out, opts); err != nil {
		return nil, err
	}
	return &out, nil
}

// ListWebhookDeliveries iterates over a webhook's attempts, newest first.
func (c *Client) ListWebhookDeliveries(ctx context.Context, id int64, p ListParams, opts ...RequestOption) iter.Seq2[*api.WebhookAttempt, error] {
	return listSeq(ctx, func(ctx context.Context, p ListParams, opts ...RequestOption) (*api.WebhookDeliveries, error) {
		return c.WebhookDeliveries(ctx, id, p, opts...)
	}, p, opts)
}

// Redeliver schedules an event again and returns how many deliveries it
// made.
func (c *Client) Redeliver(ctx context.Context, eventID string, opts ...RequestOption) (int, error) {
	b, err := c.Do(ctx, http.MethodPost, api.PathEvents+"/"+url.PathEscape(eventID)+"/redeliver", nil, nil, 0, opts...)
	if err != nil {
		return 0, err
	}
	var out api.RedeliverResult
	if err := json.Unmarshal(b, &out); err != nil {
		return 0, fmt.Errorf("decode redeliver response: %w", err)
	}
	return out.Deliveries, nil
}

// EventParams is the query of the event feed; zero values are not sent.
type EventParams struct {
	// After is an event id (evt_...: a page's Next) or a page's
	// Page.NextCursor: the events after it.
	After string
	Types []string
	Limit int  // 1 to 500 (default 100)
	Desc  bool // newest first (order=desc); the feed's order is oldest first
	Wait  int  // seconds of long-poll (Events only)
	// Max and Pages end ListEvents as ListParams' do.
	Max, Pages int
}

// Events reads the feed after p.After.
func (c *Client) Events(ctx context.Context, p EventParams, opts ...RequestOption) (*api.EventPage, error) {
	q := ListParams{After: p.After, Limit: p.Limit}.values()
	if len(p.Types) > 0 {
		q.Set("type", strings.Join(p.Types, ","))
	}
	if p.Desc {
		q.Set("order", api.OrderDesc)
	}
	if p.Wait > 0 {
		q.Set("wait", strconv.Itoa(p.Wait))
	}
	var out api.EventPage
	if err := c.getJSON(ctx, api.PathEvents, q, 0, &out, opts); err != nil {
		return nil, err
	}
	return &out, nil
}

// ListEvents iterates over the feed with p's types and order, from
// p.After (p.Wait is not sent: an iterator reads what is there).
func (c *Client) ListEvents(ctx context.Context, p EventParams, opts ...RequestOption) iter.Seq2[*api.Event, error] {
	lp := ListParams{After: p.After, Limit: p.Limit, Max: p.Max, Pages: p.Pages}
	p.Wait = 0
	return listSeq(ctx, func(ctx context.Context, lp ListParams, opts ...RequestOption) (*api.EventPage, error) {
		p.After, p.Limit = lp.After, lp.Limit
		return c.Events(ctx, p, opts...)
	}, lp, opts)
}

func (c *Client) webhook(ctx context.Context, method, path string, body any, opts []RequestOption) (*api.WebhookEnvelope, error) {
	b, err := c.Do(ctx, method, path, nil, body, 0, opts...)
	if err != nil {
		return nil, err
	}
	var out api.WebhookEnvelope
	if err := json.Unmarshal(b, &out); err != nil || out.Webhook == nil {
		return nil, fmt.Errorf("decode webhook response of %s %s: %v", method, path, err)
	}
	return &out, nil
}
