package server_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/store/storetest"
)

// automation decodes an automation envelope.
func (r *resp) automation(t testing.TB) *api.Automation {
	t.Helper()
	var env api.AutomationEnvelope
	r.JSON(t, &env)
	if env.Automation == nil || env.Timestamp != fixedNow.Unix() {
		t.Fatalf("not an automation envelope at the fixed time: %s", r.Body)
	}
	return env.Automation
}

func (e *env) createAutomation(key string, body string) *api.Automation {
	e.t.Helper()
	return e.do("POST", "/public-api/automations", key, body).expect(e.t, 200).automation(e.t)
}

// The automations resource: create, read, list, update as a merge, delete
// with its runs readable afterwards, on both databases.
func TestAutomationCRUD(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		a := e.createAutomation(e.keyA, `{"name": " CRM week before ", "trigger": {"type": "EXPIRATION_APPROACHING", "days": 7},
			"actionType": "WEBHOOK", "action": {"url": "https://crm.example.com/hook"}}`)
		if a.Name != "CRM week before" || !a.Enabled || a.Trigger.Type != api.TriggerExpirationApproaching || a.Trigger.Days == nil || *a.Trigger.Days != 7 ||
			a.ActionType != api.ActionWebhook || a.Action.URL == nil || *a.Action.URL != "https://crm.example.com/hook" ||
			a.Conditions.TrainerID != nil || a.Conditions.Status != nil || a.RunCount != 0 || a.LastRunAt != nil ||
			!strings.HasPrefix(a.Secret, "whsec_") || !a.CreatedAt.Equal(a.UpdatedAt) {
			t.Fatalf("created %+v", a)
		}
		if _, err := api.WebhookKey(a.Secret); err != nil {
			t.Fatal(err)
		}
		path := fmt.Sprintf("/public-api/automations/%d", a.ID)
		got := e.do("GET", path, e.keyA, nil).expect(t, 200)
		if strings.Contains(string(got.Body), "secret") || strings.Contains(string(got.Body), a.Secret) {
			t.Fatalf("the secret is shown again: %s", got.Body)
		}
		for _, member := range []string{`"lastRunAt":null`, `"runCount":0`, `"conditions":{"trainerId":null,"status":null}`} {
			if !strings.Contains(string(got.Body), member) {
				t.Fatalf("%s missing from %s", member, got.Body)
			}
		}
		// The hidden endpoint is not one of the company's webhooks.
		if ws, err := e.store.Webhooks(t.Context(), e.companyA); err != nil || len(ws) != 0 {
			t.Fatalf("webhooks %v %v", ws, err)
		}

		// PUT merges: days only, then conditions, then a new action type.
		u := e.do("PUT", path, e.keyA, `{"trigger": {"days": 3}}`).expect(t, 200).automation(t)
		if u.Trigger.Type != api.TriggerExpirationApproaching || *u.Trigger.Days != 3 || u.Name != "CRM week before" || u.Secret != "" {
			t.Fatalf("updated %+v", u)
		}
		u = e.do("PUT", path, e.keyA, fmt.Sprintf(`{"conditions": {"trainerId": %d, "status": "active"}, "enabled": false}`, e.trainerA[1])).expect(t, 200).automation(t)
		if u.Enabled || u.Conditions.TrainerID == nil || *u.Conditions.TrainerID != e.trainerA[1] || *u.Conditions.Status != "active" {
			t.Fatalf("updated %+v", u)
		}
		e.do("PUT", path, e.keyA, fmt.Sprintf(`{"conditions": {"trainerId": %d}}`, e.trainerB)).expectError(t, api.CodeUnknownTrainer, "conditions.trainerId")
		u = e.do("PUT", path, e.keyA, `{"actionType": "DISABLE_TRAINEE"}`).expect(t, 200).automation(t)
		if u.ActionType != api.ActionDisableTrainee || u.Action.URL != nil || u.Secret != "" {
			t.Fatalf("updated %+v", u)
		}
		if n := storetest.Count(t, e.store, "webhooks", "automation_id = ?", a.ID); n != 0 {
			t.Fatalf("%d endpoints left for a DISABLE_TRAINEE automation", n)
		}
		u = e.do("PUT", path, e.keyA, `{"actionType": "WEBHOOK", "action": {"url": "http://127.0.0.1:9/x"}}`).expect(t, 200).automation(t)
		if !strings.HasPrefix(u.Secret, "whsec_") || u.Secret == a.Secret {
			t.Fatalf("a new WEBHOOK gets a new secret, shown once: %+v", u)
		}
		e.do("PUT", path, e.keyA, `{"actionType": "SMS"}`).expectError(t, api.CodeReserved, "actionType")

		// List, paged like search.
		e.createAutomation(e.keyA, `{"name": "second", "trigger": {"type": "TRAINEE_CREATED"}, "actionType": "DISABLE_TRAINEE"}`)
		e.createAutomation(e.keyB, `{"name": "B's", "trigger": {"type": "TRAINEE_CREATED"}, "actionType": "DISABLE_TRAINEE"}`)
		var page api.AutomationPage
		e.do("GET", "/public-api/automations?size=1&page=1", e.keyA, nil).expect(t, 200).JSON(t, &page)
		if page.Page.TotalElements != 2 || page.Page.TotalPages != 2 || len(page.Content) != 1 || page.Content[0].Name != "second" {
			t.Fatalf("page %s", mustJSON(page))
		}
		e.do("GET", "/public-api/automations?size=101", e.keyA, nil).expectError(t, api.CodeInvalidParameter, "size")

		// Another company's automation is unreachable.
		for _, c := range []struct{ method, path, body string }{
			{"GET", path, ""}, {"PUT", path, `{"name": "x"}`}, {"DELETE", path, ""},
			{"GET", path + "/runs", ""}, {"POST", path + "/test", ""},
		} {
			var body any
			if c.body != "" {
				body = c.body
			}
			e.do(c.method, c.path, e.keyB, body).expectMissing(t, "automation")
		}

		// Delete: gone, its runs readable. (A new trigger type that takes no
		// days drops the stored ones.)
		if u := e.do("PUT", path, e.keyA, `{"enabled": true, "trigger": {"type": "TRAINEE_CREATED"}, "conditions": null}`).expect(t, 200).automation(t); u.Trigger.Days != nil {
			t.Fatalf("days kept for TRAINEE_CREATED: %+v", u.Trigger)
		}
		tr := e.create(e.keyA, newTraineeBody("Run Target"))
		d := e.do("DELETE", path, e.keyA, nil).expect(t, 200).automation(t)
		if d.RunCount != 1 || d.LastRunAt == nil {
			t.Fatalf("deleted %+v", d)
		}
		e.do("GET", path, e.keyA, nil).expectMissing(t, "automation")
		var runs api.AutomationRunPage
		e.do("GET", path+"/runs", e.keyA, nil).expect(t, 200).JSON(t, &runs)
		if len(runs.Content) != 1 || runs.Content[0].TraineeID != tr.ID || runs.Content[0].Outcome != api.OutcomeDropped ||
			!strings.HasPrefix(runs.Content[0].Occurrence, "event:evt_") {
			t.Fatalf("runs of the deleted automation: %s", mustJSON(runs))
		}
		if n := storetest.Count(t, e.store, "webhook_deliveries", "1 = 1"); n != 0 {
			t.Fatalf("%d deliveries left after the automation's deletion", n)
		}
		e.do("GET", path+"/runs", e.keyB, nil).expectMissing(t, "automation")
		e.do("GET", "/public-api/automations/999999/runs", e.keyA, nil).expectMissing(t, "automation")
	})
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// Validation: every problem with its code and field.
func TestAutomationValidation(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		for _, action := range []string{"EMAIL", "SMS", "PUSH"} {
			e.do("POST", "/public-api/automations", e.keyA, `{"name": "n", "trigger": {"type": "INACTIVE", "days": 14}, "actionType": "`+action+`"}`).
				expectError(t, api.CodeReserved, "actionType")
		}
		ok := `"name": "n", "trigger": {"type": "INACTIVE", "days": 14}`
		for _, c := range []struct {
			body  string
			code  int
			field string
		}{
			{`{` + ok + `, "actionType": "FAX"}`, api.CodeInvalidEnum, "actionType"},
			{`{` + ok + `}`, api.CodeRequired, "actionType"},
			{`{"trigger": {"type": "INACTIVE", "days": 14}, "actionType": "DISABLE_TRAINEE"}`, api.CodeRequired, "name"},
			{`{"name": "", "trigger": {"type": "INACTIVE", "days": 14}, "actionType": "DISABLE_TRAINEE"}`, api.CodeTextLength, "name"},
			{`{"name": "n", "actionType": "DISABLE_TRAINEE"}`, api.CodeRequired, "trigger.type"},
			{`{"name": "n", "trigger": {"type": "SOMETIMES"}, "actionType": "DISABLE_TRAINEE"}`, api.CodeInvalidEnum, "trigger.type"},
			{`{"name": "n", "trigger": {"type": "INACTIVE"}, "actionType": "DISABLE_TRAINEE"}`, api.CodeRequired, "trigger.days"},
			{`{"name": "n", "trigger": {"type": "INACTIVE", "days": 366}, "actionType": "DISABLE_TRAINEE"}`, api.CodeInvalidRange, "trigger.days"},
			{`{"name": "n", "trigger": {"type": "EXPIRATION_APPROACHING", "days": 91}, "actionType": "DISABLE_TRAINEE"}`, api.CodeInvalidRange, "trigger.days"},
			{`{"name": "n", "trigger": {"type": "EXPIRATION_APPROACHING", "days": 0}, "actionType": "DISABLE_TRAINEE"}`, api.CodeInvalidRange, "trigger.days"},
			{`{"name": "n", "trigger": {"type": "TRAINEE_EXPIRED", "days": 3}, "actionType": "DISABLE_TRAINEE"}`, api.CodeInvalidParameter, "trigger.days"},
			{`{"name": "n", "trigger": {"type": "INACTIVE", "days": "x"}, "actionType": "DISABLE_TRAINEE"}`, api.CodeBadJSON, "trigger.days"},
			{`{` + ok + `, "actionType": "WEBHOOK"}`, api.CodeRequired, "action.url"},
			{`{` + ok + `, "actionType": "WEBHOOK", "action": {"url": "ftp://x"}}`, api.CodeInvalidParameter, "action.url"},
			{`{` + ok + `, "actionType": "DISABLE_TRAINEE", "action": {"url": "https://x.example"}}`, api.CodeInvalidParameter, "action.url"},
			{`{` + ok + `, "actionType": "DISABLE_TRAINEE", "conditions": {"status": "deleted"}}`, api.CodeInvalidEnum, "conditions.status"},
			{`{` + ok + `, "actionType": "DISABLE_TRAINEE", "conditions": {"trainerId": ` + fmt.Sprint(e.trainerB) + `}}`, api.CodeUnknownTrainer, "conditions.trainerId"},
			{`[]`, api.CodeBadJSON, ""},
		} {
			e.do("POST", "/public-api/automations", e.keyA, c.body).expectError(t, c.code, c.field)
		}
		if n := storetest.Count(t, e.store, "automations", "1 = 1"); n != 0 {
			t.Fatalf("%d automations stored by rejected requests", n)
		}
	})
}

