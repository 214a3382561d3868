package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/apitest"
	"github.com/traineed/traineed/store"
	"github.com/traineed/traineed/store/storetest"
)

func TestWebhookCommands(t *testing.T) {
	storetest.EachURL(t, func(t *testing.T, db string) {
		cid := strings.TrimSpace(ok(t, db, "company", "create", "--name", "Hooked Gym"))
		ok(t, db, "trainer", "create", "--company", cid, "--name", "Coach", "--email", "coach@hooked.example")
		rc := storetest.NewReceiver(t, nil)

		// The receiver is on loopback: refused unless the operator opens it.
		if _, errOut, code := traineed(t, db, "webhook", "add", "--company", cid, "--url", rc.URL); code != 2 || !strings.Contains(errOut, "destination not allowed (loopback address 127.0.0.1)") {
			t.Fatalf("webhook add to loopback without --webhook-allow: exit %d, %s", code, errOut)
		}
		out := ok(t, db, "webhook", "add", "--company", cid, "--url", rc.URL, "--webhook-allow", "127.0.0.0/8")
		m := regexp.MustCompile(`^([1-9][0-9]*)\n(whsec_[A-Za-z0-9+/]{43}=)\n$`).FindStringSubmatch(out)
		if m == nil {
			t.Fatalf("webhook add printed %q", out)
		}
		hookID, secret := m[1], m[2]
		out = ok(t, db, "webhook", "add", "--company", cid, "--url", "https://audit.example/in", "--events", "trainee.deleted, trainee.restored")
		otherID := strings.SplitN(out, "\n", 2)[0]

		for _, c := range []struct {
			args []string
			code int
		}{
			{[]string{"--company", cid, "--url", "ftp://example.com/x"}, 2},
			{[]string{"--company", cid, "--url", "example.com/hook"}, 2},
			{[]string{"--company", cid, "--url", "https://audit.example/in", "--events", "trainee.archived"}, 2},
			{[]string{"--company", cid}, 2},
			{[]string{"--company", "999", "--url", "https://audit.example/in"}, 1},
			{[]string{"--company", cid, "--url", "http://user:pw@audit.example/in"}, 2},
			{[]string{"--company", cid, "--url", "http://audit.example/in", "--webhook-require-https"}, 2},
			{[]string{"--company", cid, "--url", rc.URL, "--webhook-allow", "not-a-cidr"}, 2},
		} {
			if _, errOut, code := traineed(t, db, append([]string{"webhook", "add"}, c.args...)...); code != c.code {
				t.Errorf("webhook add %v: exit %d, want %d (%s)", c.args, code, c.code, errOut)
			}
		}

		listed := ok(t, db, "webhook", "list", "--company", cid, "-o", "json")
		if strings.Contains(listed, "whsec_") {
			t.Fatal("webhook list shows a secret")
		}
		var raw []map[string]any
		must(t, json.Unmarshal([]byte(listed), &raw))
		if len(raw) != 2 {
			t.Fatalf("webhook list %s", listed)
		}
		var fields []string
		for k := range raw[0] {
			fields = append(fields, k)
		}
		slices.Sort(fields)
		if !slices.Equal(fields, []string{"companyId", "createdAt", "events", "id", "state", "url"}) {
			t.Fatalf("webhook list fields %v", fields)
		}
		var hooks []api.Webhook
		must(t, json.Unmarshal([]byte(listed), &hooks))
		if fmt.Sprint(hooks[0].ID) != hookID || hooks[0].URL != rc.URL || !slices.Equal(hooks[0].Events, api.TraineeEventTypes) ||
			hooks[0].State != "active" || !slices.Equal(hooks[1].Events, []string{"trainee.deleted", "trainee.restored"}) {
			t.Fatalf("webhook list %+v", hooks)
		}
		table := ok(t, db, "webhook", "list", "--company", cid)
		if !strings.Contains(table, rc.URL) || !strings.Contains(table, "trainee.*") || !strings.Contains(table, "trainee.deleted,trainee.restored") {
			t.Fatalf("webhook table %s", table)
		}

		// A change without a running server: a pending delivery.
		s, err := store.Open(context.Background(), db)
		must(t, err)
		var company int64
		fmt.Sscan(cid, &company)
		tr, err := s.CreateTrainee(context.Background(), company, api.NewTrainee{Name: "Cli Trainee", Email: "cli@example.com",
			PasswordHash: "$argon2id$test", WeightUnit: "KG", CreatedByType: "ADMIN", Enabled: true})
		must(t, err)
		must(t, s.Close())

		var rows []map[string]any
		must(t, json.Unmarshal([]byte(ok(t, db, "webhook", "deliveries", hookID, "-o", "json")), &rows))
		if len(rows) != 1 || rows[0]["attempt"] != 0.0 || rows[0]["state"] != "pending" || rows[0]["type"] != "trainee.created" ||
			rows[0]["statusCode"] != nil || rows[0]["nextAttemptAt"] == nil {
			t.Fatalf("deliveries %v", rows)
		}
		eventID, _ := rows[0]["eventId"].(string)
		if !strings.HasPrefix(eventID, "evt_") {
			t.Fatalf("event id %q", eventID)
		}
		if table := ok(t, db, "webhook", "deliveries", hookID); !strings.Contains(table, eventID) || !strings.Contains(table, "pending") {
			t.Fatalf("deliveries table %s", table)
		}
		if out := ok(t, db, "webhook", "deliveries", otherID, "-o", "json"); strings.TrimSpace(out) != "[]" {
			t.Fatalf("the deleted/restored webhook has deliveries %s", out)
		}

		// Redeliver schedules one more delivery, to the subscribed webhook.
		out = ok(t, db, "webhook", "redeliver", eventID)
		if !regexp.MustCompile(`^[1-9][0-9]*\n$`).MatchString(out) {
			t.Fatalf("redeliver printed %q", out)
		}
		must(t, json.Unmarshal([]byte(ok(t, db, "webhook", "deliveries", hookID, "-o", "json")), &rows))
		if len(rows) != 2 || rows[0]["eventId"] != eventID || rows[1]["eventId"] != eventID {
			t.Fatalf("after redeliver: %v", rows)
		}
		for _, c := range []struct {
			args []string
			code int
		}{
			{[]string{"redeliver", "evt_nosuchevent000000000000"}, 1},
			{[]string{"redeliver", "42"}, 2},
			{[]string{"deliveries", "999"}, 1},
			{[]string{"deliveries", "abc"}, 2},
			{[]string{"deliveries", hookID, "--limit", "0"}, 2},
			{[]string{"delete", "999"}, 1},
		} {
			if _, errOut, code := traineed(t, db, append([]string{"webhook"}, c.args...)...); code != c.code {
				t.Errorf("webhook %v: exit %d, want %d (%s)", c.args, code, c.code, errOut)
			}
		}

		// The server delivers both, signed with the secret add printed.
		_, cmd, logs := startServer(t, db, "--webhook-poll-interval", "50ms", "--webhook-allow", "127.0.0.0/8")
		got := rc.Wait(t, 2, 15*time.Second)
		for _, r := range got {
			if r.ID != eventID || r.Event.Data.Trainee.ID != tr.ID {
				t.Errorf("delivered %s %s", r.ID, r.Body)
			}
			if err := r.Verify(secret); err != nil {
				t.Errorf("signature: %v", err)
			}
		}
		stop(t, cmd, logs)

		ok(t, db, "webhook", "disable", hookID)
		if !strings.Contains(ok(t, db, "webhook", "list", "--company", cid), "disabled") {
			t.Fatal("disable did not show")
		}
		ok(t, db, "webhook", "enable", hookID)
		if out := ok(t, db, "webhook", "delete", otherID); out != "" {
			t.Fatalf("delete printed %q", out)
		}
		must(t, json.Unmarshal([]byte(ok(t, db, "webhook", "list", "--company", cid, "-o", "json")), &hooks))
		if len(hooks) != 1 || fmt.Sprint(hooks[0].ID) != hookID || hooks[0].State != "active" {
			t.Fatalf("after delete %+v", hooks)
		}
	})
}

