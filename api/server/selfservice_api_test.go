package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/store/storetest"
)

var secretRE = regexp.MustCompile(`^whsec_[A-Za-z0-9+/]{43}=$`)

func webhookPath(id int64, rest string) string {
	return api.PathWebhooks + "/" + strconv.FormatInt(id, 10) + rest
}

// The whole life of a webhook through the API, against a real receiver:
// create (the secret shown once), list and get (never the secret), a
// delivery signed with it, a test, a rotation (both secrets sign), the
// deliveries page, a redelivery, changes, validation, delete.
func TestWebhookLifecycleAPI(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		rc := storetest.NewReceiver(t, nil)
		startDispatcher(t, e.store)

		var created api.WebhookEnvelope
		e.do("POST", api.PathWebhooks, e.keyA, map[string]any{"url": rc.URL, "events": []string{"trainee.updated", "trainee.created"}}).expect(t, 200).JSON(t, &created)
		wh, secret := created.Webhook, created.Secret
		if !secretRE.MatchString(secret) || wh.URL != rc.URL || !slices.Equal(wh.Events, []string{"trainee.created", "trainee.updated"}) ||
			wh.State != "active" || wh.CompanyID != e.companyA || created.Timestamp != fixedNow.Unix() {
			t.Fatalf("created %+v secret %q", wh, secret)
		}
		list := e.do("GET", api.PathWebhooks, e.keyA, nil).expect(t, 200)
		got := e.do("GET", webhookPath(wh.ID, ""), e.keyA, nil).expect(t, 200)
		for _, r := range []*resp{list, got} {
			if strings.Contains(string(r.Body), "whsec_") {
				t.Fatalf("the secret is shown again: %s", r.Body)
			}
		}
		var wl api.WebhookList
		list.JSON(t, &wl)
		if len(wl.Webhooks) != 1 || wl.Webhooks[0].ID != wh.ID {
			t.Fatalf("list %s", list.Body)
		}
		if n := len(e.do("GET", api.PathWebhooks, e.keyB, nil).expect(t, 200).Body); strings.Contains(string(e.do("GET", api.PathWebhooks, e.keyB, nil).Body), rc.URL) || n == 0 {
			t.Fatal("company B sees company A's webhook")
		}

		// A change is delivered, signed with the secret.
		ada := e.create(e.keyA, newTraineeBody("Ada Park"))
		first := rc.Wait(t, 1, 10*time.Second)[0]
		if err := first.Verify(secret); err != nil || first.Event.Type != api.EventTraineeCreated || first.Event.Data.Trainee.ID != ada.ID {
			t.Fatalf("first delivery %s: %v", first.Body, err)
		}

		// A test goes at once, signed, and reports the attempt.
		var tr api.WebhookTestResult
		e.do("POST", webhookPath(wh.ID, "/test"), e.keyA, nil).expect(t, 200).JSON(t, &tr)
		if !tr.OK || tr.StatusCode == nil || *tr.StatusCode != 200 || tr.Error != nil || tr.LatencyMs <= 0 {
			t.Fatalf("test result %+v", tr)
		}
		test := rc.Wait(t, 2, 10*time.Second)[1]
		var te api.WebhookTestEvent
		must(t, json.Unmarshal(test.Body, &te))
		if err := test.Verify(secret); err != nil || test.ID != tr.EventID || te.Type != "webhook.test" || te.Data.WebhookID != wh.ID {
			t.Fatalf("test delivery %s (%v)", test.Body, err)
		}

		// Rotation: a new secret, shown once; both sign for a day.
		var rot api.WebhookEnvelope
		e.do("POST", webhookPath(wh.ID, "/rotate-secret"), e.keyA, nil).expect(t, 200).JSON(t, &rot)
		if !secretRE.MatchString(rot.Secret) || rot.Secret == secret || rot.PreviousSecretExpiresAt == nil ||
			time.Until(*rot.PreviousSecretExpiresAt) < 23*time.Hour || time.Until(*rot.PreviousSecretExpiresAt) > 25*time.Hour {
			t.Fatalf("rotate %+v", rot)
		}
		e.do("PUT", "/public-api/trainees/"+strconv.FormatInt(ada.ID, 10), e.keyA, map[string]any{"name": "Ada Lovelace"}).expect(t, 200)
		upd := rc.Wait(t, 3, 10*time.Second)[2]
		if sigs := strings.Fields(upd.Header.Get("webhook-signature")); len(sigs) != 2 {
			t.Fatalf("during rotation want two signatures, got %q", upd.Header.Get("webhook-signature"))
		}
		for _, s := range []string{rot.Secret, secret} {
			if err := upd.Verify(s); err != nil {
				t.Fatalf("delivery during rotation does not verify with %s: %v", s[:10], err)
			}
		}
		if err := upd.Verify(api.GenerateWebhookSecret()); err == nil {
			t.Fatal("verifies with any secret")
		}
		// Once the old secret expires only the new one signs.
		_, _, err := e.store.RotateWebhookSecret(context.Background(), e.companyA, wh.ID, rot.Secret, 0)
		must(t, err)
		tgt, err := e.store.WebhookTarget(context.Background(), e.companyA, wh.ID)
		must(t, err)
		if len(tgt.Secrets) != 1 || tgt.Secrets[0] != rot.Secret {
			t.Fatalf("after expiry the secrets are %d", len(tgt.Secrets))
		}
		waitDelivered(t, e.store)

		// Deliveries: newest first, paged; tests are not recorded.
		var page api.WebhookDeliveries
		e.do("GET", webhookPath(wh.ID, "/deliveries?size=1"), e.keyA, nil).expect(t, 200).JSON(t, &page)
		if len(page.Deliveries) != 1 || !page.HasMore || page.Deliveries[0].EventID != upd.ID || page.Deliveries[0].State != "succeeded" ||
			page.Deliveries[0].StatusCode == nil || *page.Deliveries[0].StatusCode != 200 || page.Deliveries[0].LatencyMs == nil {
			t.Fatalf("deliveries page 0: %+v", page)
		}
		e.do("GET", webhookPath(wh.ID, "/deliveries?page=1&size=1"), e.keyA, nil).expect(t, 200).JSON(t, &page)
		if len(page.Deliveries) != 1 || page.HasMore || page.Deliveries[0].EventID != first.ID {
			t.Fatalf("deliveries page 1: %+v", page)
		}
		e.do("GET", webhookPath(wh.ID, "/deliveries?size=0"), e.keyA, nil).expectError(t, api.CodeInvalidParameter, "size")

		// Redeliver: the same event, the same webhook-id, again.
		var rd api.RedeliverResult
		e.do("POST", api.PathEvents+"/"+first.ID+"/redeliver", e.keyA, nil).expect(t, 200).JSON(t, &rd)
		if rd.Deliveries != 1 || rd.EventID != first.ID {
			t.Fatalf("redeliver %+v", rd)
		}
		again := rc.Wait(t, 4, 10*time.Second)[3]
		if again.ID != first.ID || string(again.Body) != string(first.Body) {
			t.Fatalf("redelivery %s is not %s", again.Body, first.Body)
		}
		e.do("POST", api.PathEvents+"/nope/redeliver", e.keyA, nil).expectError(t, api.CodeInvalidParameter, "id")

		// Changes and validation.
		var up api.WebhookEnvelope
		e.do("PUT", webhookPath(wh.ID, ""), e.keyA, map[string]any{"enabled": false, "events": []string{"trainee.deleted"}}).expect(t, 200).JSON(t, &up)
		if up.Webhook.State != "disabled" || !slices.Equal(up.Webhook.Events, []string{"trainee.deleted"}) || up.Webhook.URL != rc.URL || up.Secret != "" {
			t.Fatalf("update %+v", up)
		}
		e.do("PUT", webhookPath(wh.ID, ""), e.keyA, map[string]any{"url": "ftp://x"}).expectError(t, api.CodeInvalidParameter, "url")
		e.do("PUT", webhookPath(wh.ID, ""), e.keyA, map[string]any{"events": []string{}}).expectError(t, api.CodeRequired, "events")
		e.do("PUT", webhookPath(wh.ID, ""), e.keyA, map[string]any{"events": []string{"trainee.exploded"}}).expectError(t, api.CodeInvalidEnum, "events")
		e.do("PUT", webhookPath(wh.ID, ""), e.keyA, map[string]any{"enabled": "yes"}).expectError(t, api.CodeBadJSON, "enabled")
		e.do("POST", api.PathWebhooks, e.keyA, map[string]any{"events": []string{}}).expectError(t, api.CodeRequired, "url")
		e.do("POST", api.PathWebhooks, e.keyA, "[]").expectError(t, api.CodeBadJSON, "")
		var all api.WebhookEnvelope
		e.do("POST", api.PathWebhooks, e.keyA, map[string]any{"url": rc.URL, "enabled": false}).expect(t, 200).JSON(t, &all)
		if !slices.Equal(all.Webhook.Events, api.TraineeEventTypes) || all.Webhook.State != "disabled" {
			t.Fatalf("create with defaults: every trainee event, nothing else: %+v", all.Webhook)
		}

		// Delete: the webhook goes, with its history.
		e.do("DELETE", webhookPath(wh.ID, ""), e.keyA, nil).expect(t, 200)
		e.do("GET", webhookPath(wh.ID, ""), e.keyA, nil).expectMissing(t, "webhook")
		e.do("DELETE", webhookPath(wh.ID, ""), e.keyA, nil).expectMissing(t, "webhook")
		e.do("GET", webhookPath(0, ""), e.keyA, nil).expectError(t, api.CodeInvalidParameter, "id")
	})
}

