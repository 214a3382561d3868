package commands_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/cmd/traineectl/internal/cmdutil"
)

// keys create prints the secret alone, once, and the key works; -o json
// gives the key and its secret; --save-profile puts it in a profile and
// prints no secret; what the server would refuse is refused before
// anything is sent.
func TestKeysCreate(t *testing.T) {
	srv := newAdminServer(t)
	h := newHarness(t, srv.url, srv.admin)

	r := h.run("keys", "create", "--name", "CRM sync", "--scope", "full", "--expires", "90d").expect(t, 0)
	secret := strings.TrimSpace(r.out)
	if !api.WellFormedKey(secret) || r.out != secret+"\n" {
		t.Fatalf("stdout is not the key alone: %s", r)
	}
	if !strings.Contains(r.err, "shown this once and never again") || !strings.Contains(r.err, `Created key`) ||
		!strings.Contains(r.err, "CRM sync") || strings.Contains(r.err, secret) {
		t.Errorf("stderr: %s", r)
	}
	who := decode[api.CurrentKey](t, newHarness(t, srv.url, secret).run("whoami", "-o", "json").expect(t, 0))
	if who.Name != "CRM sync" || who.Scope != api.KeyScopeFull || who.TrainerID != nil || who.ExpiresAt == nil ||
		!who.ExpiresAt.Equal(testNow.Add(90*24*time.Hour)) {
		t.Errorf("the new key: %+v", who)
	}

	// -o json: the key and its secret; the server holds the key, not it.
	type created struct {
		api.APIKey
		Secret string `json:"secret"`
	}
	c := decode[created](t, h.run("keys", "create", "--name", "BI", "--scope", "read", "--expires", "2027-01-31T18:00:00Z", "-o", "json").expect(t, 0))
	if !api.WellFormedKey(c.Secret) || c.Scope != api.KeyScopeRead || c.Prefix != api.KeyDisplayPrefix(c.Secret) || c.State != api.KeyActive ||
		c.ExpiresAt == nil || !c.ExpiresAt.Equal(time.Date(2027, 1, 31, 18, 0, 0, 0, time.UTC)) {
		t.Errorf("json: %+v", c)
	}
	if k := srv.storedKey(t, c.ID); k.Name != "BI" || k.Scope != api.KeyScopeRead || k.CreatedBy == nil || k.CreatedBy.Name != "Laptop" {
		t.Errorf("stored: %+v", k)
	}
	// A date is the last day the key works: it is refused from the next midnight.
	c = decode[created](t, h.run("keys", "create", "--name", "Till new year", "--scope", "read", "--expires", "31-12-2026", "--utc", "-o", "json").expect(t, 0))
	if c.ExpiresAt == nil || !c.ExpiresAt.Equal(time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("--expires 31-12-2026: %v", c.ExpiresAt)
	}
	// -o csv: the key's columns and the secret.
	rows := readCSV(t, h.run("keys", "create", "--name", "Sheet", "--scope", "read", "-o", "csv").expect(t, 0))
	if len(rows) != 2 || rows[0][len(rows[0])-1] != "secret" || !api.WellFormedKey(rows[1][len(rows[1])-1]) || rows[1][1] != "Sheet" {
		t.Errorf("csv: %v", rows)
	}

	// Refused before anything is sent: exit 2, no key made.
	n := srv.keyCount(t, h)
	for _, args := range [][]string{
		{"--name", "x"},                    // no scope
		{"--scope", "full"},                // no name
		{"--name", "x", "--scope", "root"}, // not a scope
		{"--name", "x", "--scope", "full", "--expires", "yesterday"},
		{"--name", "x", "--scope", "full", "--expires", "soon"},
		{"--name", "x", "--scope", "full", "--own-trainees-only"},
		{"--name", "x", "--scope", "admin", "--trainer", "Coach Carter", "--own-trainees-only"},
		{"--name", "x", "--scope", "full", "--trainer", "Nobody"},
		{"--name", "x\x1b[2J", "--scope", "full"},
		{"--name", "", "--scope", "full"},
		{"--name", "x", "--scope", "full", "--save-profile", ""},
	} {
		r := h.run(append([]string{"keys", "create"}, args...)...).expect(t, cmdutil.ExitUsage)
		if r.out != "" {
			t.Errorf("%v: stdout %q", args, r.out)
		}
	}
	if m := srv.keyCount(t, h); m != n {
		t.Errorf("refused creates made %d keys", m-n)
	}

	// A full key may not create keys: 403 1029, exit 7, with the hint.
	hf := newHarness(t, srv.url, srv.key)
	r = hf.run("keys", "create", "--name", "x", "--scope", "read").expect(t, cmdutil.ExitForbidden)
	if !strings.Contains(r.err, "1029") || !strings.Contains(r.err, "hint: this command needs an admin key") {
		t.Errorf("full key: %s", r)
	}
	if r := hf.run("keys", "list", "-o", "json").expect(t, cmdutil.ExitForbidden); !strings.Contains(r.err, `"errorCode":1029`) || !strings.Contains(r.err, `"status":403`) {
		t.Errorf("full key, json: %s", r)
	}
}