func TestServeWebhookFlags(t *testing.T) {
	db := storetest.SQLiteURL(t)
	for _, args := range [][]string{
		{"--webhook-retry-schedule", "5s,soon"},
		{"--webhook-retry-schedule", "5s,-1s"},
		{"--webhook-timeout", "2s", "--webhook-lease", "1s"},
		{"--webhook-concurrency", "0"},
		{"--webhook-poll-interval", "0s"},
		{"--webhook-retention", "24h"}, // the event feed keeps 30 days
		{"--webhook-retention", "-1h"},
	} {
		if _, errOut, code := traineed(t, db, append([]string{"serve", "--addr", "127.0.0.1:0"}, args...)...); code != 2 {
			t.Errorf("serve %v: exit %d, want 2 (%s)", args, code, errOut)
		}
	}
}

// A server killed (SIGKILL) after a change committed and before its event
// was delivered, or in the middle of the attempt, delivers it once it runs
// again: the outbox and the lease survive the crash.
func TestWebhookSurvivesKill(t *testing.T) {
	storetest.EachURL(t, func(t *testing.T, db string) {
		cid := strings.TrimSpace(ok(t, db, "company", "create", "--name", "Crash Gym"))
		ok(t, db, "trainer", "create", "--company", cid, "--name", "Coach", "--email", "coach@crash.example")
		key := strings.TrimSpace(ok(t, db, "key", "create", "--company", cid, "--name", "crash"))
		hang := make(chan struct{}, 1)
		rc := storetest.NewReceiver(t, func(w http.ResponseWriter, r *http.Request, _ *storetest.Received, nth int) {
			if nth == 1 {
				hang <- struct{}{}
				<-r.Context().Done() // the sender dies mid-attempt
				return
			}
			w.WriteHeader(http.StatusOK)
		})
		out := ok(t, db, "webhook", "add", "--company", cid, "--url", rc.URL, "--webhook-allow", "127.0.0.0/8")
		hookID, secret, _ := strings.Cut(strings.TrimSpace(out), "\n")

		// 1. The change commits on a server that does not dispatch; it dies.
		base, cmd, _ := startServer(t, db, "--webhook-dispatch=false", "--webhook-allow", "127.0.0.0/8")
		req, _ := http.NewRequest("POST", base+"/public-api/trainees",
			strings.NewReader(`{"name":"Kill Me","email":"kill@example.com","password":"long enough"}`))
		req.Header.Set("X-API-Key", key)
		res, err := http.DefaultClient.Do(req)
		must(t, err)
		var env api.TraineeEnvelope
		must(t, json.NewDecoder(res.Body).Decode(&env))
		res.Body.Close()
		if res.StatusCode != 200 {
			t.Fatalf("create: %d", res.StatusCode)
		}
		must(t, cmd.Process.Kill())
		_ = cmd.Wait()
		if n := rc.Count(); n != 0 {
			t.Fatalf("a server started with --webhook-dispatch=false sent %d requests", n)
		}

		// 2. A dispatching server starts the attempt and is killed during it.
		flags := []string{"--webhook-timeout", "1s", "--webhook-lease", "2s", "--webhook-poll-interval", "50ms", "--webhook-retry-schedule", "200ms",
			"--webhook-allow", "127.0.0.0/8"}
		_, cmd, logs := startServer(t, db, flags...)
		select {
		case <-hang:
		case <-time.After(15 * time.Second):
			t.Fatalf("no delivery after restart: %s", logs.String())
		}
		must(t, cmd.Process.Kill())
		_ = cmd.Wait()
		killed := time.Now()

		// 3. Started again, it sends the event again once the lease expired.
		_, cmd, logs = startServer(t, db, flags...)
		got := rc.Wait(t, 2, 15*time.Second)
		if got[1].At.Sub(killed) > 10*time.Second {
			t.Errorf("redelivered %s after the crash", got[1].At.Sub(killed))
		}
		if got[0].ID != got[1].ID {
			t.Fatalf("webhook-id changed across the crash: %s, %s", got[0].ID, got[1].ID)
		}
		if err := got[1].Verify(secret); err != nil {
			t.Fatal(err)
		}
		if got[1].Event.Type != api.EventTraineeCreated || got[1].Event.Data.Trainee.ID != env.Trainee.ID {
			t.Fatalf("delivered %s", got[1].Body)
		}
		deadline := time.Now().Add(10 * time.Second)
		for {
			var rows []api.WebhookAttempt
			must(t, json.Unmarshal([]byte(ok(t, db, "webhook", "deliveries", hookID, "-o", "json")), &rows))
			if len(rows) == 1 && rows[0].State == api.DeliverySucceeded {
				if rows[0].Attempt != 1 || rows[0].StatusCode == nil || *rows[0].StatusCode != 200 {
					t.Fatalf("the killed attempt was recorded, or the new one not: %+v", rows[0])
				}
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("delivery not recorded: %+v\n%s", rows, logs.String())
			}
			time.Sleep(50 * time.Millisecond)
		}
		stop(t, cmd, logs)
	})
}