// expectMissing asserts the 404 of an id of ours (a webhook, an event, an
// automation) outside the caller's company: errorCode 1025 on field id,
// naming what, and no X-Error-Reason (that is the trainee routes' 500).
func (r *resp) expectMissing(t testing.TB, what string) {
	t.Helper()
	r.expect(t, http.StatusNotFound)
	var b api.ErrorBody
	r.JSON(t, &b)
	if b.ErrorCode != api.CodeNotFound || b.Field != "id" || !strings.HasPrefix(b.Message, "there is no "+what+" ") || r.Header.Get("X-Error-Reason") != "" {
		t.Fatalf("want a 404 %d naming the %s, got %s %v", api.CodeNotFound, what, r.Body, r.Header)
	}
}

// No route reaches another company's webhooks, deliveries or events: each
// answers company B exactly as it answers an id that does not exist, and
// changes nothing.
func TestSelfServiceForeignIDs(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		rc := storetest.NewReceiver(t, nil)
		var a api.WebhookEnvelope
		e.do("POST", api.PathWebhooks, e.keyA, map[string]any{"url": rc.URL}).expect(t, 200).JSON(t, &a)
		e.create(e.keyA, newTraineeBody("Ada Park"))
		var feed api.EventPage
		e.do("GET", api.PathEvents, e.keyA, nil).expect(t, 200).JSON(t, &feed)
		if len(feed.Events) != 1 {
			t.Fatalf("company A's feed %+v", feed)
		}
		evA := feed.Events[0].ID
		before := snapshot(t, e)

		id := a.Webhook.ID
		for _, c := range []struct {
			method, path string
			body         any
			reason       string
		}{
			{"GET", webhookPath(id, ""), nil, "webhook"},
			{"PUT", webhookPath(id, ""), map[string]any{"enabled": false}, "webhook"},
			{"DELETE", webhookPath(id, ""), nil, "webhook"},
			{"GET", webhookPath(id, "/deliveries"), nil, "webhook"},
			{"POST", webhookPath(id, "/test"), nil, "webhook"},
			{"POST", webhookPath(id, "/rotate-secret"), nil, "webhook"},
			{"POST", api.PathEvents + "/" + evA + "/redeliver", nil, "event"},
		} {
			t.Run(c.method+" "+c.path, func(t *testing.T) {
				e.do(c.method, c.path, e.keyB, c.body).expectMissing(t, c.reason)
				// The same as an id that does not exist at all.
				missing := strings.Replace(c.path, "/"+strconv.FormatInt(id, 10), "/999999", 1)
				missing = strings.Replace(missing, evA, "evt_000000000000000000000000", 1)
				e.do(c.method, missing, e.keyA, c.body).expectMissing(t, c.reason)
			})
		}
		// The feed: B's is empty, and A's cursor is no cursor of B's.
		e.do("GET", api.PathEvents, e.keyB, nil).expect(t, 200).JSON(t, &feed)
		if len(feed.Events) != 0 {
			t.Fatalf("company B's feed shows %+v", feed.Events)
		}
		e.do("GET", api.PathEvents+"?after="+evA, e.keyB, nil).expectError(t, api.CodeInvalidParameter, "after")
		if n := rc.Count(); n != 0 {
			t.Fatalf("company B's test reached company A's receiver %d times", n)
		}
		if after := snapshot(t, e); after != before {
			t.Fatalf("company B's requests changed company A's data:\n%s\n%s", before, after)
		}
	})
}