// --save-profile stores the secret in the profile (with the address in
// use) and prints none; the profile then works, and a profile holding a
// key is never overwritten by a new one.
func TestKeysCreateSaveProfile(t *testing.T) {
	srv := newAdminServer(t)
	h := newHarness(t, srv.url, srv.admin)
	h.run("trainers", "create", "--name", "Sam Coach", "--email", "sam@acme.example").expect(t, 0)

	if r := h.run("__complete", "keys", "create", "--trainer", ""); !strings.Contains(r.out, "\tSam Coach") {
		t.Errorf("--trainer completion: %s", r)
	}
	r := h.run("keys", "create", "--name", "Sam's phone", "--scope", "full", "--trainer", "sam coach", "--save-profile", "sam").expect(t, 0)
	cfg := readConfig(t, h)
	p := cfg.Profiles["sam"]
	if p == nil || !api.WellFormedKey(p.APIKey) || p.BaseURL != srv.url {
		t.Fatalf("profile sam: %+v\n%s", p, r)
	}
	if r.out != "" || strings.Contains(r.err, p.APIKey) || strings.Contains(r.err, "pk_") && strings.Contains(r.err, p.APIKey[8:]) {
		t.Errorf("the secret was shown: %s", r)
	}
	if !strings.Contains(r.err, "Saved profile sam") || !strings.Contains(r.err, "--profile sam") || strings.Contains(r.err, "(current)") {
		t.Errorf("stderr: %s", r)
	}
	if cfg.Current != "" {
		t.Errorf("the saved profile became the current one: %q", cfg.Current)
	}
	hs := withoutKey(h)
	who := decode[api.CurrentKey](t, hs.run("--profile", "sam", "whoami", "-o", "json").expect(t, 0))
	if who.Name != "Sam's phone" || who.TrainerName == nil || *who.TrainerName != "Sam Coach" || who.Scope != api.KeyScopeFull {
		t.Errorf("profile sam's key: %+v", who)
	}

	// -o json with --save-profile: the key, never the secret.
	r = h.run("keys", "create", "--name", "Sam's tablet", "--scope", "read", "--trainer", "Sam Coach", "--save-profile", "sam-tab", "-o", "json").expect(t, 0)
	if tab := readConfig(t, h).Profiles["sam-tab"]; tab == nil || strings.Contains(r.out, tab.APIKey) || strings.Contains(r.out, `"secret"`) ||
		!strings.Contains(r.out, `"name": "Sam's tablet"`) {
		t.Errorf("json with --save-profile: %s", r)
	}

	// A profile that holds a key: refused, nothing created, the key kept.
	n := srv.keyCount(t, h)
	r = h.run("keys", "create", "--name", "Other", "--scope", "full", "--save-profile", "sam").expect(t, cmdutil.ExitUsage)
	if !strings.Contains(r.err, "holds a key already") {
		t.Errorf("existing profile: %s", r)
	}
	if srv.keyCount(t, h) != n || readConfig(t, h).Profiles["sam"].APIKey != p.APIKey {
		t.Errorf("a refused --save-profile changed something")
	}
}

