package server

import (
	"encoding/json"
	"net/http"
	"strings"
	"time"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/outbound"
)

// Company self-service: the calling key, webhooks and the event feed.

// WebhookTestTimeout bounds the one attempt of POST /webhooks/{id}/test.
const WebhookTestTimeout = 10 * time.Second

// DefaultFeedPoll is how often an instance looks at the database for new
// events of a company that has waiting feed requests: events committed by
// other instances reach them within it. It is one small indexed query per
// company with waiters, however many requests wait.
const DefaultFeedPoll = 250 * time.Millisecond

// WithOutbound sets the client of every request to a company's URL (the
// webhook test) and the policy registrations are checked against; the
// default refuses internal addresses (outbound.Config's zero value).
func WithOutbound(c *outbound.Client) Option { return func(x *Handler) { x.outbound = c } }

// WithCaps sets how many webhook endpoints and automations a company may
// have (api.DefaultMaxWebhooks and api.DefaultMaxAutomations by default;
// 0 lifts a cap).
func WithCaps(webhooks, automations int) Option {
	return func(x *Handler) { x.maxWebhooks, x.maxAutomations = webhooks, automations }
}

// checkDestination refuses, at registration, a URL the outbound policy
// refuses (errorCode 1018 on field).
func (h *Handler) checkDestination(field, url string) error {
	if err := h.outbound.CheckURL(url); err != nil {
		return api.Invalid(api.CodeDestinationNotAllowed, field, "%s: %s", field, err.Error())
	}
	return nil
}

// WithFeedPoll sets how often waiting feed requests' companies are polled.
func WithFeedPoll(d time.Duration) Option { return func(x *Handler) { x.feedPoll = d } }

// NotifyEvent wakes the feed requests of a company waiting for events:
// call it when a change that recorded an event commits (store.OnEvent:
// this process's commits, and on PostgreSQL the other instances' through
// the store's Listener). Company 0 wakes every company's requests.
func (h *Handler) NotifyEvent(companyID int64) { h.feed.notify(companyID) }

func (h *Handler) currentKey(w http.ResponseWriter, r *http.Request) error {
	p := principal(r.Context())
	k, err := h.store.CurrentKey(r.Context(), p.CompanyID, p.KeyID)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, api.CurrentKeyEnvelope{Timestamp: h.now().Unix(), Key: k})
	return nil
}

func (h *Handler) writeWebhook(w http.ResponseWriter, wh *api.Webhook, secret string, prevUntil *time.Time) error {
	writeJSON(w, http.StatusOK, api.WebhookEnvelope{Timestamp: h.now().Unix(), Webhook: wh, Secret: secret, PreviousSecretExpiresAt: prevUntil})
	return nil
}

func (h *Handler) listWebhooks(w http.ResponseWriter, r *http.Request) error {
	p := principal(r.Context())
	fp := api.ListFingerprint("webhooks", p.CompanyID)
	q, err := api.ParseListQuery(r.URL.Query(), api.WebhooksList, fp)
	if err != nil {
		return err
	}
	list, err := h.store.WebhookPage(r.Context(), p.CompanyID, q)
	if err != nil {
		return err
	}
	next := nextCursor(w, r, fp, q, list, idKey(func(wh *api.Webhook) int64 { return wh.ID }))
	ws := list.Rows
	if ws == nil {
		ws = []*api.Webhook{}
	}
	writeJSON(w, http.StatusOK, api.WebhookList{Timestamp: h.now().Unix(), Webhooks: ws, Page: next})
	return nil
}

func (h *Handler) createWebhook(w http.ResponseWriter, r *http.Request) error {
	p := principal(r.Context())
	body, err := readBody(w, r)
	if err != nil {
		return err
	}
	url, events, enabled, err := api.ParseWebhookCreate(body)
	if err != nil {
		return err
	}
	if err := h.checkDestination("url", url); err != nil {
		return err
	}
	secret := api.GenerateWebhookSecret()
	wh, err := h.store.CreateWebhookEnabled(r.Context(), p.CompanyID, api.NewWebhook{URL: url, Events: events, Secret: secret, Enabled: enabled}, h.maxWebhooks)
	if err != nil {
		return err
	}
	return h.writeWebhook(w, wh, secret, nil)
}

