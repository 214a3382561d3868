package tui

import (
	"context"
	"fmt"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/client"
)

// The Automations screen: a from the list shows the company's automations
// with their run count and last run; enter shows an automation's recent
// runs; esc goes back each step.
func TestAutomationsScreen(t *testing.T) {
	s := newServer(t)
	c := s.client(s.Key)
	ctx := context.Background()
	hook, err := c.CreateAutomation(ctx, client.AutomationParams{Name: api.Val("CRM new client"), Trigger: api.Val(client.AutomationTrigger{Type: api.Val("TRAINEE_CREATED")}),
		ActionType: api.Val("WEBHOOK"), Action: api.Val(client.AutomationAction{URL: api.Val("http://127.0.0.1:9/crm")})})
	must(t, err)
	_, err = c.CreateAutomation(ctx, client.AutomationParams{Name: api.Val("Idle two weeks"), Enabled: api.Val(false),
		Trigger: api.Val(client.AutomationTrigger{Type: api.Val("INACTIVE"), Days: api.Val(14)}), ActionType: api.Val("DISABLE_TRAINEE")})
	must(t, err)
	for i := range 2 {
		_, err := c.CreateTrainee(ctx, api.CreateRequest{Name: fmt.Sprintf("New Client %d", i), Email: fmt.Sprintf("new%d@auto.example", i), Password: "long enough"})
		must(t, err)
	}

	d := newDriver(t, c, Options{NoColor: true})
	d.send(tea.WindowSizeMsg{Width: 100, Height: 24})
	d.expect(t, "a automations", "w webhooks", ": cmd")
	d.press("a")
	d.expect(t, "Automations", "2 automations", "CRM new client", "enabled", "TRAINEE_CREATED", "Idle two weeks", "disabled",
		"INACTIVE 14d", "never", "enter runs")
	d.press("enter")
	d.expect(t, "Runs of CRM new client", fmt.Sprintf("#%d", hook.ID), "2 of 2 runs", "event:evt_", "pending")
	d.press("esc")
	d.expect(t, "Automations", "Idle two weeks")
	d.press("down", "enter")
	d.expect(t, "Runs of Idle two weeks", "It has not fired yet.")
	d.press("esc", "esc")
	d.expect(t, "Trainees", "/ to search")
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