// keys list, get, update, rotate and revoke against the real server: the
// table's columns and times, every format, the states, the refusals and
// their exit statuses, completion.
func TestKeysListGetUpdate(t *testing.T) {
	srv := newAdminServer(t)
	h := newHarness(t, srv.url, srv.admin)
	crm := strings.TrimSpace(h.run("keys", "create", "--name", "CRM sync", "--scope", "full", "--expires", "30d").expect(t, 0).out)
	crmID := fmt.Sprint(decode[api.CurrentKey](t, newHarness(t, srv.url, crm).run("whoami", "-o", "json").expect(t, 0)).ID)

	r := h.run("keys", "list", "--utc").expect(t, 0)
	rows := tableRows(r.out)
	if strings.Join(rows[0], "|") != "ID|NAME|PREFIX|SCOPE|TRAINER|CREATED|CREATED BY|LAST USED|EXPIRES|STATE" || len(rows) != 4 {
		t.Fatalf("keys list:\n%s", r.out)
	}
	last := rows[len(rows)-1]
	if last[1] != "CRM sync" || last[2] != api.KeyDisplayPrefix(crm) || last[3] != "full" || last[4] != "-" || last[6] != "Laptop" ||
		last[8] != testNow.Add(30*24*time.Hour).Format("2006-01-02 15:04") || last[9] != "active" {
		t.Errorf("CRM's row: %q", last)
	}
	checkShownTime(t, h, []string{"keys", "list"}, "CREATED", "createdAt")
	checkShownTime(t, h, []string{"keys", "list"}, "EXPIRES", "expiresAt")
	if rows[1][1] != "cli" || rows[1][7] != "never" || rows[1][8] != "never" {
		t.Errorf("the unused key without an expiry: %q", rows[1])
	}
	csv := readCSV(t, h.run("keys", "list", "-o", "csv").expect(t, 0))
	if strings.Join(csv[0], ",") != "id,name,prefix,scope,trainerId,trainerName,ownTraineesOnly,createdAt,createdBy,lastUsedAt,expiresAt,previousSecretExpiresAt,revokedAt,state" {
		t.Errorf("csv header %v", csv[0])
	}
	if r := h.run("keys", "list", "-o", "yaml").expect(t, 0); !strings.Contains(r.out, "name: CRM sync") {
		t.Errorf("yaml: %s", r)
	}
	h.run("keys", "list", "--state", "gone").expect(t, cmdutil.ExitUsage)
	if r := h.run("keys", "list", "--limit", "1").expect(t, 0); !strings.Contains(r.err, "Showing 1 of more keys") {
		t.Errorf("--limit 1: %s", r)
	}

	// get: one key, an object in JSON; unknown and other companies' ids exit 4.
	if k := decode[api.APIKey](t, h.run("keys", "get", crmID, "-o", "json").expect(t, 0)); k.Name != "CRM sync" {
		t.Errorf("get: %+v", k)
	}
	if r := h.run("keys", "get", "999").expect(t, cmdutil.ExitNotFound); !strings.Contains(r.err, "key 999 not found") {
		t.Errorf("get 999: %s", r)
	}
	h.run("keys", "get", "x").expect(t, cmdutil.ExitUsage)
	other, err := srv.store.CreateCompany(context.Background(), "Other Gym", "UTC")
	must(t, err)
	ho := newHarness(t, srv.url, srv.newAdminKey(t, other.ID))
	for _, args := range [][]string{{"get", crmID}, {"update", crmID, "--name", "x"}, {"rotate", crmID}, {"revoke", crmID, "--yes"}} {
		if r := ho.run(append([]string{"keys"}, args...)...).expect(t, cmdutil.ExitNotFound); !strings.Contains(r.err, "key "+crmID+" not found") {
			t.Errorf("another company's key, %v: %s", args, r)
		}
	}

	// update: only what is given; disabled, the key is refused (exit 3).
	k := decode[api.APIKey](t, h.run("keys", "update", crmID, "--name", "CRM (old)", "--expires", "none", "--disable", "-o", "json").expect(t, 0))
	if k.Name != "CRM (old)" || k.ExpiresAt != nil || k.State != api.KeyDisabled || k.Scope != api.KeyScopeFull {
		t.Errorf("update: %+v", k)
	}
	if s := srv.storedKey(t, k.ID); s.State != api.KeyDisabled || s.ExpiresAt != nil {
		t.Errorf("stored after update: %+v", s)
	}
	newHarness(t, srv.url, crm).run("whoami").expect(t, cmdutil.ExitAuth)
	h.run("keys", "update", crmID, "--enable", "--scope", "read", "--expires", "2w").expect(t, 0)
	if s := srv.storedKey(t, k.ID); s.State != api.KeyActive || s.Scope != api.KeyScopeRead || s.ExpiresAt == nil {
		t.Errorf("stored after --enable: %+v", s)
	}
	newHarness(t, srv.url, crm).run("whoami").expect(t, 0)
	for _, args := range [][]string{{crmID}, {crmID, "--enable", "--disable"}, {crmID, "--scope", "owner"}, {crmID, "--expires", "yesterday"}, {"0", "--name", "x"}} {
		h.run(append([]string{"keys", "update"}, args...)...).expect(t, cmdutil.ExitUsage)
	}
	// The company's last standing admin key: 409 1032, exit 5, unchanged.
	laptop := fmt.Sprint(srv.adminID)
	r = h.run("keys", "update", laptop, "--disable", "-o", "json").expect(t, cmdutil.ExitRejected)
	if !strings.Contains(r.err, `"errorCode":1032`) || !strings.Contains(r.err, `"status":409`) {
		t.Errorf("last admin key: %s", r)
	}
	// Its own scope: 403 1031, exit 7.
	if r := h.run("keys", "update", laptop, "--scope", "full").expect(t, cmdutil.ExitForbidden); !strings.Contains(r.err, "1031") {
		t.Errorf("own scope: %s", r)
	}
	if s := srv.storedKey(t, srv.adminID); s.State != api.KeyActive || s.Scope != api.KeyScopeAdmin {
		t.Errorf("the refused changes changed the admin key: %+v", s)
	}

	// Completion: ids with names.
	if r := h.run("__complete", "keys", "update", ""); !strings.Contains(r.out, crmID+"\tCRM (old)") || !strings.Contains(r.out, laptop+"\tLaptop") {
		t.Errorf("completion: %s", r)
	}
	for _, verb := range []string{"get", "rotate", "revoke"} {
		if r := h.run("__complete", "keys", verb, ""); !strings.Contains(r.out, crmID+"\tCRM (old)") {
			t.Errorf("completion of keys %s: %s", verb, r)
		}
	}
}