// snapshot is what is stored of webhooks, deliveries and keys, as text.
func snapshot(t *testing.T, e *env) string {
	t.Helper()
	db := storetest.DB(t, e.store)
	ctx := context.Background()
	var b strings.Builder
	for _, q := range []string{
		"SELECT id, company_id, url, events, secret, enabled, COALESCE(previous_secret, '') FROM webhooks ORDER BY id",
		"SELECT id, event_id, webhook_id, status, attempts FROM webhook_deliveries ORDER BY id",
		"SELECT id, public_id, company_id, type FROM webhook_events ORDER BY id",
		"SELECT id, company_id, name, scope, disabled, prefix, key_hash, COALESCE(trainer_id, 0), own_trainees_only, " +
			"COALESCE(expires_at, created_at) = created_at, revoked_at IS NULL FROM api_keys ORDER BY id",
		"SELECT id, key_id, key_hash FROM api_key_secrets ORDER BY id",
		"SELECT id, company_id, user_id, active FROM trainers ORDER BY id",
		"SELECT id, name, time_zone FROM companies ORDER BY id",
		"SELECT id, company_id, user_id, enabled, COALESCE(expiration_date, 0), COALESCE(trainer_id, 0) FROM trainees ORDER BY id",
		"SELECT id, name, email, COALESCE(phone, '') FROM users ORDER BY id",
	} {
		rows, err := db.QueryContext(ctx, q)
		must(t, err)
		cols, _ := rows.Columns()
		for rows.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			must(t, rows.Scan(ptrs...))
			for _, v := range vals {
				if bs, ok := v.([]byte); ok {
					v = string(bs)
				}
				fmt.Fprintf(&b, "%v|", v)
			}
			b.WriteString("\n")
		}
		must(t, rows.Err())
		rows.Close()
	}
	return b.String()
}
