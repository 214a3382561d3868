package commands_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/cmd/traineectl/internal/cmdutil"
)

// keys rotate --save-profile replaces only a profile that holds this key
// (or makes a new one): a profile holding another key is refused before
// anything is rotated.
func TestKeysRotateSavesOnlyOverItsOwnProfile(t *testing.T) {
	srv := newAdminServer(t)
	h := newHarness(t, srv.url, srv.admin)
	h.run("keys", "create", "--name", "CRM sync", "--scope", "full", "--save-profile", "crm").expect(t, 0)
	crmKey := readConfig(t, h).Profiles["crm"].APIKey
	crm := fmt.Sprint(decode[api.CurrentKey](t, newHarness(t, srv.url, crmKey).run("whoami", "-o", "json").expect(t, 0)).ID)
	bi := strings.TrimSpace(h.run("keys", "create", "--name", "BI export", "--scope", "read").expect(t, 0).out)
	biID := decode[api.CurrentKey](t, newHarness(t, srv.url, bi).run("whoami", "-o", "json").expect(t, 0)).ID

	r := h.run("keys", "rotate", fmt.Sprint(biID), "--save-profile", "crm").expect(t, cmdutil.ExitUsage)
	if !strings.Contains(r.err, "--save-profile crm: that profile holds another key ("+crmKey[:8]+"…)") || !strings.Contains(r.err, "nothing was rotated") || r.out != "" {
		t.Errorf("another key's profile: %s", r)
	}
	if k := srv.storedKey(t, biID); k.Prefix != api.KeyDisplayPrefix(bi) || k.PreviousSecretExpiresAt != nil {
		t.Errorf("the refused rotation rotated: %+v", k)
	}
	if readConfig(t, h).Profiles["crm"].APIKey != crmKey {
		t.Fatalf("the refused rotation changed profile crm")
	}
	newHarness(t, srv.url, bi).run("whoami").expect(t, 0)

	// The profile of this very key, and a new profile, take the secret.
	h.run("keys", "rotate", crm, "--save-profile", "crm").expect(t, 0)
	if k := readConfig(t, h).Profiles["crm"].APIKey; k == crmKey || !api.WellFormedKey(k) {
		t.Errorf("profile crm after rotating its key: %q", k)
	}
	withoutKey(h).run("--profile", "crm", "whoami").expect(t, 0)
	h.run("keys", "rotate", fmt.Sprint(biID), "--save-profile", "bi").expect(t, 0)
	withoutKey(h).run("--profile", "bi", "whoami").expect(t, 0)
}

