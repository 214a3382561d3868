package server_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/store/storetest"
)

// A WEBHOOK automation's runs keep a final outcome when their deliveries
// go: delivered stays delivered, a delivery still pending is dropped with
// its last attempt's error, whether the automation is deleted or its
// action changes; pruned events leave their runs' outcomes alone. The
// automations' hidden endpoints take no public webhook id.
func TestAutomationRunsSettle(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		ok := storetest.NewReceiver(t, nil)
		failing := storetest.NewReceiver(t, func(w http.ResponseWriter, _ *http.Request, _ *storetest.Received, _ int) {
			w.WriteHeader(http.StatusServiceUnavailable)
		})
		good := e.createAutomation(e.keyA, fmt.Sprintf(`{"name": "good", "trigger": {"type": "TRAINEE_CREATED"}, "actionType": "WEBHOOK", "action": {"url": %q}}`, ok.URL))
		bad := e.createAutomation(e.keyA, fmt.Sprintf(`{"name": "bad", "trigger": {"type": "TRAINEE_CREATED"}, "actionType": "WEBHOOK", "action": {"url": %q}}`, failing.URL))
		changed := e.createAutomation(e.keyA, `{"name": "changed", "trigger": {"type": "TRAINEE_CREATED"}, "actionType": "WEBHOOK", "action": {"url": "https://crm.example/never"}}`)
		// Three automations came first; the company's first webhook is 1.
		var wh api.WebhookEnvelope
		e.do("POST", "/public-api/webhooks", e.keyA, map[string]any{"url": "https://crm.example/in"}).expect(t, 200).JSON(t, &wh)
		if wh.Webhook.ID != 1 {
			t.Fatalf("first webhook id %d", wh.Webhook.ID)
		}
		e.do("DELETE", fmt.Sprintf("/public-api/webhooks/%d", wh.Webhook.ID), e.keyA, nil).expect(t, 200)
		// Fired before any dispatcher runs: the changed automation's
		// delivery has no attempt when its action changes.
		e.create(e.keyA, newTraineeBody("Settled Client"))
		e.do("PUT", fmt.Sprintf("/public-api/automations/%d", changed.ID), e.keyA, map[string]any{"actionType": "DISABLE_TRAINEE"}).expect(t, 200)
		startDispatcher(t, e.store)
		ok.Wait(t, 1, 10*time.Second)
		failing.Wait(t, 1, 10*time.Second)
		waitFor(t, "both attempts recorded", func() bool {
			return storetest.Count(t, e.store, "webhook_deliveries", "status = ?", api.DeliverySucceeded) == 1 &&
				storetest.Count(t, e.store, "webhook_deliveries", "attempts = 1 AND status = ?", api.DeliveryPending) == 1
		})
		e.do("DELETE", fmt.Sprintf("/public-api/automations/%d", good.ID), e.keyA, nil).expect(t, 200)
		e.do("DELETE", fmt.Sprintf("/public-api/automations/%d", bad.ID), e.keyA, nil).expect(t, 200)
		for _, c := range []struct {
			id      int64
			outcome string
			err     string
		}{
			{good.ID, api.OutcomeDelivered, ""},
			{bad.ID, api.OutcomeDropped, "status 503"},
			{changed.ID, api.OutcomeDropped, "the automation's action changed before the delivery finished"},
		} {
			runs := e.runs(e.keyA, c.id)
			if len(runs) != 1 || runs[0].Outcome != c.outcome || (c.err == "") != (runs[0].Error == nil) || (runs[0].Error != nil && *runs[0].Error != c.err) {
				t.Errorf("automation %d: runs %s, want %s %q", c.id, mustJSON(runs), c.outcome, c.err)
			}
		}
		if n := storetest.Count(t, e.store, "webhook_deliveries", "webhook_id < 0"); n != 0 {
			t.Fatalf("%d deliveries of deleted endpoints left", n)
		}

		// A delivered run keeps its outcome when its event is pruned.
		kept := e.createAutomation(e.keyA, fmt.Sprintf(`{"name": "kept", "trigger": {"type": "TRAINEE_CREATED"}, "actionType": "WEBHOOK", "action": {"url": %q}}`, ok.URL))
		e.create(e.keyA, newTraineeBody("Pruned Client"))
		ok.Wait(t, 2, 10*time.Second)
		waitDelivered(t, e.store)
		if _, err := e.store.PruneWebhookEvents(context.Background(), time.Now().Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		if runs := e.runs(e.keyA, kept.ID); len(runs) != 1 || runs[0].Outcome != api.OutcomeDelivered {
			t.Fatalf("after pruning: %s", mustJSON(runs))
		}
	})
}