// stop sends SIGTERM and expects a clean exit.
func stop(t *testing.T, cmd *exec.Cmd, logs *strings.Builder) {
	t.Helper()
	must(t, cmd.Process.Signal(syscall.SIGTERM))
	if err := cmd.Wait(); err != nil {
		t.Fatalf("server exit: %v\n%s", err, logs.String())
	}
}

// serve disables, when it starts, the endpoints its outbound policy
// refuses (registered before the rule, or under a wider --webhook-allow),
// logs each once, and `webhook list` shows why; a wrong outbound flag is a
// usage error.
func TestServeDisablesRefusedEndpoints(t *testing.T) {
	db := storetest.SQLiteURL(t)
	cid := strings.TrimSpace(ok(t, db, "company", "create", "--name", "Old Hooks"))
	id := strings.SplitN(ok(t, db, "webhook", "add", "--company", cid, "--url", "http://127.0.0.1:9/in", "--webhook-allow", "127.0.0.1"), "\n", 2)[0]
	ok(t, db, "webhook", "add", "--company", cid, "--url", "https://crm.example/in")

	_, cmd, logs := startServer(t, db)
	stop(t, cmd, logs)
	if n := strings.Count(logs.String(), "the outbound policy refuses its URL"); n != 1 || !strings.Contains(logs.String(), "loopback address 127.0.0.1") {
		t.Fatalf("%d log lines: %s", n, logs.String())
	}
	var hooks []map[string]any
	must(t, json.Unmarshal([]byte(ok(t, db, "webhook", "list", "--company", cid, "-o", "json")), &hooks))
	if hooks[0]["state"] != "disabled" || hooks[0]["disabledReason"] != "destination not allowed (loopback address 127.0.0.1)" ||
		hooks[1]["state"] != "active" || hooks[1]["disabledReason"] != nil {
		t.Fatalf("webhook list %v", hooks)
	}
	if table := ok(t, db, "webhook", "list", "--company", cid); !strings.Contains(table, "REASON") || !strings.Contains(table, "loopback address 127.0.0.1") {
		t.Fatalf("table %s", table)
	}
	// Started again, it has nothing more to disable.
	_, cmd, logs = startServer(t, db)
	stop(t, cmd, logs)
	if strings.Contains(logs.String(), "refuses its URL") {
		t.Fatalf("logged again: %s", logs.String())
	}
	// Enabled again by the operator: allowed by the flag, it stays enabled.
	ok(t, db, "webhook", "enable", id)
	_, cmd, logs = startServer(t, db, "--webhook-allow", "127.0.0.0/8")
	stop(t, cmd, logs)
	if strings.Contains(logs.String(), "refuses its URL") {
		t.Fatalf("an allowed endpoint was disabled: %s", logs.String())
	}
	for _, bad := range [][]string{{"--webhook-allow", "10.0.0.0/99"}, {"--webhook-proxy", "socks5://x"}, {"--max-webhooks", "-1"}, {"--webhook-endpoint-concurrency", "0"}, {"--webhook-chain", "0"}, {"--webhook-chain-window", "0s"}} {
		if _, errOut, code := traineed(t, db, append([]string{"serve", "--addr", "127.0.0.1:0"}, bad...)...); code != 2 {
			t.Errorf("serve %v: exit %d (%s)", bad, code, errOut)
		}
	}
}

