package commands_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/apitest"
	"github.com/traineed/traineed/cmd/traineectl/internal/cmdutil"
)

// The mistakes of the administration commands are found before anything
// is sent: exit 2, no request.
func TestAdminUsageErrorsSendNothing(t *testing.T) {
	s := newStubAPI(t)
	h := newHarness(t, s.URL, stubKey)
	for _, args := range [][]string{
		{"keys", "create", "--name", "x", "--scope", "root"},
		{"keys", "create", "--name", "x", "--scope", "full", "--expires", "yesterday"},
		{"keys", "create", "--name", "x", "--scope", "full", "--own-trainees-only"},
		{"keys", "create", "--name", "x", "--scope", "admin", "--trainer", "7", "--own-trainees-only"},
		{"keys", "create", "--name", strings.Repeat("x", 101), "--scope", "full"},
		{"keys", "update", "5"},
		{"keys", "update", "5", "--expires", "soon"},
		{"keys", "update", "5", "--name", " "},
		{"keys", "rotate", "5", "--overlap", "9d"},
		{"keys", "revoke", "5"},
		{"keys", "revoke", "5", "--confirm", ""},
		{"keys", "list", "--state", "lost"},
		{"keys", "get", "05"},
		{"trainers", "create", "--name", "x", "--email", "not-an-address"},
		{"trainers", "update", "7"},
		{"trainers", "get", "0"},
		{"trainers", "reassign", "7", "--to", "8"},
		{"trainers", "deactivate", "7", "--reassign-to", ""},
		{"company", "update"},
		{"company", "update", "--time-zone", "Nowhere/Special"},
	} {
		r := h.run(args...)
		if r.code != cmdutil.ExitUsage || r.out != "" {
			t.Errorf("%v: %s", args, r)
		}
		if reqs := s.allRequests(); len(reqs) > 0 {
			t.Fatalf("%v sent %v", args, reqs)
		}
	}
}

// Whatever a server sends as a key's, a trainer's or the company's text
// reaches no terminal raw, in any format, on stdout or stderr.
func TestAdminHostileServerText(t *testing.T) {
	hostile := apitest.Hostile
	trainer := int64(7)
	key := &api.APIKey{ID: 5, Name: hostile, Prefix: hostile, Scope: hostile, TrainerID: &trainer, TrainerName: &hostile,
		CreatedAt: testNow, CreatedBy: &api.Actor{Type: api.ActorKey, ID: 2, Name: hostile}, LastUsedAt: &testNow,
		ExpiresAt: &testNow, PreviousSecretExpiresAt: &testNow, State: hostile}
	tr := api.TrainerSummary{ID: 7, Name: hostile, Email: hostile, Active: true}
	co := &api.Company{ID: 1, Name: hostile, TimeZone: hostile, CreatedAt: testNow}
	body := func(v any) string {
		b, err := json.Marshal(v)
		must(t, err)
		return string(b)
	}
	s := newStubAPI(t)
	s.handle("GET /public-api/keys", 200, body(api.KeyList{Keys: []*api.APIKey{key}}))
	s.handle("GET /public-api/keys/5", 200, body(api.KeyEnvelope{Key: key}))
	s.handle("POST /public-api/keys", 200, body(api.KeyEnvelope{Key: key, Secret: hostile}))
	s.handle("POST /public-api/keys/5/rotate", 200, body(api.KeyEnvelope{Key: key, Secret: hostile}))
	s.handle("GET /public-api/keys/current", 200, body(api.CurrentKeyEnvelope{Key: &api.CurrentKey{ID: 2, Name: hostile, Prefix: hostile,
		Scope: hostile, CompanyName: hostile, TrainerID: &trainer, TrainerName: &hostile, ExpiresAt: &testNow}}))
	s.handle("GET /public-api/trainers", 200, body(api.TrainerList{Trainers: []api.TrainerSummary{tr}}))
	s.handle("GET /public-api/trainers/7", 200, body(api.TrainerEnvelope{Trainer: &tr}))
	s.handle("POST /public-api/trainers/7/reassign", 200, body(api.ReassignResult{From: &tr, To: &tr, Moved: 2}))
	s.handle("GET /public-api/company", 200, body(api.CompanyEnvelope{Company: co}))
	s.handle("PATCH /public-api/trainers/7", 409, body(api.ErrorBody{ErrorCode: api.CodeTrainerHasTrainees, Message: hostile, Field: "reassignTo"}))
	h := newHarness(t, s.URL, stubKey)
	for _, args := range [][]string{
		{"keys", "list"}, {"keys", "get", "5"}, {"keys", "create", "--name", "x", "--scope", "full"}, {"keys", "rotate", "5"},
		{"trainers", "list"}, {"trainers", "get", "7"}, {"trainers", "reassign", "7", "--to", "7", "--yes"}, {"company", "get"}, {"whoami"},
	} {
		for _, format := range [][]string{{}, {"-o", "csv"}, {"-o", "json"}, {"-o", "yaml"}} {
			for _, tty := range []bool{false, true} {
				all := append(append([]string{}, args...), format...)
				r := h.runWith(runOpts{tty: tty, color: tty}, all...).expect(t, 0)
				for stream, text := range map[string]string{"stdout": r.out, "stderr": r.err} {
					if err := apitest.TerminalSafe(text); err != nil {
						t.Errorf("%v (terminal %v): %s: %v\n%s", all, tty, stream, err, r)
					}
				}
			}
		}
	}
	r := h.run("trainers", "deactivate", "7").expect(t, cmdutil.ExitRejected)
	if err := apitest.TerminalSafe(r.err); err != nil || !strings.Contains(r.err, "hint: give --reassign-to") {
		t.Errorf("deactivate's 409: %v\n%s", err, r)
	}
}