func (h *Handler) getWebhook(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r)
	if err != nil {
		return err
	}
	wh, err := h.store.Webhook(r.Context(), principal(r.Context()).CompanyID, id)
	if err != nil {
		return err
	}
	return h.writeWebhook(w, wh, "", nil)
}

func (h *Handler) updateWebhook(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r)
	if err != nil {
		return err
	}
	body, err := readBody(w, r)
	if err != nil {
		return err
	}
	patch, err := api.ParseWebhookUpdate(body)
	if err != nil {
		return err
	}
	switch {
	case patch.URL != nil:
		if err := h.checkDestination("url", *patch.URL); err != nil {
			return err
		}
	case patch.Enabled != nil && *patch.Enabled:
		// Enabling checks the stored URL again: one the server disabled
		// for its destination stays refused until it is changed.
		target, err := h.store.WebhookTarget(r.Context(), principal(r.Context()).CompanyID, id)
		if err != nil {
			return err
		}
		if err := h.checkDestination("url", target.URL); err != nil {
			return err
		}
	}
	wh, err := h.store.UpdateWebhook(r.Context(), principal(r.Context()).CompanyID, id, *patch)
	if err != nil {
		return err
	}
	return h.writeWebhook(w, wh, "", nil)
}

func (h *Handler) deleteWebhook(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r)
	if err != nil {
		return err
	}
	p := principal(r.Context())
	wh, err := h.store.Webhook(r.Context(), p.CompanyID, id)
	if err != nil {
		return err
	}
	if err := h.store.DeleteCompanyWebhook(r.Context(), p.CompanyID, id); err != nil {
		return err
	}
	return h.writeWebhook(w, wh, "", nil)
}

func (h *Handler) webhookDeliveries(w http.ResponseWriter, r *http.Request) error {
	p := principal(r.Context())
	id, err := pathID(r)
	if err != nil {
		return err
	}
	fp := api.ListFingerprint("deliveries", p.CompanyID, r.PathValue("id"))
	q, err := api.ParseListQuery(r.URL.Query(), api.DeliveriesList, fp)
	if err != nil {
		return err
	}
	as, err := h.store.CompanyWebhookAttempts(r.Context(), p.CompanyID, id, q)
	if err != nil {
		return err
	}
	next := nextCursor(w, r, fp, q, as, func(a *api.WebhookAttempt) []int64 { return []int64{a.DeliveryID, int64(a.Attempt)} })
	writeJSON(w, http.StatusOK, api.WebhookDeliveries{Timestamp: h.now().Unix(), Deliveries: as.Rows, Page: next, Size: q.Limit, HasMore: next.HasMore})
	return nil
}

func (h *Handler) rotateWebhookSecret(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r)
	if err != nil {
		return err
	}
	secret := api.GenerateWebhookSecret()
	wh, until, err := h.store.RotateWebhookSecret(r.Context(), principal(r.Context()).CompanyID, id, secret, api.WebhookRotation)
	if err != nil {
		return err
	}
	return h.writeWebhook(w, wh, secret, &until)
}

