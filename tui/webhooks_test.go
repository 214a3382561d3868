package tui

import (
	"context"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/client"
	"github.com/traineed/traineed/jobs"
	"github.com/traineed/traineed/store/storetest"
)

// webhookServer is the demo server with one webhook to a real receiver, a
// dispatcher, and one delivered event.
func webhookServer(t *testing.T) (*testServer, *storetest.Receiver, *api.WebhookEnvelope, string) {
	t.Helper()
	s := newServer(t)
	rc := storetest.NewReceiver(t, nil)
	ctx := context.Background()
	c := client.New(s.URL, s.Key)
	url := rc.URL
	env, err := c.CreateWebhook(ctx, client.WebhookInput{URL: &url})
	if err != nil {
		t.Fatal(err)
	}
	d, err := jobs.NewDispatcher(s.st, jobs.DispatcherConfig{Outbound: storetest.LoopbackOutbound(), PollInterval: 20 * time.Millisecond, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	d.Start()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = d.Shutdown(ctx)
	})
	page, err := c.SearchTrainees(ctx, client.SearchParams{Size: 1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.UpdateTrainee(ctx, page.Content[0].ID, api.TraineePatch{Name: api.Val("Webhook Subject")}); err != nil {
		t.Fatal(err)
	}
	first := rc.Wait(t, 1, 10*time.Second)[0]
	// The attempt is recorded right after the receiver answers.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		dl, err := c.WebhookDeliveries(ctx, env.Webhook.ID, client.ListParams{Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		if len(dl.Deliveries) == 1 && dl.Deliveries[0].State == api.DeliverySucceeded {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("delivery not recorded: %+v", dl.Deliveries)
		}
	}
	return s, rc, env, first.ID
}

// The Webhooks screen lists the webhooks and the selected one's recent
// deliveries with status, latency and state; t sends a test, r redelivers
// the selected delivery's event, esc goes back.
func TestWebhooksScreen(t *testing.T) {
	s, rc, wh, firstEvent := webhookServer(t)
	d := newDriver(t, s.client(s.Key), Options{})
	d.send(tea.WindowSizeMsg{Width: 160, Height: 30})
	d.press("w")
	d.expect(t, "Webhooks", "1 webhook", rc.URL, "active", "trainee.*", "Recent deliveries of webhook", firstEvent, "trainee.updated", "200", " ms", "succeeded")

	d.press("t")
	got := rc.Wait(t, 2, 10*time.Second)[1]
	if err := got.Verify(wh.Secret); err != nil || !strings.Contains(string(got.Body), `"webhook.test"`) {
		t.Fatalf("test delivery %s: %v", got.Body, err)
	}
	d.expect(t, "Test "+got.ID+": 200 in")

	d.press("tab", "r")
	again := rc.Wait(t, 3, 10*time.Second)[2]
	if again.ID != firstEvent {
		t.Fatalf("redelivered %s, want %s", again.ID, firstEvent)
	}
	d.expect(t, "Redelivery of "+firstEvent+" scheduled (1).")

	d.press("esc")
	d.expect(t, "Trainees")
	d.expectNot(t, "Recent deliveries")
}

// With a read-only key the TUI hides and refuses changes with a message,
// and sends nothing.
func TestReadOnlyTUI(t *testing.T) {
	s, rc, _, _ := webhookServer(t)
	d := newDriver(t, s.client(s.Key), Options{ReadOnly: true})
	d.send(tea.WindowSizeMsg{Width: 160, Height: 30})
	s.rec.take()
	d.press("n")
	d.expect(t, "This API key is read-only: changing trainees needs a full key.")
	d.press("d")
	d.expect(t, "read-only")
	d.expectNot(t, "Delete ")
	d.press("?")
	d.expectNot(t, "new trainee", "restore")
	d.press("?")
	d.press("w")
	d.expect(t, "read-only key: t and r are off")
	d.press("t")
	d.expect(t, "This API key is read-only: sending a test needs a full key.")
	d.press("tab", "r")
	d.expect(t, "redelivering an event needs a full key")
	for _, r := range s.rec.take() {
		if r.Method != "GET" {
			t.Fatalf("a read-only TUI sent %s %s", r.Method, r.Path)
		}
	}
	if rc.Count() != 1 {
		t.Fatalf("the receiver got %d requests", rc.Count())
	}
}

