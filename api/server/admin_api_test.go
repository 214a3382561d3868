package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/server"
	"github.com/traineed/traineed/store"
	"github.com/traineed/traineed/store/storetest"
)

func keyPath(id int64, rest string) string {
	return api.PathKeys + "/" + strconv.FormatInt(id, 10) + rest
}
func trainerPath(id int64, rest string) string {
	return api.PathTrainers + "/" + strconv.FormatInt(id, 10) + rest
}

// adminKey makes an admin key of company (the operator's bootstrap).
func (e *env) adminKey(company int64) string {
	return e.scopedKey(company, api.NewKey{Name: "owner", Scope: api.KeyScopeAdmin})
}

// keyEnvelope decodes a key answer.
func (r *resp) key(t testing.TB) *api.KeyEnvelope {
	t.Helper()
	var env api.KeyEnvelope
	r.JSON(t, &env)
	if env.Key == nil {
		t.Fatalf("not a key envelope: %s", r.Body)
	}
	return &env
}

// expectCode asserts status and the JSON error's first code.
func (r *resp) expectCode(t testing.TB, status, code int) {
	t.Helper()
	r.expect(t, status)
	var b api.ErrorBody
	r.JSON(t, &b)
	if b.ErrorCode != code || len(b.Errors) == 0 || b.Errors[0].ErrorCode != code {
		t.Fatalf("error %d, want %d: %s", b.ErrorCode, code, r.Body)
	}
}

