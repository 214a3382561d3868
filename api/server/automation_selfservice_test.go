package server_test

import (
	"context"
	"testing"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/store/storetest"
)

// A WEBHOOK automation's endpoint belongs to its automation, not to the
// company's webhooks: the webhook API neither lists nor reaches it, and
// its automation.fired events stay out of the event feed, which still
// carries the change that fired it.
func TestAutomationEndpointIsNotAWebhook(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		a := e.createAutomation(e.keyA, `{"name": "to CRM", "trigger": {"type": "TRAINEE_CREATED"},
			"actionType": "WEBHOOK", "action": {"url": "http://127.0.0.1:9/crm"}}`)
		var hookID int64
		must(t, storetest.DB(t, e.store).NewSelect().Table("webhooks").Column("id").
			Where("automation_id = ?", a.ID).Scan(context.Background(), &hookID))
		if hookID != -a.ID {
			t.Fatalf("the automation's endpoint is %d, want %d: it must take no public webhook id", hookID, -a.ID)
		}

		var list api.WebhookList
		e.do("GET", "/public-api/webhooks", e.keyA, nil).expect(t, 200).JSON(t, &list)
		if len(list.Webhooks) != 0 {
			t.Fatalf("the automation's endpoint is listed: %s", mustJSON(list))
		}
		for _, p := range []struct{ method, suffix string }{
			{"GET", ""}, {"PUT", ""}, {"DELETE", ""}, {"GET", "/deliveries"}, {"POST", "/test"}, {"POST", "/rotate-secret"},
		} {
			var body any
			if p.method == "PUT" {
				body = map[string]any{"enabled": false}
			}
			e.do(p.method, webhookPath(-hookID, p.suffix), e.keyA, body).expectMissing(t, "webhook")
			e.do(p.method, webhookPath(hookID, p.suffix), e.keyA, body).expectError(t, api.CodeInvalidParameter, "id")
		}

		tr := e.create(e.keyA, newTraineeBody("Fires The Automation"))
		if runs := e.runs(e.keyA, a.ID); len(runs) != 1 {
			t.Fatalf("runs %s", mustJSON(runs))
		}
		var feed api.EventPage
		e.do("GET", "/public-api/events", e.keyA, nil).expect(t, 200).JSON(t, &feed)
		if len(feed.Events) != 1 || feed.Events[0].Type != api.EventTraineeCreated {
			t.Fatalf("feed %s", mustJSON(feed))
		}
		var fired int
		must(t, storetest.DB(t, e.store).NewSelect().Table("webhook_events").ColumnExpr("count(*)").
			Where("type = ? AND trainee_id = ?", api.EventAutomationFired, tr.ID).Scan(context.Background(), &fired))
		if fired != 1 {
			t.Fatalf("%d automation.fired events stored, want 1", fired)
		}
	})
}
