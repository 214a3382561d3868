package jobs

// What the dispatcher does with a finished attempt: its log line and
// metric, an endpoint that answered 410 Gone disabled, and the pruning of
// old deliveries.

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"time"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/store"
)

// recorded reports an attempt the last cycle recorded (or found no longer
// this dispatcher's): its outcome, its log line, and the disabling of an
// endpoint that answered 410 Gone.
func (d *Dispatcher) recorded(f *store.FinishedAttempt) {
	c, res, state := f.Delivery, f.Result, f.State
	if errors.Is(f.Err, store.ErrLeaseLost) {
		d.log.Warn("webhook dispatcher: delivery deleted or lease lost during the attempt; attempt not recorded",
			"delivery_id", c.DeliveryID, "webhook", c.WebhookID, "event_id", c.EventID)
		d.outcome(OutcomeLeaseLost)
		return
	}
	if res.StatusCode == http.StatusGone {
		d.disableGone(c)
	}
	switch {
	case res.OK():
		d.outcome(OutcomeDelivered)
	case state == api.DeliveryFailed:
		d.outcome(OutcomeFailed)
	default:
		d.outcome(OutcomeRetry)
	}
	if res.OK() && !d.log.Enabled(context.Background(), slog.LevelDebug) {
		return
	}
	attrs := []any{"delivery_id", c.DeliveryID, "webhook", c.WebhookID, "event_id", c.EventID,
		"attempt", c.Attempts + 1, "status", res.StatusCode, "latency_ms", res.Latency.Milliseconds(), "state", state}
	switch {
	case res.OK():
		d.log.Debug("webhook delivered", attrs...)
	case state == api.DeliveryFailed:
		d.log.Error("webhook delivery failed for good", append(attrs, "error", res.Err)...)
	default:
		d.log.Warn("webhook attempt failed; will retry", append(attrs, "error", res.Err)...)
	}
}

// GoneReason is the disabled reason of an endpoint that answered 410.
const GoneReason = "the endpoint answered 410 Gone"

// disableGone disables an endpoint that answered 410 Gone, as Standard
// Webhooks advises: the receiver says it will never take deliveries again.
// Its pending deliveries wait until it is enabled.
func (d *Dispatcher) disableGone(c *store.ClaimedDelivery) {
	ctx, cancel := context.WithTimeout(context.Background(), dbTimeout)
	defer cancel()
	dis, err := d.s.DisableEndpoint(ctx, c.WebhookID, c.URL, GoneReason)
	switch {
	case err != nil:
		d.log.Error("webhook dispatcher: disabling an endpoint that answered 410", "webhook", c.WebhookID, "error", err)
	case dis != nil:
		d.log.Warn("webhook endpoint disabled: it answered 410 Gone", "webhook", c.WebhookID, "company", c.CompanyID, "automation", dis.AutomationID)
	}
}

// The outcomes of an attempt, as DispatcherConfig.OnAttempt gets them.
const (
	OutcomeDelivered   = "delivered"    // the receiver answered 2xx
	OutcomeRetry       = "retry"        // failed; due again on the schedule
	OutcomeFailed      = "failed"       // failed after the schedule's last retry
	OutcomeReleased    = "released"     // interrupted by a shutdown; not counted as an attempt
	OutcomeLeaseLost   = "lease_lost"   // the delivery was deleted or another instance took it
	OutcomeNotRecorded = "not_recorded" // the database did not record it; sent again after the lease
)

func (d *Dispatcher) outcome(o string) {
	if d.cfg.OnAttempt != nil {
		d.cfg.OnAttempt(o)
	}
}

func (d *Dispatcher) prune() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	n, err := d.s.PruneWebhookEvents(ctx, d.cfg.Now().Add(-d.cfg.Retention))
	if err != nil {
		d.log.Error("webhook dispatcher: pruning old events", "error", err)
	} else if n > 0 {
		d.log.Info("webhook dispatcher: pruned old events", "events", n)
	}
}