// A key's whole life over the API: made with its secret shown once,
// listed and read without it, used, renamed, disabled and enabled,
// rotated with an overlap in which both secrets work, revoked: refused
// from the next request on, listed as revoked only when asked.
func TestKeyLifecycle(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		admin := e.adminKey(e.companyA)
		created := e.do("POST", api.PathKeys, admin, map[string]any{"name": " CRM sync ", "scope": "full"}).expect(t, 200).key(t)
		k, secret := created.Key, created.Secret
		if !api.WellFormedKey(secret) || k.Prefix != secret[:8] || k.Name != "CRM sync" || k.Scope != "full" || k.State != "active" ||
			k.CreatedBy == nil || k.CreatedBy.Type != api.ActorKey || k.CreatedBy.Name != "owner" || k.LastUsedAt != nil || k.TrainerID != nil {
			t.Fatalf("created %+v", k)
		}
		e.do("GET", api.PathSearch, secret, nil).expect(t, 200)
		got := e.do("GET", keyPath(k.ID, ""), admin, nil).expect(t, 200)
		if strings.Contains(string(got.Body), secret) || got.key(t).Secret != "" {
			t.Fatalf("GET shows the secret: %s", got.Body)
		}
		var list api.KeyList
		e.do("GET", api.PathKeys+"?limit=1", admin, nil).expect(t, 200).JSON(t, &list)
		if len(list.Keys) != 1 || !list.Page.HasMore || list.Page.NextCursor == nil {
			t.Fatalf("first page %+v", list)
		}
		var rest api.KeyList
		e.do("GET", api.PathKeys+"?limit=100&after="+*list.Page.NextCursor, admin, nil).expect(t, 200).JSON(t, &rest)
		if len(rest.Keys) != 2 || rest.Page.HasMore || rest.Keys[1].ID != k.ID { // the env's, the owner, the new one
			t.Fatalf("second page %+v", rest)
		}

		renamed := e.do("PATCH", keyPath(k.ID, ""), admin, map[string]any{"name": "CRM sync 2027", "enabled": false}).expect(t, 200).key(t).Key
		if renamed.Name != "CRM sync 2027" || renamed.State != api.KeyDisabled {
			t.Fatalf("patched %+v", renamed)
		}
		e.do("GET", api.PathSearch, secret, nil).expect(t, 401)
		e.do("PATCH", keyPath(k.ID, ""), admin, map[string]any{"enabled": true}).expect(t, 200)
		e.do("PATCH", keyPath(k.ID, ""), admin, map[string]any{"trainerId": e.trainerA[0]}).expectError(t, api.CodeInvalidParameter, "trainerId")

		// Rotation: both secrets work during the overlap.
		rot := e.do("POST", keyPath(k.ID, "/rotate"), admin, map[string]any{"overlapSeconds": 3600}).expect(t, 200).key(t)
		if rot.Secret == secret || !api.WellFormedKey(rot.Secret) || rot.Key.Prefix != rot.Secret[:8] || rot.Key.PreviousSecretExpiresAt == nil ||
			rot.Key.PreviousSecretExpiresAt.Sub(time.Now()) < 59*time.Minute || rot.Key.ID != k.ID {
			t.Fatalf("rotated %+v", rot.Key)
		}
		e.do("GET", api.PathSearch, secret, nil).expect(t, 200)
		e.do("GET", api.PathSearch, rot.Secret, nil).expect(t, 200)
		e.do("POST", keyPath(k.ID, "/rotate"), admin, map[string]any{"overlapSeconds": 604801}).expectError(t, api.CodeInvalidParameter, "overlapSeconds")
		// A second rotation (a retried one, say) never cuts the first
		// one's overlap short: every secret rotated out works until its
		// own overlap ends.
		again := e.do("POST", keyPath(k.ID, "/rotate"), admin, map[string]any{"overlapSeconds": 60}).expect(t, 200).key(t)
		for _, s := range []string{secret, rot.Secret, again.Secret} {
			e.do("GET", api.PathSearch, s, nil).expect(t, 200)
		}
		if again.Key.PreviousSecretExpiresAt == nil || !again.Key.PreviousSecretExpiresAt.Equal(*rot.Key.PreviousSecretExpiresAt) {
			t.Fatalf("after a second rotation the previous secrets work until %v, want the first overlap's end %v", again.Key.PreviousSecretExpiresAt, rot.Key.PreviousSecretExpiresAt)
		}
		rot = again

		// Revoked: refused at once, both secrets; kept for the feed.
		rv := e.do("DELETE", keyPath(k.ID, ""), admin, nil).expect(t, 200).key(t).Key
		if rv.State != api.KeyRevoked || rv.RevokedAt == nil || rv.PreviousSecretExpiresAt != nil {
			t.Fatalf("revoked %+v", rv)
		}
		e.do("GET", api.PathSearch, rot.Secret, nil).expect(t, 401)
		e.do("GET", api.PathSearch, secret, nil).expect(t, 401)
		e.do("DELETE", keyPath(k.ID, ""), admin, nil).expect(t, 200) // again: the same answer
		e.do("PATCH", keyPath(k.ID, ""), admin, map[string]any{"enabled": true}).expectCode(t, http.StatusConflict, api.CodeKeyRevoked)
		e.do("POST", keyPath(k.ID, "/rotate"), admin, nil).expectCode(t, http.StatusConflict, api.CodeKeyRevoked)
		e.do("GET", api.PathKeys, admin, nil).expect(t, 200).JSON(t, &list)
		for _, l := range list.Keys {
			if l.ID == k.ID {
				t.Fatal("a revoked key is listed by default")
			}
		}
		e.do("GET", api.PathKeys+"?state=revoked", admin, nil).expect(t, 200).JSON(t, &list)
		if len(list.Keys) != 1 || list.Keys[0].ID != k.ID {
			t.Fatalf("revoked keys %+v", list.Keys)
		}
		e.do("GET", api.PathKeys+"?state=gone", admin, nil).expectError(t, api.CodeInvalidParameter, "state")

		// Another company's key id: the JSON 404.
		e.do("GET", keyPath(k.ID, ""), e.adminKey(e.companyB), nil).expectCode(t, http.StatusNotFound, api.CodeNotFound)
	})
}

