package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/outbound"
	"github.com/traineed/traineed/api/server"
	"github.com/traineed/traineed/jobs"
	"github.com/traineed/traineed/store"
	"github.com/traineed/traineed/store/storetest"
)

// testResolver answers names from a table (no real DNS).
type testResolver struct {
	mu sync.Mutex
	m  map[string]string
}

func (r *testResolver) set(host, addr string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.m[host] = addr
}

func (r *testResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if a, ok := r.m[host]; ok {
		return []netip.Addr{netip.MustParseAddr(a)}, nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
}

// internalService is a local-only service on 127.0.0.1 that counts every
// connection it accepts: a tenant's URL must never reach it.
func internalService(t *testing.T) (port string, accepted *atomic.Int32) {
	t.Helper()
	accepted = new(atomic.Int32)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte("INTERNAL-ONLY: db_password=hunter2"))
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			accepted.Add(1)
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	_, port, _ = net.SplitHostPort(srv.Listener.Addr().String())
	return port, accepted
}

// A company's URLs never reach the server's own network: every internal
// destination is refused when it is registered (webhooks and WEBHOOK
// automations, 400 with errorCode 1018) or, for a name, or a row stored
// before the rule, when the connection is made (the test ping, the
// deliveries, the redeliveries and the automations' deliveries all record
// "destination not allowed"). A service listening on 127.0.0.1 counts
// zero connections across all of them.
func TestOutboundNeverReachesInside(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		port, accepted := internalService(t)
		// The redirector plays a public receiver (on 127.0.0.2, which the
		// policy opens) that redirects to the internal service.
		rl, err := net.Listen("tcp", "127.0.0.2:0")
		if err != nil {
			t.Skipf("cannot listen on 127.0.0.2: %v", err)
		}
		redirector := httptest.NewUnstartedServer(http.RedirectHandler("http://127.0.0.1:"+port+"/", http.StatusFound))
		redirector.Listener.Close()
		redirector.Listener = rl
		redirector.Start()
		t.Cleanup(redirector.Close)
		_, rport, _ := net.SplitHostPort(rl.Addr().String())

		res := &testResolver{m: map[string]string{
			"public.test":              "127.0.0.2",
			"internal.test":            "127.0.0.1",
			"rebind.test":              "203.0.113.10",
			"v6.test":                  "::1",
			"mapped.test":              "::ffff:127.0.0.1",
			"metadata.google.internal": "169.254.169.254", // as on GCP
		}}
		ob := outbound.New(outbound.Config{Resolver: res, Policy: outbound.Policy{Allow: []netip.Prefix{netip.MustParsePrefix("127.0.0.2/32")}}})
		e := newEnv(t, s, server.WithOutbound(ob), server.WithCaps(0, 0))

		p := ":" + port
		atRegistration := []string{
			"http://127.0.0.1" + p + "/",
			"http://127.1" + p + "/",
			"http://2130706433" + p + "/",
			"http://0x7f.1" + p + "/",
			"http://0x7f000001" + p + "/",
			"http://0177.0.0.1" + p + "/",
			"http://[::1]" + p + "/",
			"http://[::ffff:127.0.0.1]" + p + "/",
			"http://[::ffff:7f00:1]" + p + "/",
			"http://[0:0:0:0:0:ffff:7f00:1]" + p + "/",
			"http://0.0.0.0" + p + "/",
			"http://[::]" + p + "/",
			"http://localhost" + p + "/",
			"http://LocalHost." + p + "/",
			"http://api.localhost" + p + "/",
			"http://user:pass@127.0.0.1" + p + "/",
			"https://user:pass@crm.example/hook",
			"http://169.254.169.254/latest/meta-data/",
			"http://10.0.0.1" + p + "/",
			"http://192.168.0.1" + p + "/",
			"http://100.64.0.1" + p + "/",
			"http://[fe80::1]" + p + "/",
			"http://crm.example:0/",
			"http://crm.example:70000/",
		}
		atConnect := []string{
			"http://internal.test" + p + "/", // a name that resolves to loopback
			"http://v6.test" + p + "/",
			"http://mapped.test" + p + "/",
			"http://rebind.test" + p + "/", // public at registration, loopback at delivery (below)
			"http://metadata.google.internal/computeMetadata/v1/",
			"http://public.test:" + rport + "/", // public, but redirects to loopback
		}
		if n := len(atRegistration) + len(atConnect); n < 25 {
			t.Fatalf("only %d URLs", n)
		}

		// 1. Registration.
		for _, u := range atRegistration {
			e.do("POST", "/public-api/webhooks", e.keyA, map[string]any{"url": u}).expectError(t, api.CodeDestinationNotAllowed, "url")
			e.do("POST", "/public-api/automations", e.keyA, map[string]any{"name": "x", "trigger": map[string]any{"type": "TRAINEE_CREATED"},
				"actionType": "WEBHOOK", "action": map[string]any{"url": u}}).expectError(t, api.CodeDestinationNotAllowed, "action.url")
		}
		var hooks []int64
		for _, u := range atConnect {
			r := e.do("POST", "/public-api/webhooks", e.keyA, map[string]any{"url": u}).expect(t, 200)
			var env api.WebhookEnvelope
			r.JSON(t, &env)
			hooks = append(hooks, env.Webhook.ID)
			e.do("POST", "/public-api/automations", e.keyA, map[string]any{"name": "to " + u, "trigger": map[string]any{"type": "TRAINEE_CREATED"},
				"actionType": "WEBHOOK", "action": map[string]any{"url": u}}).expect(t, 200)
		}
		if got := storetest.Count(t, s, "webhooks", "1 = 1"); got != 2*len(atConnect) {
			t.Fatalf("%d endpoints stored, want %d: a refused registration stored one", got, 2*len(atConnect))
		}
		res.set("rebind.test", "127.0.0.1")

		// 2. Rows stored before the rule (straight into the store) are
		// refused when the connection is made.
		for _, u := range atRegistration {
			id, _ := storetest.AddWebhook(t, s, e.companyA, u)
			hooks = append(hooks, id)
			_, err := s.CreateAutomation(ctx, e.companyA, api.AutomationSpec{Name: "old " + u, Enabled: true, TriggerType: api.TriggerTraineeCreated,
				ActionType: api.ActionWebhook, URL: &u}, api.GenerateWebhookSecret(), 0)
			must(t, err)
		}

		// 3. The test ping: no connection, no status, no body, no timing.
		for _, id := range hooks {
			r := e.do("POST", fmt.Sprintf("/public-api/webhooks/%d/test", id), e.keyA, nil).expect(t, 200)
			var out api.WebhookTestResult
			r.JSON(t, &out)
			if out.OK {
				t.Errorf("webhook %d: test ok", id)
			}
			if out.StatusCode != nil && *out.StatusCode == http.StatusFound {
				continue // the redirector answered; its redirect is not followed
			}
			if out.Error == nil || !strings.HasPrefix(*out.Error, "destination not allowed (") || out.StatusCode != nil || out.Response != nil || out.LatencyMs != 0 {
				t.Errorf("webhook %d: test answered %s", id, r.Body)
			}
		}

		// 4. Deliveries and automation deliveries, then redeliveries.
		d, err := jobs.NewDispatcher(s, jobs.DispatcherConfig{Outbound: ob, PollInterval: 20 * time.Millisecond, Timeout: 2 * time.Second, Schedule: []time.Duration{}})
		must(t, err)
		d.Start()
		t.Cleanup(func() { _ = d.Shutdown(context.Background()) })
		created := e.do("POST", "/public-api/trainees", e.keyA, map[string]any{"name": "Ada", "email": "ada@example.com", "password": "correct-horse"}).expect(t, 200)
		_ = created
		waitDelivered(t, s)
		wantDeliveries := len(hooks) + len(atRegistration) + len(atConnect) // endpoints, and automations' endpoints
		if n := storetest.Count(t, s, "webhook_attempts", "1 = 1"); n != wantDeliveries {
			t.Fatalf("%d attempts, want %d", n, wantDeliveries)
		}
		var feed api.EventPage
		e.do("GET", "/public-api/events", e.keyA, nil).expect(t, 200).JSON(t, &feed)
		if len(feed.Events) != 1 {
			t.Fatalf("feed %+v", feed)
		}
		var rd api.RedeliverResult
		e.do("POST", "/public-api/events/"+feed.Events[0].ID+"/redeliver", e.keyA, nil).expect(t, 200).JSON(t, &rd)
		if rd.Deliveries != len(hooks) {
			t.Fatalf("redelivered to %d endpoints, want %d", rd.Deliveries, len(hooks))
		}
		waitDelivered(t, s)
		var rows []struct {
			StatusCode *int    `bun:"status_code"`
			Error      *string `bun:"error"`
			Response   *string `bun:"response"`
			LatencyUS  int64   `bun:"latency_us"`
		}
		must(t, storetest.DB(t, s).NewSelect().Table("webhook_attempts").Column("status_code", "error", "response", "latency_us").Scan(ctx, &rows))
		if len(rows) != wantDeliveries+len(hooks) {
			t.Fatalf("%d attempts after the redelivery, want %d", len(rows), wantDeliveries+len(hooks))
		}
		redirects := 0
		for _, r := range rows {
			if r.StatusCode != nil && *r.StatusCode == http.StatusFound {
				redirects++
				continue
			}
			if r.Error == nil || !strings.HasPrefix(*r.Error, "destination not allowed (") || r.StatusCode != nil || r.Response != nil || r.LatencyUS != 0 {
				t.Errorf("attempt %+v", r)
			}
		}
		if redirects != 3 { // the webhook's delivery and redelivery, the automation's delivery
			t.Errorf("%d attempts reached the redirector, want 3", redirects)
		}
		if n := accepted.Load(); n != 0 {
			t.Fatalf("the internal service accepted %d connections", n)
		}
	})
}

