package server_test

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/store/storetest"
)

func (e *env) runs(key string, id int64) []*api.AutomationRun {
	e.t.Helper()
	var page api.AutomationRunPage
	e.do("GET", fmt.Sprintf("/public-api/automations/%d/runs?size=100", id), key, nil).expect(e.t, 200).JSON(e.t, &page)
	return page.Content
}

// Event triggers fire once per committed change from the outbox, never for
// a rejected one; conditions filter; a WEBHOOK automation reaches a real
// receiver with a valid signature; DISABLE_TRAINEE soft-deletes with a
// trainee.deleted event; another company's changes fire nothing.
func TestAutomationEventTriggers(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		rc := storetest.NewReceiver(t, nil)
		hook := e.createAutomation(e.keyA, fmt.Sprintf(`{"name": "new client to CRM", "trigger": {"type": "TRAINEE_CREATED"},
			"conditions": {"trainerId": %d}, "actionType": "WEBHOOK", "action": {"url": %q}}`, e.trainerA[1], rc.URL))
		updated := e.createAutomation(e.keyA, `{"name": "updated, expired only", "trigger": {"type": "TRAINEE_UPDATED"},
			"conditions": {"status": "expired"}, "actionType": "DISABLE_TRAINEE"}`)
		deleted := e.createAutomation(e.keyA, `{"name": "deleted", "trigger": {"type": "TRAINEE_DELETED"}, "actionType": "WEBHOOK", "action": {"url": "http://127.0.0.1:9/never"}}`)
		paused := e.createAutomation(e.keyA, `{"name": "paused", "enabled": false, "trigger": {"type": "TRAINEE_CREATED"}, "actionType": "DISABLE_TRAINEE"}`)
		all := storetest.NewReceiver(t, nil)
		_, secretAll := storetest.AddWebhook(t, e.store, e.companyA, all.URL)
		startDispatcher(t, e.store)

		// The trainer condition: only the second trainer's trainee fires it.
		body := newTraineeBody("Second Coach Client")
		body["trainerId"] = e.trainerA[1]
		mine := e.create(e.keyA, body)
		other := e.create(e.keyA, newTraineeBody("First Coach Client"))
		e.create(e.keyB, newTraineeBody("Company B Client"))
		// A rejected create (duplicate e-mail) fires nothing.
		e.do("POST", "/public-api/trainees", e.keyA, body).expectError(t, api.CodeEmailTaken, "email")

		got := rc.Wait(t, 1, 10*time.Second)
		if err := got[0].Verify(hook.Secret); err != nil {
			t.Fatalf("signature: %v", err)
		}
		var fired api.AutomationFired
		if err := json.Unmarshal(got[0].Body, &fired); err != nil {
			t.Fatal(err)
		}
		if fired.Type != api.EventAutomationFired || fired.Data.Automation.ID != hook.ID || fired.Data.Automation.Name != hook.Name ||
			fired.Data.Automation.Trigger.Type != api.TriggerTraineeCreated || fired.Data.Trainee == nil || fired.Data.Trainee.ID != mine.ID {
			t.Fatalf("fired %s", got[0].Body)
		}
		runs := e.runs(e.keyA, hook.ID)
		if len(runs) != 1 || runs[0].TraineeID != mine.ID || runs[0].Occurrence != "event:"+eventIDOf(t, all, mine.ID, api.EventTraineeCreated) {
			t.Fatalf("runs %s", mustJSON(runs))
		}
		waitDelivered(t, e.store)
		if runs := e.runs(e.keyA, hook.ID); runs[0].Outcome != api.OutcomeDelivered || runs[0].Error != nil {
			t.Fatalf("after delivery: %s", mustJSON(runs))
		}
		// `traineed webhook redeliver` of an automation's event sends it to
		// the automation's endpoint again, with the same webhook-id.
		ids, err := e.store.Redeliver(t.Context(), got[0].ID)
		if err != nil || len(ids) != 1 {
			t.Fatalf("redeliver: %v %v", ids, err)
		}
		if again := rc.Wait(t, 2, 10*time.Second); again[1].ID != got[0].ID || again[1].Verify(hook.Secret) != nil {
			t.Fatalf("redelivered %s", again[1].Body)
		}
		if len(e.runs(e.keyA, paused.ID)) != 0 {
			t.Fatal("a disabled automation fired")
		}

		// TRAINEE_UPDATED with status expired: an update that leaves the
		// trainee active does nothing; one that expires it fires, and the
		// DISABLE_TRAINEE soft-deletes it, which fires TRAINEE_DELETED.
		e.do("PUT", fmt.Sprintf("/public-api/trainees/%d", other.ID), e.keyA, `{"name": "Still Active"}`).expect(t, 200)
		if len(e.runs(e.keyA, updated.ID)) != 0 {
			t.Fatal("the status condition did not hold")
		}
		if tr := e.do("PUT", fmt.Sprintf("/public-api/trainees/%d", other.ID), e.keyA, `{"expirationDate": "01-01-2026"}`).expect(t, 200).trainee(t); tr.Enabled {
			t.Fatal("the response of the change that fired DISABLE_TRAINEE shows the trainee enabled")
		}
		runs = e.runs(e.keyA, updated.ID)
		if len(runs) != 1 || runs[0].TraineeID != other.ID || runs[0].Outcome != api.OutcomeDisabled {
			t.Fatalf("runs %s", mustJSON(runs))
		}
		if tr := e.do("GET", fmt.Sprintf("/public-api/trainees/%d", other.ID), e.keyA, nil).expect(t, 200).trainee(t); tr.Enabled {
			t.Fatal("DISABLE_TRAINEE did not soft-delete")
		}
		if runs := e.runs(e.keyA, deleted.ID); len(runs) != 1 || runs[0].TraineeID != other.ID {
			t.Fatalf("the automation's soft delete did not fire TRAINEE_DELETED: %s", mustJSON(runs))
		}
		eventIDOf(t, all, other.ID, api.EventTraineeDeleted)
		for _, r := range all.Received() {
			if err := r.Verify(secretAll); err != nil {
				t.Fatal(err)
			}
		}
		// Deleting again changes nothing and fires nothing more.
		e.do("DELETE", fmt.Sprintf("/public-api/trainees/%d", other.ID), e.keyA, nil).expect(t, 200)
		if runs := e.runs(e.keyA, deleted.ID); len(runs) != 1 {
			t.Fatalf("runs %s", mustJSON(runs))
		}
		// TRAINEE_RESTORED: once per restore, not for a PUT that restores
		// nothing.
		restored := e.createAutomation(e.keyA, `{"name": "restored", "trigger": {"type": "TRAINEE_RESTORED"}, "conditions": {"status": "expired"},
			"actionType": "WEBHOOK", "action": {"url": "http://127.0.0.1:9/never"}}`)
		e.do("PUT", fmt.Sprintf("/public-api/trainees/%d", other.ID), e.keyA, `{"enabled": true}`).expect(t, 200)
		e.do("PUT", fmt.Sprintf("/public-api/trainees/%d", other.ID), e.keyA, `{"enabled": true}`).expect(t, 200)
		if runs := e.runs(e.keyA, restored.ID); len(runs) != 1 || runs[0].TraineeID != other.ID {
			t.Fatalf("restored runs %s", mustJSON(runs))
		}
		if n := storetest.Count(t, e.store, "automation_runs", "1 = 1"); n != 4 {
			t.Fatalf("%d runs in all, want 4", n)
		}
	})
}

// eventIDOf waits for the company webhook's event of typ about trainee and
// returns its webhook-id.
func eventIDOf(t *testing.T, rc *storetest.Receiver, trainee int64, typ string) string {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		for _, r := range rc.Received() {
			if r.Event.Type == typ && r.Event.Data.Trainee != nil && r.Event.Data.Trainee.ID == trainee {
				return r.ID
			}
		}
		rc.Wait(t, rc.Count()+1, time.Until(deadline))
	}
	t.Fatalf("no %s event for trainee %d", typ, trainee)
	return ""
}