// A key past its expiry, and a rotated key's previous secret past the
// overlap, are refused on the next request, by every instance: the times
// are moved into the past in the database, as time would.
func TestKeyExpiryAndOverlapEnd(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		admin := e.adminKey(e.companyA)
		soon := time.Now().Add(time.Hour).UTC().Format(time.RFC3339)
		c := e.do("POST", api.PathKeys, admin, map[string]any{"name": "temp", "scope": "read", "expiresAt": soon}).expect(t, 200).key(t)
		if c.Key.ExpiresAt == nil || c.Key.ExpiresAt.Format(time.RFC3339) != soon {
			t.Fatalf("expiry %+v", c.Key)
		}
		e.do("GET", api.PathSearch, c.Secret, nil).expect(t, 200)
		db := storetest.DB(t, e.store)
		past := time.Now().Add(-time.Minute).UTC()
		_, err := db.NewRaw("UPDATE api_keys SET expires_at = ? WHERE id = ?", past, c.Key.ID).Exec(context.Background())
		must(t, err)
		e.do("GET", api.PathSearch, c.Secret, nil).expect(t, 401)
		e.do("GET", "/public-api/trainees/1", c.Secret, nil).expect(t, 401) // the one-statement read too
		if got := e.do("GET", keyPath(c.Key.ID, ""), admin, nil).expect(t, 200).key(t).Key; got.State != api.KeyExpired {
			t.Fatalf("state %s", got.State)
		}
		e.do("POST", api.PathKeys, admin, map[string]any{"name": "late", "scope": "read", "expiresAt": fixedNow.Add(-time.Minute).Format(time.RFC3339)}).
			expectError(t, api.CodeInvalidDate, "expiresAt")

		r := e.do("POST", api.PathKeys, admin, map[string]any{"name": "rotating", "scope": "read"}).expect(t, 200).key(t)
		rot := e.do("POST", keyPath(r.Key.ID, "/rotate"), admin, nil).expect(t, 200).key(t)
		if d := rot.Key.PreviousSecretExpiresAt.Sub(time.Now()); d < 23*time.Hour || d > 25*time.Hour {
			t.Fatalf("default overlap ends in %s", d)
		}
		e.do("GET", api.PathSearch, r.Secret, nil).expect(t, 200)
		_, err = db.NewRaw("UPDATE api_key_secrets SET expires_at = ? WHERE key_id = ?", past, r.Key.ID).Exec(context.Background())
		must(t, err)
		e.do("GET", api.PathSearch, r.Secret, nil).expect(t, 401)
		e.do("GET", api.PathSearch, rot.Secret, nil).expect(t, 200)
		// An overlap of 0 refuses the old secret at once.
		now := e.do("POST", keyPath(r.Key.ID, "/rotate"), admin, map[string]any{"overlapSeconds": 0}).expect(t, 200).key(t)
		e.do("GET", api.PathSearch, rot.Secret, nil).expect(t, 401)
		e.do("GET", api.PathSearch, now.Secret, nil).expect(t, 200)
	})
}

// Escalation: a full key cannot make or change keys; a key never changes
// its own scope; a key limited to its trainer's trainees is refused every
// key route; such a key cannot be made with the admin scope. Nothing
// changes in any of these.
func TestKeyEscalationRefused(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		admin := e.adminKey(e.companyA)
		limited := e.scopedKey(e.companyA, api.NewKey{Name: "coach", Scope: api.KeyScopeFull, TrainerID: &e.trainerA[0], OwnTraineesOnly: true})
		reader := e.readKey(e.companyA)
		var cur api.CurrentKeyEnvelope
		e.do("GET", api.PathCurrentKey, admin, nil).expect(t, 200).JSON(t, &cur)
		before := snapshot(t, e)
		e.do("POST", api.PathKeys, e.keyA, map[string]any{"name": "mine", "scope": "admin"}).expectCode(t, http.StatusForbidden, api.CodeAdminScope)
		e.do("POST", api.PathKeys, reader, map[string]any{"name": "mine", "scope": "read"}).expectCode(t, http.StatusForbidden, api.CodeReadOnlyKey)
		e.do("POST", api.PathKeys, limited, map[string]any{"name": "free", "scope": "full"}).expectCode(t, http.StatusForbidden, api.CodeAdminScope)
		e.do("PATCH", keyPath(cur.Key.ID, ""), admin, map[string]any{"scope": "read"}).expectCode(t, http.StatusForbidden, api.CodeEscalation)
		e.do("PATCH", keyPath(cur.Key.ID, ""), admin, map[string]any{"scope": "admin"}).expectCode(t, http.StatusForbidden, api.CodeEscalation)
		e.do("POST", api.PathKeys, admin, map[string]any{"name": "x", "scope": "admin", "trainerId": e.trainerA[0], "ownTraineesOnly": true}).
			expectError(t, api.CodeInvalidEnum, "scope")
		e.do("POST", api.PathKeys, admin, map[string]any{"name": "x", "scope": "full", "ownTraineesOnly": true}).expectError(t, api.CodeRequired, "trainerId")
		e.do("POST", api.PathKeys, admin, map[string]any{"name": "x", "scope": "root"}).expectError(t, api.CodeInvalidEnum, "scope")
		e.do("POST", api.PathKeys, admin, map[string]any{"name": "x", "scope": "full", "trainerId": e.trainerB}).expectError(t, api.CodeUnknownTrainer, "trainerId")
		if after := snapshot(t, e); after != before {
			t.Fatalf("an escalation changed something:\n%s\n%s", before, after)
		}
	})
}