// An endpoint that answers 410 Gone is disabled, with the reason shown and
// a webhook.disabled event in the feed; its pending deliveries wait; a PUT
// enabling it clears the reason. A WEBHOOK automation whose URL answers
// 410 is disabled with its endpoint, and enabling it brings both back.
func TestWebhookGoneDisables(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		gone := storetest.NewReceiver(t, func(w http.ResponseWriter, _ *http.Request, _ *storetest.Received, _ int) {
			w.WriteHeader(http.StatusGone)
		})
		var wh api.WebhookEnvelope
		e.do("POST", "/public-api/webhooks", e.keyA, map[string]any{"url": gone.URL}).expect(t, 200).JSON(t, &wh)
		auto := e.do("POST", "/public-api/automations", e.keyA, map[string]any{"name": "gone", "trigger": map[string]any{"type": "TRAINEE_CREATED"},
			"actionType": "WEBHOOK", "action": map[string]any{"url": gone.URL + "?a"}}).expect(t, 200).automation(t)
		startDispatcher(t, e.store)
		e.do("POST", "/public-api/trainees", e.keyA, map[string]any{"name": "Ada", "email": "ada@example.com", "password": "correct-horse"}).expect(t, 200)
		gone.Wait(t, 2, 10*time.Second)
		waitFor(t, "both endpoints disabled", func() bool {
			return storetest.Count(t, e.store, "webhooks", "enabled = ?", false) == 2
		})
		var got api.WebhookEnvelope
		e.do("GET", fmt.Sprintf("/public-api/webhooks/%d", wh.Webhook.ID), e.keyA, nil).expect(t, 200).JSON(t, &got)
		if got.Webhook.State != api.WebhookDisabled || got.Webhook.DisabledReason == nil || *got.Webhook.DisabledReason != jobs.GoneReason {
			t.Fatalf("after 410: %+v", got.Webhook)
		}
		var list api.WebhookList
		e.do("GET", "/public-api/webhooks", e.readKey(e.companyA), nil).expect(t, 200).JSON(t, &list)
		if len(list.Webhooks) != 1 || list.Webhooks[0].DisabledReason == nil {
			t.Fatalf("list %+v", list.Webhooks)
		}
		a := e.do("GET", fmt.Sprintf("/public-api/automations/%d", auto.ID), e.keyA, nil).expect(t, 200).automation(t)
		if a.Enabled || a.DisabledReason == nil || *a.DisabledReason != jobs.GoneReason {
			t.Fatalf("automation after 410: %+v", a)
		}
		var feed api.EventPage
		e.do("GET", "/public-api/events?type=webhook.disabled", e.keyA, nil).expect(t, 200).JSON(t, &feed)
		if len(feed.Events) != 2 {
			t.Fatalf("webhook.disabled events: %+v", feed.Events)
		}
		var sawWebhook, sawAutomation bool
		for _, fe := range feed.Events {
			var ev api.WebhookDisabledEvent
			must(t, json.Unmarshal(fe.Payload, &ev))
			switch {
			case ev.Type != api.EventWebhookDisabled || ev.Data.Reason != jobs.GoneReason:
				t.Fatalf("event %s", fe.Payload)
			case ev.Data.WebhookID != nil && *ev.Data.WebhookID == wh.Webhook.ID && ev.Data.AutomationID == nil:
				sawWebhook = true
			case ev.Data.WebhookID == nil && ev.Data.AutomationID != nil && *ev.Data.AutomationID == auto.ID:
				sawAutomation = true
			}
		}
		if !sawWebhook || !sawAutomation {
			t.Fatalf("events %+v", feed.Events)
		}
		// The deliveries wait (the schedule's retry is due in 5 s; the
		// endpoint stays disabled whatever comes).
		if n := storetest.Count(t, e.store, "webhook_deliveries", "status = ?", api.DeliveryPending); n != 2 {
			t.Fatalf("%d deliveries pending, want 2", n)
		}
		gone.SetResponder(storetest.OK)
		e.do("PUT", fmt.Sprintf("/public-api/webhooks/%d", wh.Webhook.ID), e.keyA, map[string]any{"enabled": true}).expect(t, 200).JSON(t, &got)
		if got.Webhook.State != api.WebhookActive || got.Webhook.DisabledReason != nil {
			t.Fatalf("enabled again: %+v", got.Webhook)
		}
		a = e.do("PUT", fmt.Sprintf("/public-api/automations/%d", auto.ID), e.keyA, map[string]any{"enabled": true}).expect(t, 200).automation(t)
		if !a.Enabled || a.DisabledReason != nil {
			t.Fatalf("automation enabled again: %+v", a)
		}
		if n := storetest.Count(t, e.store, "webhooks", "enabled = ? AND disabled_reason IS NULL", true); n != 2 {
			t.Fatalf("%d endpoints enabled again, want 2", n)
		}
	})
}