// Rotating the key in use without --save-profile warns until when its
// secret works and how to save the new one; with --overlap 0 it needs
// --save-profile or --yes.
func TestKeysRotateTheKeyInUse(t *testing.T) {
	srv := newAdminServer(t)
	h := newHarness(t, srv.url, srv.admin)
	laptop := fmt.Sprint(srv.adminID)

	// --overlap 0 without --save-profile or --yes: refused, nothing rotated.
	r := h.run("keys", "rotate", laptop, "--overlap", "0").expect(t, cmdutil.ExitUsage)
	if !strings.Contains(r.err, "is the key in use (TRAINEECTL_API_KEY)") || !strings.Contains(r.err, "--save-profile NAME") ||
		!strings.Contains(r.err, "nothing was rotated") || r.out != "" {
		t.Errorf("--overlap 0 on the key in use: %s", r)
	}
	if k := srv.storedKey(t, srv.adminID); k.Prefix != api.KeyDisplayPrefix(srv.admin) || k.PreviousSecretExpiresAt != nil {
		t.Fatalf("the refused rotation rotated: %+v", k)
	}

	// With an overlap: rotated, with a warning naming the old secret's end.
	r = h.run("keys", "rotate", laptop, "--overlap", "2h", "--utc").expect(t, 0)
	k := srv.storedKey(t, srv.adminID)
	until := k.PreviousSecretExpiresAt.UTC().Format("2006-01-02 15:04")
	if !strings.Contains(r.err, "Warning: this is the key in use (TRAINEECTL_API_KEY): the secret you use works until "+until) ||
		!strings.Contains(r.err, "traineectl config set-profile NAME --api-key-stdin") || !strings.Contains(r.err, "--save-profile NAME") {
		t.Errorf("the warning: %s", r)
	}
	fresh := strings.TrimSpace(r.out)
	if !api.WellFormedKey(fresh) {
		t.Fatalf("rotate printed no secret: %s", r)
	}
	h.run("whoami").expect(t, 0) // the old secret, within the overlap

	// A profile of the key in use: --overlap 0 --save-profile saves it there.
	h.runWith(runOpts{stdin: fresh + "\n"}, "config", "set-profile", "admin", "--base-url", srv.url, "--api-key-stdin").expect(t, 0)
	ha := withoutKey(h)
	r = ha.run("--profile", "admin", "keys", "rotate", laptop, "--overlap", "0", "--save-profile", "admin").expect(t, 0)
	if strings.Contains(r.err, "Warning") || r.out != "" {
		t.Errorf("rotate --save-profile of the key in use: %s", r)
	}
	ha.run("--profile", "admin", "whoami").expect(t, 0)
	newHarness(t, srv.url, fresh).run("whoami").expect(t, cmdutil.ExitAuth)

	// A profile's key rotated without saving: the warning names the profile;
	// --yes rotates with --overlap 0 all the same, and the profile is refused.
	r = ha.run("--profile", "admin", "keys", "rotate", laptop, "--overlap", "0", "--yes").expect(t, 0)
	if !strings.Contains(r.err, "this is the key in use (profile admin): the secret you use stopped working") ||
		!strings.Contains(r.err, "traineectl config set-profile admin --api-key-stdin") {
		t.Errorf("--overlap 0 --yes: %s", r)
	}
	ha.run("--profile", "admin", "whoami").expect(t, cmdutil.ExitAuth)
	newHarness(t, srv.url, strings.TrimSpace(r.out)).run("whoami").expect(t, 0)
}

// Each rotated-out secret works to its own overlap's end: keys rotate says
// when the one it took out stops, and until when older ones may work.
func TestKeysRotateSaysWhenTheSecretItTookOutStops(t *testing.T) {
	srv := newAdminServer(t)
	h := newHarness(t, srv.url, srv.admin)
	crm := strings.TrimSpace(h.run("keys", "create", "--name", "CRM sync", "--scope", "full").expect(t, 0).out)
	id := decode[api.CurrentKey](t, newHarness(t, srv.url, crm).run("whoami", "-o", "json").expect(t, 0)).ID
	h.run("keys", "rotate", fmt.Sprint(id), "--overlap", "7d").expect(t, 0)
	week := srv.storedKey(t, id).PreviousSecretExpiresAt.UTC().Format("2006-01-02 15:04")

	// The test server answers with its handler's clock (testNow); the
	// store keeps its own: the secret taken out ends an hour after the
	// answer's time.
	r := h.run("keys", "rotate", fmt.Sprint(id), "--overlap", "1h", "--utc").expect(t, 0)
	if !strings.Contains(r.err, "the previous secret works until "+testNow.Add(3600e9).Format("2006-01-02 15:04")+
		"; secrets rotated out before it, until "+week+" at the latest\n") {
		t.Errorf("a second rotation within the first's overlap: %s", r)
	}
	r = h.run("keys", "rotate", fmt.Sprint(id), "--overlap", "0", "--utc").expect(t, 0)
	if !strings.Contains(r.err, "the previous secret no longer works; secrets rotated out before it, until "+week+" at the latest\n") {
		t.Errorf("--overlap 0 within an overlap: %s", r)
	}
	newHarness(t, srv.url, crm).run("whoami").expect(t, 0) // the first secret, within its week
}
