package server_test

import (
	"context"
	"encoding/json"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/jobs"
	"github.com/traineed/traineed/store"
	"github.com/traineed/traineed/store/storetest"
)

// Every change through the API reaches the company's endpoints as the
// contract's event, signed with the endpoint's secret; requests that change
// nothing or are rejected send nothing; other companies' endpoints get
// nothing; an endpoint's event filter holds.
func TestWebhookEventsThroughTheAPI(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		ctx := context.Background()
		all := storetest.NewReceiver(t, nil)
		lifecycle := storetest.NewReceiver(t, nil) // only deleted and restored
		other := storetest.NewReceiver(t, nil)     // company B's
		secretAll, secretLife, secretB := api.GenerateWebhookSecret(), api.GenerateWebhookSecret(), api.GenerateWebhookSecret()
		_, err := e.store.CreateWebhook(ctx, e.companyA, all.URL, api.WebhookEventTypes, secretAll)
		must(t, err)
		_, err = e.store.CreateWebhook(ctx, e.companyA, lifecycle.URL, []string{api.EventTraineeDeleted, api.EventTraineeRestored}, secretLife)
		must(t, err)
		_, err = e.store.CreateWebhook(ctx, e.companyB, other.URL, nil, secretB)
		must(t, err)
		startDispatcher(t, e.store)

		// next waits for rc's nth request and checks it is a signed event of
		// typ about want with exactly fields changed.
		next := func(rc *storetest.Receiver, secret string, n int, typ string, want *api.Trainee, fields ...string) *storetest.Received {
			t.Helper()
			got := rc.Wait(t, n, 10*time.Second)[n-1]
			if err := got.Verify(secret); err != nil {
				t.Fatalf("event %d (%s): signature: %v", n, got.Body, err)
			}
			if !regexp.MustCompile(`^v1,[A-Za-z0-9+/]{43}=$`).MatchString(got.Header.Get("webhook-signature")) ||
				!regexp.MustCompile(`^evt_[A-Za-z0-9]{24}$`).MatchString(got.ID) ||
				got.Header.Get("Content-Type") != "application/json" {
				t.Fatalf("event %d headers %v", n, got.Header)
			}
			ts, _ := strconv.ParseInt(got.Timestamp, 10, 64)
			if d := time.Since(time.Unix(ts, 0)); d < -2*time.Second || d > 30*time.Second {
				t.Fatalf("webhook-timestamp %s is not now", got.Timestamp)
			}
			if d := time.Since(time.Unix(got.Event.Timestamp, 0)); d < -2*time.Second || d > 30*time.Second {
				t.Fatalf("event timestamp %d is not the time of the change", got.Event.Timestamp)
			}
			if got.Event.Type != typ {
				t.Fatalf("event %d type %q, want %q: %s", n, got.Event.Type, typ, got.Body)
			}
			if !reflect.DeepEqual(got.Event.Data.Trainee, want) {
				t.Fatalf("event %d trainee\n%+v\nwant the API's\n%+v", n, got.Event.Data.Trainee, want)
			}
			if !slices.Equal(got.Event.Data.ChangedFields, fields) {
				t.Fatalf("event %d (%s) changedFields %q, want %q", n, typ, got.Event.Data.ChangedFields, fields)
			}
			validateWebhookBody(t, got.Body)
			return got
		}

		body := newTraineeBody("Ada Park")
		body["phoneNumber"] = "+44 7700 900123"
		body["dateOfBirth"] = "02-03-1990"
		ada := e.create(e.keyA, body)
		created := next(all, secretAll, 1, api.EventTraineeCreated, ada,
			"name", "email", "phoneNumber", "dateOfBirth", "enabled", "trainerId", "forcePasswordChange", "weightUnit", "password")

		put := func(id int64, b any) *api.Trainee {
			t.Helper()
			return e.do("PUT", "/public-api/trainees/"+strconv.FormatInt(id, 10), e.keyA, b).expect(t, 200).trainee(t)
		}
		ada = put(ada.ID, map[string]any{"name": "Ada Lovelace", "email": "ada.lovelace@example.com", "forcePasswordChange": false})
		updated := next(all, secretAll, 2, api.EventTraineeUpdated, ada, "name", "email", "forcePasswordChange")
		if updated.ID == created.ID {
			t.Fatal("two events share a webhook-id")
		}
		ada = put(ada.ID, map[string]any{"password": "a new password"})
		next(all, secretAll, 3, api.EventTraineeUpdated, ada, "forcePasswordChange", "password")
		if regexp.MustCompile(`a new password`).Match(all.Received()[2].Body) {
			t.Fatal("the password travels in the event")
		}
		ada = put(ada.ID, map[string]any{"phoneNumber": nil, "expirationDate": "01-01-2030", "trainerId": e.trainerA[1], "weightUnit": "LB"})
		next(all, secretAll, 4, api.EventTraineeUpdated, ada, "phoneNumber", "expirationDate", "trainerId", "weightUnit")

		// Nothing changes, or the request is refused: no event.
		put(ada.ID, map[string]any{})
		put(ada.ID, map[string]any{"name": "Ada Lovelace", "weightUnit": "LB"})
		bob := e.create(e.keyA, newTraineeBody("Bob Stone"))
		next(all, secretAll, 5, api.EventTraineeCreated, bob,
			"name", "email", "enabled", "trainerId", "forcePasswordChange", "weightUnit", "password")
		e.do("PUT", "/public-api/trainees/"+strconv.FormatInt(bob.ID, 10), e.keyA, map[string]any{"email": ada.Email}).expectError(t, api.CodeEmailTaken, "email")
		e.do("PUT", "/public-api/trainees/"+strconv.FormatInt(bob.ID, 10), e.keyA, map[string]any{"name": "Bob", "trainerId": e.trainerB}).expectError(t, api.CodeUnknownTrainer, "trainerId")
		e.do("POST", "/public-api/trainees", e.keyA, map[string]any{"name": "Dup", "email": bob.Email, "password": "long enough"}).expectError(t, api.CodeEmailTaken, "email")
		e.do("PUT", "/public-api/trainees/"+strconv.FormatInt(bob.ID, 10), e.keyB, map[string]any{"name": "Not yours"}).expectNotFound(t)

		// Soft delete, again, restore; PUT enabled false with another field.
		ada = e.do("DELETE", "/public-api/trainees/"+strconv.FormatInt(ada.ID, 10), e.keyA, nil).expect(t, 200).trainee(t)
		next(all, secretAll, 6, api.EventTraineeDeleted, ada, "enabled")
		next(lifecycle, secretLife, 1, api.EventTraineeDeleted, ada, "enabled")
		e.do("DELETE", "/public-api/trainees/"+strconv.FormatInt(ada.ID, 10), e.keyA, nil).expect(t, 200)
		ada = put(ada.ID, map[string]any{"enabled": true})
		next(all, secretAll, 7, api.EventTraineeRestored, ada, "enabled")
		next(lifecycle, secretLife, 2, api.EventTraineeRestored, ada, "enabled")
		ada = put(ada.ID, map[string]any{"enabled": false, "name": "Ada L."})
		next(all, secretAll, 8, api.EventTraineeDeleted, ada, "name", "enabled")
		next(lifecycle, secretLife, 3, api.EventTraineeDeleted, ada, "name", "enabled")

		// Company B's change reaches B's endpoint only.
		bea := e.create(e.keyB, newTraineeBody("Bea Ray"))
		next(other, secretB, 1, api.EventTraineeCreated, bea,
			"name", "email", "enabled", "trainerId", "forcePasswordChange", "weightUnit", "password")

		waitDelivered(t, e.store)
		if n := all.Count(); n != 8 {
			t.Errorf("company A's endpoint got %d events, want 8", n)
		}
		if n := lifecycle.Count(); n != 3 {
			t.Errorf("the deleted/restored endpoint got %d events, want 3", n)
		}
		if n := other.Count(); n != 1 {
			t.Errorf("company B's endpoint got %d events, want 1", n)
		}
		for _, got := range append(all.Received(), lifecycle.Received()...) {
			if got.Event.Data.Trainee.CompanyID != e.companyA {
				t.Errorf("company A's endpoint got %s", got.Body)
			}
		}
		if err := other.Received()[0].Verify(secretAll); err == nil {
			t.Error("company B's event verifies with company A's secret")
		}
	})
}

