package server_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/client"
	"github.com/traineed/traineed/store/storetest"
)

// A webhook's deliveries name the trainee each event was about: its id
// and its name as it is now (a rename shows on the older deliveries too),
// on both databases; another company's trainee of the same name is never
// joined.
func TestDeliveriesNameTheTrainee(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		rc := storetest.NewReceiver(t, nil)
		var created api.WebhookEnvelope
		e.do("POST", api.PathWebhooks, e.keyA, map[string]any{"url": rc.URL, "events": []string{"trainee.created", "trainee.updated"}}).expect(t, 200).JSON(t, &created)
		e.create(e.keyB, newTraineeBody("Bea Other"))
		ada := e.create(e.keyA, newTraineeBody("Ada Park"))
		e.do("PUT", "/public-api/trainees/"+strconv.FormatInt(ada.ID, 10), e.keyA, map[string]any{"name": "Ada Lovelace"}).expect(t, 200)

		r := e.do("GET", webhookPath(created.Webhook.ID, "/deliveries"), e.keyA, nil).expect(t, 200)
		var page api.WebhookDeliveries
		r.JSON(t, &page)
		if len(page.Deliveries) != 2 {
			t.Fatalf("want 2 deliveries, got %s", r.Body)
		}
		for _, d := range page.Deliveries {
			if d.TraineeID == nil || *d.TraineeID != ada.ID || d.TraineeName == nil || *d.TraineeName != "Ada Lovelace" {
				t.Errorf("delivery of %s: trainee %v %v, want %d Ada Lovelace", d.Type, d.TraineeID, d.TraineeName, ada.ID)
			}
		}
		if !strings.Contains(string(r.Body), `"traineeName":"Ada Lovelace"`) {
			t.Errorf("the body lacks traineeName: %s", r.Body)
		}
		// The client's iterator reads the same fields.
		c := client.New(e.srv.URL, e.keyA)
		ds, err := client.Collect(c.ListWebhookDeliveries(t.Context(), created.Webhook.ID, client.ListParams{}))
		must(t, err)
		if len(ds) != 2 || ds[0].TraineeName == nil || *ds[0].TraineeName != "Ada Lovelace" {
			t.Errorf("client deliveries: %+v", ds)
		}
	})
}