// The company's last enabled admin key without an expiry cannot be
// revoked, disabled, demoted or given an expiry (409 1032); with a second
// one, it can. Two revocations racing for the last two admin keys leave
// one.
func TestLastAdminKeyProtected(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		owner := e.adminKey(e.companyA)
		var cur api.CurrentKeyEnvelope
		e.do("GET", api.PathCurrentKey, owner, nil).expect(t, 200).JSON(t, &cur)
		id := cur.Key.ID
		in := time.Now().Add(48 * time.Hour).UTC().Format(time.RFC3339)
		for _, body := range []map[string]any{{"enabled": false}, {"expiresAt": in}} {
			e.do("PATCH", keyPath(id, ""), owner, body).expectCode(t, http.StatusConflict, api.CodeLastAdminKey)
		}
		e.do("DELETE", keyPath(id, ""), owner, nil).expectCode(t, http.StatusConflict, api.CodeLastAdminKey)
		// An expiring admin key does not keep the company administrable.
		temp := e.do("POST", api.PathKeys, owner, map[string]any{"name": "temp admin", "scope": "admin", "expiresAt": in}).expect(t, 200).key(t)
		e.do("DELETE", keyPath(id, ""), temp.Secret, nil).expectCode(t, http.StatusConflict, api.CodeLastAdminKey)
		e.do("PATCH", keyPath(id, ""), temp.Secret, map[string]any{"scope": "full"}).expectCode(t, http.StatusConflict, api.CodeLastAdminKey)
		second := e.do("POST", api.PathKeys, owner, map[string]any{"name": "second owner", "scope": "admin"}).expect(t, 200).key(t)
		e.do("PATCH", keyPath(id, ""), second.Secret, map[string]any{"scope": "full"}).expect(t, 200)
		e.do("PATCH", keyPath(id, ""), second.Secret, map[string]any{"scope": "admin"}).expect(t, 200)
		// Deactivating the trainer of the last admin key is refused too.
		bound := e.do("POST", api.PathKeys, owner, map[string]any{"name": "coach admin", "scope": "admin", "trainerId": e.trainerA[1]}).expect(t, 200).key(t)
		e.do("DELETE", keyPath(id, ""), second.Secret, nil).expect(t, 200)
		e.do("DELETE", keyPath(second.Key.ID, ""), bound.Secret, nil).expect(t, 200)
		e.do("PATCH", trainerPath(e.trainerA[1], ""), bound.Secret, map[string]any{"active": false}).expectCode(t, http.StatusConflict, api.CodeLastAdminKey)

		// Racing: two admin keys revoke each other at once; one wins.
		x := e.do("POST", api.PathKeys, bound.Secret, map[string]any{"name": "x", "scope": "admin"}).expect(t, 200).key(t)
		e.do("DELETE", keyPath(bound.Key.ID, ""), x.Secret, nil).expect(t, 200)
		y := e.do("POST", api.PathKeys, x.Secret, map[string]any{"name": "y", "scope": "admin"}).expect(t, 200).key(t)
		var wg sync.WaitGroup
		codes := make([]int, 2)
		for i, c := range []struct {
			key string
			id  int64
		}{{x.Secret, y.Key.ID}, {y.Secret, x.Key.ID}} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				codes[i] = doOn(t, e.srv.URL, "DELETE", keyPath(c.id, ""), c.key, nil, nil).Status
			}()
		}
		wg.Wait()
		var list api.KeyList
		e.do("GET", api.PathKeys+"?state=active", owner, nil).expect(t, 401) // the owner was revoked above
		live := x.Secret
		if codes[0] != 200 {
			live = y.Secret
		}
		e.do("GET", api.PathKeys+"?state=active", live, nil).expect(t, 200).JSON(t, &list)
		admins := 0
		for _, k := range list.Keys {
			if k.Scope == api.KeyScopeAdmin && k.ExpiresAt == nil {
				admins++
			}
		}
		// The loser is refused by the state (409) or, when the winner
		// committed first, by its own revoked key (401).
		if admins != 1 || codes[0]+codes[1] != 200+409 && codes[0]+codes[1] != 200+401 {
			t.Fatalf("after the race: %d admin keys, answers %v", admins, codes)
		}
	})
}