// startDispatcher runs a dispatcher over s that polls often, stopped when
// the test ends.
func startDispatcher(t *testing.T, s *store.Store) {
	t.Helper()
	d, err := jobs.NewDispatcher(s, jobs.DispatcherConfig{Outbound: storetest.LoopbackOutbound(), PollInterval: 20 * time.Millisecond, Timeout: 5 * time.Second})
	must(t, err)
	d.Start()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := d.Shutdown(ctx); err != nil {
			t.Errorf("dispatcher shutdown: %v", err)
		}
	})
}

// waitDelivered waits until no delivery is pending.
func waitDelivered(t *testing.T, s *store.Store) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		n, err := storetest.DB(t, s).NewSelect().Table("webhook_deliveries").Where("status = ?", api.DeliveryPending).Count(context.Background())
		must(t, err)
		if n == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d deliveries still pending", n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// validateWebhookBody checks a delivered body against openapi.yaml's
// WebhookEvent schema.
func validateWebhookBody(t *testing.T, body []byte) {
	t.Helper()
	doc, err := openapi3.NewLoader().LoadFromData(api.OpenAPIDocument)
	must(t, err)
	ref := doc.Components.Schemas["WebhookEvent"]
	if ref == nil {
		t.Fatal("openapi.yaml has no WebhookEvent schema")
	}
	var v any
	must(t, json.Unmarshal(body, &v))
	if err := ref.Value.VisitJSON(v); err != nil {
		t.Fatalf("webhook body does not match openapi.yaml's WebhookEvent: %v\n%s", err, body)
	}
}