// keys rotate: a new secret alone on stdout, the old one working until the
// time said (refused at once with --overlap 0), --save-profile replacing
// the profile's key.
func TestKeysRotate(t *testing.T) {
	srv := newAdminServer(t)
	h := newHarness(t, srv.url, srv.admin)
	old := strings.TrimSpace(h.run("keys", "create", "--name", "CRM sync", "--scope", "full").expect(t, 0).out)
	id := fmt.Sprint(decode[api.CurrentKey](t, newHarness(t, srv.url, old).run("whoami", "-o", "json").expect(t, 0)).ID)

	r := h.run("keys", "rotate", id, "--overlap", "1h", "--utc").expect(t, 0)
	fresh := strings.TrimSpace(r.out)
	if !api.WellFormedKey(fresh) || fresh == old {
		t.Fatalf("rotate: %s", r)
	}
	// The server holds the new prefix and the old secret's end, which
	// stderr gives.
	s := srv.storedKey(t, decode[api.APIKey](t, h.run("keys", "get", id, "-o", "json").expect(t, 0)).ID)
	if s.Prefix != api.KeyDisplayPrefix(fresh) || s.PreviousSecretExpiresAt == nil ||
		!strings.Contains(r.err, "the previous secret works until "+s.PreviousSecretExpiresAt.UTC().Format("2006-01-02 15:04")+"\n") {
		t.Errorf("stored after rotate: %+v\n%s", s, r)
	}
	newHarness(t, srv.url, old).run("whoami").expect(t, 0) // within the overlap
	newHarness(t, srv.url, fresh).run("whoami").expect(t, 0)

	r = h.run("keys", "rotate", id, "--overlap", "0", "-o", "json").expect(t, 0)
	type rotated struct {
		api.APIKey
		Secret string `json:"secret"`
	}
	third := decode[rotated](t, r)
	if !api.WellFormedKey(third.Secret) || third.Secret == fresh {
		t.Errorf("rotate -o json: %s", r)
	}
	newHarness(t, srv.url, fresh).run("whoami").expect(t, cmdutil.ExitAuth)
	newHarness(t, srv.url, third.Secret).run("whoami").expect(t, 0)
	for _, o := range []string{"8d", "-1h", "soon", "1500ms"} {
		h.run("keys", "rotate", id, "--overlap", o).expect(t, cmdutil.ExitUsage)
	}

	// --save-profile replaces the profile's key and shows none.
	h.runWith(runOpts{stdin: third.Secret + "\n"}, "config", "set-profile", "crm", "--base-url", srv.url, "--api-key-stdin").expect(t, 0)
	r = h.run("keys", "rotate", id, "--save-profile", "crm").expect(t, 0)
	saved := readConfig(t, h).Profiles["crm"].APIKey
	if r.out != "" || saved == third.Secret || !api.WellFormedKey(saved) || strings.Contains(r.err, saved) {
		t.Errorf("rotate --save-profile: %s (profile key %q)", r, saved)
	}
	withoutKey(h).run("--profile", "crm", "whoami").expect(t, 0)
	h.run("keys", "rotate", "999").expect(t, cmdutil.ExitNotFound)
}