// traineed webhook add judges a URL as the API does (apitest.URLCases, the
// cases of TestOneURLRuleOverTheAPI): by the same rule and the same
// policy, each refusal a usage error (exit 2) naming the API's errorCode,
// and nothing refused is stored.
func TestWebhookAddJudgesURLsLikeTheAPI(t *testing.T) {
	storetest.EachURL(t, func(t *testing.T, db string) {
		cid := strings.TrimSpace(ok(t, db, "company", "create", "--name", "Rule Gym"))
		added := 0
		for _, c := range apitest.URLCases() {
			out, errOut, code := traineed(t, db, "webhook", "add", "--company", cid, "--url", c.URL)
			switch {
			case c.Code == 0 && code != 0:
				t.Errorf("%s: exit %d, want accepted: %s", c.Name, code, errOut)
			case c.Code == 0:
				added++
			case code != 2 || out != "" || !strings.Contains(errOut, fmt.Sprintf("(%d)", c.Code)) || len(errOut) > 500:
				t.Errorf("%s: exit %d, want 2 with errorCode %d: %.500s", c.Name, code, c.Code, errOut)
			}
		}
		var hooks []api.Webhook
		must(t, json.Unmarshal([]byte(ok(t, db, "webhook", "list", "--company", cid, "-o", "json")), &hooks))
		if len(hooks) != added || added == 0 {
			t.Fatalf("%d webhooks stored, want %d", len(hooks), added)
		}
	})
}