// A company may have at most the caps' endpoints and automations; past
// them a create is a 400 with errorCode 1019 and stores nothing. The other
// company is not affected.
func TestOutboundCaps(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		e := newEnv(t, s, server.WithCaps(2, 3))
		for i := range 2 {
			e.do("POST", "/public-api/webhooks", e.keyA, map[string]any{"url": fmt.Sprintf("https://crm.example/%d", i)}).expect(t, 200)
		}
		body := e.do("POST", "/public-api/webhooks", e.keyA, map[string]any{"url": "https://crm.example/3"}).expectError(t, api.CodeLimitReached, "")
		if !strings.Contains(body.Message, "at most 2 webhooks") {
			t.Errorf("message %q", body.Message)
		}
		e.do("POST", "/public-api/webhooks", e.keyB, map[string]any{"url": "https://crm.example/b"}).expect(t, 200)
		auto := map[string]any{"name": "a", "trigger": map[string]any{"type": "TRAINEE_CREATED"}, "actionType": "DISABLE_TRAINEE"}
		for range 3 {
			e.do("POST", "/public-api/automations", e.keyA, auto).expect(t, 200)
		}
		e.do("POST", "/public-api/automations", e.keyA, auto).expectError(t, api.CodeLimitReached, "")
		if n := storetest.Count(t, s, "automations", "company_id = ?", e.companyA); n != 3 {
			t.Fatalf("%d automations stored", n)
		}
		if n := storetest.Count(t, s, "webhooks", "company_id = ? AND automation_id IS NULL", e.companyA); n != 2 {
			t.Fatalf("%d webhooks stored", n)
		}
		// The default caps: 16 and 100.
		d := newEnv(t, storetest.Open(t, storetest.SQLiteURL(t)))
		for i := range api.DefaultMaxWebhooks {
			d.do("POST", "/public-api/webhooks", d.keyA, map[string]any{"url": fmt.Sprintf("https://crm.example/%d", i)}).expect(t, 200)
		}
		d.do("POST", "/public-api/webhooks", d.keyA, map[string]any{"url": "https://crm.example/17"}).expectError(t, api.CodeLimitReached, "")
	})
}