// keys revoke: another key asks y/N (--yes off a terminal); the key in
// use asks for its name (--confirm NAME off a terminal); the last
// standing admin key is refused; a revoked key cannot be changed.
func TestKeysRevoke(t *testing.T) {
	srv := newAdminServer(t)
	h := newHarness(t, srv.url, srv.admin)
	crm := strings.TrimSpace(h.run("keys", "create", "--name", "CRM sync", "--scope", "full").expect(t, 0).out)
	id := fmt.Sprint(decode[api.CurrentKey](t, newHarness(t, srv.url, crm).run("whoami", "-o", "json").expect(t, 0)).ID)
	state := func(id string) string {
		t.Helper()
		return strings.TrimSpace(h.run("keys", "get", id, "--jq", ".state").expect(t, 0).out)
	}

	r := h.run("keys", "revoke", id).expect(t, cmdutil.ExitUsage)
	if !strings.Contains(r.err, "--yes") {
		t.Errorf("no terminal: %s", r)
	}
	r = h.runWith(runOpts{tty: true, stdin: "n\n"}, "keys", "revoke", id).expect(t, cmdutil.ExitUsage)
	if !strings.Contains(r.err, "Revoke key "+id+" (CRM sync, "+api.KeyDisplayPrefix(crm)+"…)? It stops working at once, for good. [y/N]") {
		t.Errorf("question: %s", r)
	}
	h.run("keys", "revoke", id, "--confirm", "Other name").expect(t, cmdutil.ExitUsage)
	if state(id) != api.KeyActive {
		t.Fatalf("refusals revoked the key")
	}
	r = h.runWith(runOpts{tty: true, stdin: "y\n"}, "keys", "revoke", id, "-o", "json").expect(t, 0)
	if k := decode[api.APIKey](t, r); k.State != api.KeyRevoked || k.RevokedAt == nil {
		t.Errorf("revoked: %s", r)
	}
	newHarness(t, srv.url, crm).run("whoami").expect(t, cmdutil.ExitAuth)
	if r := h.run("keys", "update", id, "--name", "x", "-o", "json").expect(t, cmdutil.ExitRejected); !strings.Contains(r.err, `"errorCode":1036`) {
		t.Errorf("update a revoked key: %s", r)
	}
	if r := h.run("keys", "list", "--state", "revoked", "--jq", ".[].name").expect(t, 0); r.out != "CRM sync\n" {
		t.Errorf("--state revoked: %s", r)
	}
	if r := h.run("keys", "list", "--jq", ".[].name").expect(t, 0); strings.Contains(r.out, "CRM sync") {
		t.Errorf("the default list shows a revoked key: %s", r)
	}

	// The key in use: its name, typed or --confirm; --yes is not enough.
	laptop := fmt.Sprint(srv.adminID)
	r = h.run("keys", "revoke", laptop, "--yes").expect(t, cmdutil.ExitUsage)
	if !strings.Contains(r.err, "is the key in use (TRAINEECTL_API_KEY)") || !strings.Contains(r.err, "--confirm NAME") {
		t.Errorf("own key with --yes: %s", r)
	}
	r = h.runWith(runOpts{tty: true, stdin: "y\n"}, "keys", "revoke", laptop).expect(t, cmdutil.ExitUsage)
	if !strings.Contains(r.err, "Type the key's name to confirm:") {
		t.Errorf("own key's question: %s", r)
	}
	// The last standing admin key: 409 1032, exit 5.
	r = h.run("keys", "revoke", laptop, "--confirm", "laptop").expect(t, cmdutil.ExitRejected)
	if !strings.Contains(r.err, "1032") {
		t.Errorf("last admin key: %s", r)
	}
	if state(laptop) != api.KeyActive {
		t.Fatalf("the last admin key was revoked")
	}
	// With a second admin key, the key in use may go: then it is refused.
	h.run("keys", "create", "--name", "Spare", "--scope", "admin", "--save-profile", "spare").expect(t, 0)
	r = h.runWith(runOpts{tty: true, stdin: "Laptop\n"}, "keys", "revoke", laptop).expect(t, 0)
	if !strings.Contains(r.err, "That was the key in use") {
		t.Errorf("own key revoked: %s", r)
	}
	h.run("whoami").expect(t, cmdutil.ExitAuth)
	hs := withoutKey(h)
	if s := strings.TrimSpace(hs.run("--profile", "spare", "keys", "get", laptop, "--jq", ".state").expect(t, 0).out); s != api.KeyRevoked {
		t.Errorf("laptop's state %q", s)
	}
	hs.run("--profile", "spare", "keys", "revoke", "999", "--yes").expect(t, cmdutil.ExitNotFound)
}
