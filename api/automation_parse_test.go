package api

import (
	"reflect"
	"testing"
)

// A PUT body is merged onto a copy of the stored automation: the base the
// caller passed is left exactly as it was, whatever the body changes.
func TestParseAutomationLeavesBase(t *testing.T) {
	typ, days, status, url, name := TriggerInactive, 14, StatusActive, "https://crm.example/a", "Idle"
	base := AutomationInput{Name: &name, Trigger: &TriggerInput{Type: &typ, Days: &days},
		Conditions: &ConditionsInput{Status: &status}, ActionType: ptrTo(ActionWebhook), Action: &ActionInput{URL: &url}}
	before := base.clone()
	spec, err := ParseAutomation([]byte(`{"trigger": {"type": "INACTIVE", "days": 30}, "conditions": {"status": "live"},
		"action": {"url": "https://crm.example/b"}}`), &base)
	if err != nil {
		t.Fatal(err)
	}
	if *spec.Days != 30 || *spec.Status != StatusLive || *spec.URL != "https://crm.example/b" || spec.Name != "Idle" {
		t.Fatalf("spec %+v", spec)
	}
	if !reflect.DeepEqual(base, before) || *base.Trigger.Days != 14 || *base.Conditions.Status != StatusActive || *base.Action.URL != url {
		t.Fatalf("the base changed: days %d, status %s, url %s", *base.Trigger.Days, *base.Conditions.Status, *base.Action.URL)
	}
}