// Endpoints registered before the rule, or under a wider allow list, are
// disabled when serve starts, each once, with the reason and an event; a
// URL with credentials stored before is never shown in full.
func TestDisableRefusedEndpoints(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		ctx := context.Background()
		bad, _ := storetest.AddWebhook(t, e.store, e.companyA, "http://127.0.0.1:5432/")
		creds, _ := storetest.AddWebhook(t, e.store, e.companyA, "https://user:s3cret@crm.example/hook")
		token, _ := storetest.AddWebhook(t, e.store, e.companyA, "https://tok_SECRETTOKEN@crm.example/hook")
		credURL := "https://user:s3cret@crm.example/auto"
		ca, err := e.store.CreateAutomation(ctx, e.companyA, api.AutomationSpec{Name: "creds", Enabled: true, TriggerType: api.TriggerTraineeCreated,
			ActionType: api.ActionWebhook, URL: &credURL}, api.GenerateWebhookSecret(), 0)
		must(t, err)
		good, _ := storetest.AddWebhook(t, e.store, e.companyA, "https://crm.example/ok")
		u := "http://169.254.169.254/"
		a, err := e.store.CreateAutomation(ctx, e.companyB, api.AutomationSpec{Name: "meta", Enabled: true, TriggerType: api.TriggerTraineeCreated,
			ActionType: api.ActionWebhook, URL: &u}, api.GenerateWebhookSecret(), 0)
		must(t, err)
		var p outbound.Policy
		ds, err := e.store.DisableRefusedEndpoints(ctx, p.CheckURL)
		must(t, err)
		byID := map[int64]*store.DisabledEndpoint{}
		for _, d := range ds {
			byID[d.WebhookID] = d
		}
		if len(ds) != 5 || byID[bad] == nil || byID[creds] == nil || byID[token] == nil || byID[-ca.ID] == nil || byID[-a.ID] == nil || byID[-a.ID].AutomationID == nil || *byID[-a.ID].AutomationID != a.ID {
			t.Fatalf("disabled %+v", ds)
		}
		if !strings.Contains(byID[bad].Reason, "loopback address 127.0.0.1") || !strings.Contains(byID[creds].Reason, "userinfo") || strings.Contains(byID[creds].URL, "s3cret") {
			t.Fatalf("reasons %q %q (%s)", byID[bad].Reason, byID[creds].Reason, byID[creds].URL)
		}
		again, err := e.store.DisableRefusedEndpoints(ctx, p.CheckURL)
		if err != nil || len(again) != 0 {
			t.Fatalf("second start disabled %+v, %v", again, err)
		}
		var list api.WebhookList
		reader := e.readKey(e.companyA)
		r := e.do("GET", "/public-api/webhooks", reader, nil).expect(t, 200)
		r.JSON(t, &list)
		// No key ever sees the credentials of a URL stored before they
		// were refused, password or token: not in the webhooks, not in
		// the automation, not in the feed's webhook.disabled events.
		for _, path := range []string{"/public-api/webhooks", fmt.Sprintf("/public-api/automations/%d", ca.ID), "/public-api/events?type=webhook.disabled"} {
			body := string(e.do("GET", path, reader, nil).expect(t, 200).Body)
			if strings.Contains(body, "s3cret") || strings.Contains(body, "SECRETTOKEN") || strings.Contains(body, "user:") {
				t.Fatalf("%s shows credentials to a read key: %s", path, body)
			}
		}
		states := map[int64]string{}
		for _, w := range list.Webhooks {
			states[w.ID] = w.State
		}
		if states[bad] != api.WebhookDisabled || states[creds] != api.WebhookDisabled || states[good] != api.WebhookActive {
			t.Fatalf("states %v", states)
		}
		got := e.do("GET", fmt.Sprintf("/public-api/automations/%d", a.ID), e.keyB, nil).expect(t, 200).automation(t)
		if got.Enabled || got.DisabledReason == nil || !strings.Contains(*got.DisabledReason, "link-local") {
			t.Fatalf("automation %+v", got)
		}
		// Enabling one again checks its stored URL: refused until the URL
		// changes.
		// (This server opens loopback, as the tests' servers do: the URLs
		// with credentials stay refused whatever it opens.)
		e.do("PUT", fmt.Sprintf("/public-api/webhooks/%d", creds), e.keyA, map[string]any{"enabled": true}).expectError(t, api.CodeDestinationNotAllowed, "url")
		e.do("PUT", fmt.Sprintf("/public-api/automations/%d", ca.ID), e.keyA, map[string]any{"enabled": true}).expectError(t, api.CodeDestinationNotAllowed, "action.url")
		e.do("PUT", fmt.Sprintf("/public-api/webhooks/%d", creds), e.keyA, map[string]any{"enabled": true, "url": "https://crm.example/new"}).expect(t, 200)
		// A 410 from a URL the company changed meanwhile disables nothing.
		if d, err := e.store.DisableEndpoint(ctx, creds, "https://user:s3cret@crm.example/hook", "the endpoint answered 410 Gone"); err != nil || d != nil {
			t.Fatalf("a 410 of the old URL disabled %+v, %v", d, err)
		}
		var feed api.EventPage
		e.do("GET", "/public-api/events", e.keyA, nil).expect(t, 200).JSON(t, &feed)
		if len(feed.Events) != 4 || feed.Events[0].Type != api.EventWebhookDisabled {
			t.Fatalf("company A's feed %+v", feed.Events)
		}
	})
}

// waitFor polls cond until it holds, for up to 10 seconds.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