// Administration events: key.created, key.updated, key.rotated,
// key.revoked, trainer.created, trainer.updated and company.updated are
// in the feed with their actor, and delivered to an endpoint subscribed to
// them (not to one created with the default events); no payload, feed
// item or delivery holds a secret or its hash.
func TestAdminEvents(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		owner := e.adminKey(e.companyA)
		rc := storetest.NewReceiver(t, nil)
		def := storetest.NewReceiver(t, nil)
		startDispatcher(t, e.store)
		e.do("POST", api.PathWebhooks, owner, map[string]any{"url": rc.URL, "events": api.AdminEventTypes}).expect(t, 200)
		e.do("POST", api.PathWebhooks, owner, map[string]any{"url": def.URL}).expect(t, 200)
		made := e.do("POST", api.PathKeys, owner, map[string]any{"name": "crm", "scope": "full", "trainerId": e.trainerA[0]}).expect(t, 200).key(t)
		e.do("PATCH", keyPath(made.Key.ID, ""), owner, map[string]any{"name": "crm 2"}).expect(t, 200)
		rot := e.do("POST", keyPath(made.Key.ID, "/rotate"), owner, nil).expect(t, 200).key(t)
		e.do("DELETE", keyPath(made.Key.ID, ""), owner, nil).expect(t, 200)
		tr := e.do("POST", api.PathTrainers, owner, map[string]any{"name": "Nia Coach", "email": "nia@a.example"}).expect(t, 200)
		var trainer api.TrainerEnvelope
		tr.JSON(t, &trainer)
		e.do("PATCH", trainerPath(trainer.Trainer.ID, ""), owner, map[string]any{"name": "Nia Trainer"}).expect(t, 200)
		e.do("PATCH", api.PathCompany, owner, map[string]any{"timeZone": "Europe/Dublin"}).expect(t, 200)
		e.do("PATCH", api.PathCompany, owner, map[string]any{"timeZone": "Europe/Dublin"}).expect(t, 200) // no change: no event

		var feed api.EventPage
		e.do("GET", api.PathEvents, owner, nil).expect(t, 200).JSON(t, &feed)
		want := []string{"key.created", "key.updated", "key.rotated", "key.revoked", "trainer.created", "trainer.updated", "company.updated"}
		var types []string
		for _, ev := range feed.Events {
			types = append(types, ev.Type)
			if ev.Actor == nil || ev.Actor.Type != api.ActorKey || ev.Actor.Name != "owner" {
				t.Errorf("%s actor %+v", ev.Type, ev.Actor)
			}
		}
		if strings.Join(types, ",") != strings.Join(want, ",") {
			t.Fatalf("feed %v, want %v", types, want)
		}
		var p api.AdminEvent
		must(t, json.Unmarshal(feed.Events[2].Payload, &p))
		if p.Data.Key == nil || p.Data.Key.ID != made.Key.ID || p.Data.Key.Prefix != rot.Secret[:8] || p.Data.Key.PreviousSecretExpiresAt == nil ||
			p.Data.Key.TrainerID == nil || *p.Data.Key.TrainerID != e.trainerA[0] || p.Data.Actor.Name != "owner" {
			t.Fatalf("key.rotated payload %s", feed.Events[2].Payload)
		}
		must(t, json.Unmarshal(feed.Events[6].Payload, &p))
		if p.Data.Company == nil || p.Data.Company.TimeZone != "Europe/Dublin" || strings.Join(p.Data.ChangedFields, ",") != "timeZone" {
			t.Fatalf("company.updated payload %s", feed.Events[6].Payload)
		}
		got := rc.Wait(t, len(want), 10*time.Second)
		all := string(e.do("GET", api.PathEvents, owner, nil).Body)
		for _, g := range got {
			all += string(g.Body)
		}
		for _, secret := range []string{made.Secret, rot.Secret} {
			h := api.HashKey(secret)
			for _, leak := range []string{secret, secret[3:], fmt.Sprintf("%x", h[:]), strings.TrimRight(jsonBytes(h[:]), `"`)[1:]} {
				if strings.Contains(all, leak) {
					t.Fatalf("a secret or its hash is in the events: %q", leak)
				}
			}
		}
		if n := def.Count(); n != 0 {
			t.Fatalf("an endpoint with the default events got %d administration events", n)
		}
	})
}

