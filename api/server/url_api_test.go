package server_test

import (
	"fmt"
	"testing"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/apitest"
	"github.com/traineed/traineed/api/outbound"
	"github.com/traineed/traineed/api/server"
	"github.com/traineed/traineed/store"
	"github.com/traineed/traineed/store/storetest"
)

// Every path of the API that takes a URL judges it alike, by one rule
// (api.ValidateURL) and one destination policy: creating and changing a
// webhook, creating and changing a WEBHOOK automation. A 70,000-character
// URL, a leading space, a 300-character label and the IPv4-translated
// form of loopback get the same errorCode on each (apitest.URLCases), and
// nothing refused is stored.
func TestOneURLRuleOverTheAPI(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		e := newEnv(t, s, server.WithOutbound(outbound.New(outbound.Config{})), server.WithCaps(0, 0))
		var hook api.WebhookEnvelope
		e.do("POST", "/public-api/webhooks", e.keyA, map[string]any{"url": "https://crm.example/first"}).expect(t, 200).JSON(t, &hook)
		var auto api.AutomationEnvelope
		e.do("POST", "/public-api/automations", e.keyA, automationTo("first", "https://crm.example/first")).expect(t, 200).JSON(t, &auto)
		hookPath := fmt.Sprintf("/public-api/webhooks/%d", hook.Webhook.ID)
		autoPath := fmt.Sprintf("/public-api/automations/%d", auto.Automation.ID)

		webhooks, automations := 1, 1
		for _, c := range apitest.URLCases() {
			t.Run(c.Name, func(t *testing.T) {
				calls := []struct {
					method, path, field string
					body                map[string]any
				}{
					{"POST", "/public-api/webhooks", "url", map[string]any{"url": c.URL}},
					{"PUT", hookPath, "url", map[string]any{"url": c.URL}},
					{"POST", "/public-api/automations", "action.url", automationTo(c.Name, c.URL)},
					{"PUT", autoPath, "action.url", map[string]any{"action": map[string]any{"url": c.URL}}},
				}
				for _, call := range calls {
					r := e.do(call.method, call.path, e.keyA, call.body)
					if c.Code == 0 {
						r.expect(t, 200)
						continue
					}
					if r.Status != 400 {
						t.Errorf("%s %s: status %d, want a 400 %d: %.300s", call.method, call.path, r.Status, c.Code, r.Body)
						continue
					}
					r.expectError(t, c.Code, call.field)
				}
			})
			if c.Code == 0 {
				webhooks, automations = webhooks+1, automations+1
			}
		}
		if n := storetest.Count(t, s, "webhooks", "automation_id IS NULL"); n != webhooks {
			t.Errorf("%d webhooks stored, want %d", n, webhooks)
		}
		if n := storetest.Count(t, s, "automations", "1 = 1"); n != automations {
			t.Errorf("%d automations stored, want %d", n, automations)
		}
		var got api.WebhookEnvelope
		e.do("GET", hookPath, e.keyA, nil).expect(t, 200).JSON(t, &got)
		if want := apitest.URLCases()[0].URL; got.Webhook.URL != want {
			t.Errorf("the webhook's URL is %q, want the last accepted, %q", got.Webhook.URL, want)
		}
	})
}

// automationTo is the body of a WEBHOOK automation posting to url.
func automationTo(name, url string) map[string]any {
	return map[string]any{"name": "to " + name, "trigger": map[string]any{"type": "TRAINEE_CREATED"},
		"actionType": "WEBHOOK", "action": map[string]any{"url": url}}
}
