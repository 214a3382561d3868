package jobs

import (
	"context"
	"time"

	"github.com/traineed/traineed/api/outbound"
	"github.com/traineed/traineed/store"
)

// webhookSender makes the HTTP attempts (outbound.Client.Send): signed POSTs,
// bounded by a timeout, the response's body read up to MaxWebhookResponse
// bytes. A delivery is signed with its endpoint's secret and, for a day
// after a rotation, with the previous one too.
type webhookSender struct {
	client  *outbound.Client
	timeout time.Duration
	now     func() time.Time
}

// send makes one signed attempt of c.
func (w *webhookSender) send(ctx context.Context, c *store.ClaimedDelivery) store.DeliveryAttempt {
	started := w.now()
	res := w.client.Send(ctx, w.timeout, c.URL, c.Secrets(started), c.EventID, started, []byte(c.Payload))
	return store.DeliveryAttempt(res)
}