// testWebhook sends one signed webhook.test event to the endpoint now,
// disabled or not, and answers with what the attempt gave. The attempt is
// not recorded and never retried.
func (h *Handler) testWebhook(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r)
	if err != nil {
		return err
	}
	target, err := h.store.WebhookTarget(r.Context(), principal(r.Context()).CompanyID, id)
	if err != nil {
		return err
	}
	now := time.Now().UTC()
	body, err := json.Marshal(api.WebhookTestEvent{Type: api.EventWebhookTest, Timestamp: now.Unix(), Data: api.WebhookTestEventData{WebhookID: id}})
	if err != nil {
		return err
	}
	evID := api.NewWebhookEventID()
	release, err := h.pings.acquire(r.Context(), principal(r.Context()).CompanyID)
	if err != nil {
		return err
	}
	defer release()
	res := h.outbound.Send(r.Context(), WebhookTestTimeout, target.URL, target.Secrets, evID, now, body)
	out := api.WebhookTestResult{Timestamp: h.now().Unix(), EventID: evID, OK: res.OK(), LatencyMs: float64(res.Latency.Microseconds()) / 1000}
	if res.StatusCode != 0 {
		out.StatusCode = &res.StatusCode
		out.Response = &res.Body
	}
	if res.Err != "" {
		out.Error = &res.Err
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

func (h *Handler) redeliverEvent(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("id")
	if !strings.HasPrefix(id, api.WebhookEventIDPrefix) || len(id) > 64 {
		return api.Invalid(api.CodeInvalidParameter, "id", "id must be an event id (evt_...)")
	}
	n, err := h.store.RedeliverCompanyEvent(r.Context(), principal(r.Context()).CompanyID, id)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, api.RedeliverResult{Timestamp: h.now().Unix(), EventID: id, Deliveries: n})
	return nil
}

// listEvents serves the feed. With wait=N and no event to return yet, it
// holds the request up to N seconds: a commit of this process wakes it at
// once, and the company's poller (feedWaiters) finds other instances'.
// EndWaits ends the wait early.
func (h *Handler) listEvents(w http.ResponseWriter, r *http.Request) error {
	q, err := api.ParseEventQuery(r.URL.Query(), principal(r.Context()).CompanyID)
	if err != nil {
		return err
	}
	ctx := r.Context()
	p := principal(ctx)
	q.TrainerID, _ = narrowTrainer(p, nil) // a limited key: its trainer's trainees' events
	var deadline <-chan time.Time
	if q.Wait > 0 {
		t := time.NewTimer(q.Wait)
		defer t.Stop()
		deadline = t.C
	}
	if deadline != nil {
		leave, err := h.feed.join(ctx, p.CompanyID)
		if err != nil {
			return err
		}
		defer leave()
	}
	for {
		var woken <-chan struct{}
		if deadline != nil {
			woken = h.feed.wait(p.CompanyID) // before the read, so no commit falls between
		}
		ask := q
		ask.Limit++ // one more says whether more follow
		evs, err := h.store.Events(ctx, p.CompanyID, ask)
		if err != nil {
			return err
		}
		if len(evs) > 0 || deadline == nil {
			return h.writeEvents(w, r, q, evs)
		}
		select {
		case <-woken:
		case <-deadline:
			deadline = nil // one last read
		case <-h.waitsEnded: // shutting down (EndWaits)
			deadline = nil
		case <-ctx.Done():
			return ctx.Err()
		}
		// The key may have been revoked, disabled or have expired while
		// the request waited: it is checked again before every read after
		// the first, as a new request would be.
		if _, err := h.store.Authenticate(ctx, api.HashKey(r.Header.Get(api.HeaderAPIKey))); err != nil {
			return err
		}
	}
}

func (h *Handler) writeEvents(w http.ResponseWriter, r *http.Request, q api.EventQuery, evs []*api.Event) error {
	more := len(evs) > q.Limit
	if more {
		evs = evs[:q.Limit]
	}
	if evs == nil {
		evs = []*api.Event{}
	}
	// next is the last event's id, or the request's own after (an event
	// id or a cursor: after takes both) when no event came.
	out := api.EventPage{Timestamp: h.now().Unix(), Events: evs, Next: r.URL.Query().Get("after"), HasMore: more}
	if len(evs) > 0 {
		out.Next = evs[len(evs)-1].ID
	}
	out.Page = nextCursor(w, r, q.List, api.ListQuery{Limit: q.Limit, Offset: q.Offset}, api.ListPage[*api.Event]{Rows: evs, More: more},
		idKey(func(e *api.Event) int64 { return e.Seq }))
	writeJSON(w, http.StatusOK, out)
	return nil
}