// A webhook the server disabled by itself (a 410 Gone) shows as disabled,
// with the server's reason, above its deliveries.
func TestWebhooksScreenShowsDisabledReason(t *testing.T) {
	s, rc, wh, _ := webhookServer(t)
	if _, err := s.st.DisableEndpoint(context.Background(), wh.Webhook.ID, "", jobs.GoneReason); err != nil {
		t.Fatal(err)
	}
	d := newDriver(t, s.client(s.Key), Options{})
	d.send(tea.WindowSizeMsg{Width: 160, Height: 30})
	d.press("w")
	d.expect(t, "Webhooks", rc.URL, "disabled", "Disabled by the server: the endpoint answered 410 Gone")
}

// A delivery whose attempt failed and that waits for its retry shows as
// "retrying", with "-" for the status and latency nobody answered with;
// enter opens the attempt in full (the whole error, the next attempt),
// enter or esc closes it.
func TestWebhookDeliveryRetryingAndDetail(t *testing.T) {
	s := newServer(t)
	c := s.client(s.Key)
	url := "http://127.0.0.1:9/hook"
	env, err := c.CreateWebhook(context.Background(), client.WebhookInput{URL: &url})
	must(t, err)
	d := newDriver(t, c, Options{NoColor: true})
	d.send(tea.WindowSizeMsg{Width: 120, Height: 35})
	d.press("w")
	d.expect(t, "Recent deliveries of webhook")
	next := time.Date(2027, 2, 28, 9, 30, 0, 0, time.Local)
	long := "Post \"http://127.0.0.1:9/hook\": dial tcp 127.0.0.1:9: connect: connection refused " +
		"(the receiver has been unreachable since 28-02-2027 and the end of this error is far past the column)"
	lat := 0.0
	d.m.webhooks.Deliveries = []*api.WebhookAttempt{{
		DeliveryID: 7, EventID: "evt_retry", Type: "trainee.updated", Attempt: 2, LatencyMs: &lat,
		Error: &long, Time: next.Add(-time.Minute), State: api.DeliveryPending, NextAttemptAt: &next,
	}}
	d.m.webhooks.ForHook = env.Webhook.ID
	d.expect(t, "retrying")
	d.expectNot(t, "0.0 ms", "pending")
	row := ""
	for _, l := range strings.Split(d.screen(), "\n") {
		if strings.Contains(l, "evt_retry") {
			row = l
		}
	}
	if !strings.Contains(strings.Join(strings.Fields(row), " "), "trainee.updated - 2 - - retrying") {
		t.Fatalf("status and latency of an unanswered attempt not \"-\": %q", row)
	}
	d.press("enter") // from the webhooks to the deliveries
	d.expectNot(t, "Delivery 7, attempt 2")
	d.press("enter")
	d.expect(t, "Delivery 7, attempt 2", "retrying", "- (no answer)", "2027-02-28 09:30:00",
		"28-02-2027", "far past the column)")
	d.send(tea.WindowSizeMsg{Width: 80, Height: 24})
	d.expect(t, "Next attempt 2027-02-28 09:30:00", "this error is far past the column)") // wrapped whole at 80
	d.press("esc")
	d.expectNot(t, "Delivery 7, attempt 2")
	d.expect(t, "Recent deliveries of webhook", "evt_retry")
	d.press("enter", "enter")
	d.expectNot(t, "Delivery 7, attempt 2")
	// A response longer than the screen: cut, and the last line says so.
	body := strings.Repeat("<p>a long answer from the receiver</p> ", 27) // ~1 KiB
	d.m.webhooks.Deliveries[0].Response = &body
	d.press("enter")
	d.expect(t, "Delivery 7, attempt 2", "… (more than fits")
	if n := len(strings.Split(d.screen(), "\n")); n > 24 {
		t.Fatalf("the detail at 80x24 drew %d lines", n)
	}
}