func jsonBytes(b []byte) string {
	out, _ := json.Marshal(b)
	return string(out)
}

// No secret of a key, nor its hash, is in the access log, the metrics,
// an error body, the feed or a webhook delivery, through a key's whole
// life: made, used (well and badly), rotated, refused, revoked.
func TestNoKeySecretAnywhere(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		var logs bytes.Buffer
		reg := prometheus.NewRegistry()
		e := newEnv(t, s, server.WithLogger(slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))),
			server.WithMetrics(server.NewMetrics(reg, reg), true))
		startDispatcher(t, e.store)
		rc := storetest.NewReceiver(t, nil)
		owner := e.adminKey(e.companyA)
		e.do("POST", api.PathWebhooks, owner, map[string]any{"url": rc.URL, "events": []string{"all"}}).expect(t, 400) // "all" is the CLI's word
		e.do("POST", api.PathWebhooks, owner, map[string]any{"url": rc.URL, "events": api.WebhookEventTypes}).expect(t, 200)
		var seen strings.Builder
		record := func(r *resp) *resp { seen.Write(r.Body); return r }
		made := record(e.do("POST", api.PathKeys, owner, map[string]any{"name": "crm", "scope": "read"}).expect(t, 200)).key(t)
		secrets := []string{made.Secret}
		seen.Reset() // the create's own answer is the one place the secret is
		record(e.do("POST", api.PathTrainees, made.Secret, newTraineeBody("Leak Test")).expect(t, 403))
		record(e.do("GET", "/public-api/trainees/999999", made.Secret, nil).expect(t, 500))
		record(e.do("GET", api.PathSearch+"?size=0", made.Secret, nil).expect(t, 400))
		record(e.do("GET", api.PathSearch, made.Secret[:len(made.Secret)-1]+"x", nil).expect(t, 401))
		rot := e.do("POST", keyPath(made.Key.ID, "/rotate"), owner, nil).expect(t, 200).key(t)
		secrets = append(secrets, rot.Secret)
		record(e.do("PATCH", keyPath(made.Key.ID, ""), owner, map[string]any{"scope": "root"}).expect(t, 400))
		record(e.do("DELETE", keyPath(made.Key.ID, ""), owner, nil).expect(t, 200))
		record(e.do("GET", api.PathSearch, rot.Secret, nil).expect(t, 401))
		record(e.do("GET", api.PathEvents, owner, nil).expect(t, 200))
		record(e.do("GET", api.PathKeys+"?state=all", owner, nil).expect(t, 200))
		for _, d := range rc.Wait(t, 3, 10*time.Second) { // created, rotated, revoked
			seen.Write(d.Body)
		}
		record(e.do("GET", "/metrics", "", nil).expect(t, 200))
		seen.Write(logs.Bytes())
		if logs.Len() == 0 {
			t.Fatal("nothing was logged: the test reads nothing")
		}
		all := seen.String()
		for _, secret := range secrets {
			h := api.HashKey(secret)
			for _, leak := range []string{secret, secret[3:23], fmt.Sprintf("%x", h[:]), strings.Trim(jsonBytes(h[:]), `"`)} {
				if strings.Contains(all, leak) {
					t.Fatalf("%q leaks", leak)
				}
			}
		}
	})
}