// The dry run lists whom an automation would fire for on the company's
// today, paged like search, and fires nothing.
func TestAutomationDryRun(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		// fixedNow is 21-11-2026 in company A (UTC).
		soon := newTraineeBody("Ends Soon")
		soon["expirationDate"] = "25-11-2026"
		later := newTraineeBody("Ends Later")
		later["expirationDate"] = "25-12-2026"
		s := e.create(e.keyA, soon)
		e.create(e.keyA, later)
		tom := newTraineeBody("Tom's Client")
		tom["expirationDate"] = "24-11-2026"
		tom["trainerId"] = e.trainerA[1]
		tc := e.create(e.keyA, tom)
		bSoon := newTraineeBody("B Ends Soon")
		bSoon["expirationDate"] = "25-11-2026"
		e.create(e.keyB, bSoon)

		a := e.createAutomation(e.keyA, `{"name": "week before", "trigger": {"type": "EXPIRATION_APPROACHING", "days": 7}, "actionType": "DISABLE_TRAINEE"}`)
		var page api.TraineePage
		e.do("POST", fmt.Sprintf("/public-api/automations/%d/test?size=1", a.ID), e.keyA, nil).expect(t, 200).JSON(t, &page)
		if page.Page.TotalElements != 2 || page.Page.TotalPages != 2 || len(page.Content) != 1 || page.Content[0].ID != s.ID {
			t.Fatalf("dry run %s", mustJSON(page))
		}
		e.do("POST", fmt.Sprintf("/public-api/automations/%d/test?page=1&size=1", a.ID), e.keyA, `{}`).expect(t, 200).JSON(t, &page)
		if len(page.Content) != 1 || page.Content[0].ID != tc.ID {
			t.Fatalf("dry run page 1 %s", mustJSON(page))
		}
		e.do("PUT", fmt.Sprintf("/public-api/automations/%d", a.ID), e.keyA, fmt.Sprintf(`{"conditions": {"trainerId": %d}}`, e.trainerA[1])).expect(t, 200)
		e.do("POST", fmt.Sprintf("/public-api/automations/%d/test", a.ID), e.keyA, nil).expect(t, 200).JSON(t, &page)
		if page.Page.TotalElements != 1 || page.Content[0].ID != tc.ID {
			t.Fatalf("dry run with a trainer condition %s", mustJSON(page))
		}
		if n := storetest.Count(t, e.store, "automation_runs", "1 = 1"); n != 0 {
			t.Fatalf("the dry run fired %d runs", n)
		}
		if tr := e.do("GET", fmt.Sprintf("/public-api/trainees/%d", tc.ID), e.keyA, nil).expect(t, 200).trainee(t); !tr.Enabled {
			t.Fatal("the dry run disabled a trainee")
		}
		e.do("POST", fmt.Sprintf("/public-api/automations/%d/test?size=0", a.ID), e.keyA, nil).expectError(t, api.CodeInvalidParameter, "size")
	})
}
