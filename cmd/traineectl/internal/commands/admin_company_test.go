package commands_test

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/cmd/traineectl/internal/cmdutil"
)

// traineectl company get and update.
func TestCompanyCommands(t *testing.T) {
	srv := newAdminServer(t)
	h := newHarness(t, srv.url, srv.admin)
	co := decode[api.Company](t, newHarness(t, srv.url, srv.key).run("company", "get", "-o", "json").expect(t, 0))
	if co.Name != "Acme" || co.TimeZone != "UTC" || co.ID != srv.companyID {
		t.Errorf("company get: %+v", co)
	}
	if rows := tableRows(h.run("company", "get").expect(t, 0).out); strings.Join(rows[0], "|") != "ID|NAME|TIME ZONE|CREATED" || rows[1][2] != "UTC" {
		t.Errorf("table: %q", rows)
	}
	r := h.run("company", "update", "--time-zone", "Europe/Dublin", "--name", "Acme Fitness", "-o", "json").expect(t, 0)
	if co := decode[api.Company](t, r); co.TimeZone != "Europe/Dublin" || co.Name != "Acme Fitness" {
		t.Errorf("update: %s", r)
	}
	if stored, err := srv.store.Company(context.Background(), srv.companyID); err != nil || stored.TimeZone != "Europe/Dublin" {
		t.Errorf("stored: %+v, %v", stored, err)
	}
	for _, args := range [][]string{{}, {"--time-zone", "Mars/Olympus"}, {"--time-zone", "Local"}, {"--name", ""}} {
		h.run(append([]string{"company", "update"}, args...)...).expect(t, cmdutil.ExitUsage)
	}
	if r := newHarness(t, srv.url, srv.key).run("company", "update", "--name", "x").expect(t, cmdutil.ExitForbidden); !strings.Contains(r.err, "1029") {
		t.Errorf("full key: %s", r)
	}
	if _, err := os.Stat("/usr/share/zoneinfo/zone1970.tab"); err == nil {
		if r := h.run("__complete", "company", "update", "--time-zone", "Europe/Lo"); !strings.Contains(r.out, "Europe/London\n") || strings.Contains(r.out, "Europe/Paris") {
			t.Errorf("zone completion: %s", r)
		}
	}
}

// A time zone given in another case is refused with the zone to give.
func TestCompanyTimeZoneSuggestion(t *testing.T) {
	if _, err := os.Stat("/usr/share/zoneinfo/zone1970.tab"); err != nil {
		t.Skip("no zone list on this system")
	}
	srv := newAdminServer(t)
	h := newHarness(t, srv.url, srv.admin)
	r := h.run("company", "update", "--time-zone", "europe/dublin").expect(t, cmdutil.ExitUsage)
	if !strings.Contains(r.err, `unknown time zone "europe/dublin"`) || !strings.Contains(r.err, "(did you mean Europe/Dublin?)") {
		t.Errorf("europe/dublin: %s", r)
	}
	if r := h.run("company", "update", "--time-zone", "Mars/Olympus").expect(t, cmdutil.ExitUsage); strings.Contains(r.err, "did you mean") {
		t.Errorf("Mars/Olympus: %s", r)
	}
	if co, err := srv.store.Company(context.Background(), srv.companyID); err != nil || co.TimeZone != "UTC" {
		t.Errorf("a refused zone changed the company: %+v %v", co, err)
	}
}

// An empty list says so on stderr ("No expired keys found"): on a terminal
// instead of a bare header, elsewhere after the header scripts read.
func TestEmptyListsSaySo(t *testing.T) {
	srv := newAdminServer(t)
	h := newHarness(t, srv.url, srv.admin)
	r := h.runWith(runOpts{tty: true}, "keys", "list", "--state", "expired").expect(t, 0)
	if r.out != "" || r.err != "No expired keys found\n" {
		t.Errorf("keys list --state expired on a terminal: %s", r)
	}
	r = h.run("keys", "list", "--state", "revoked").expect(t, 0)
	if !strings.HasPrefix(r.out, "ID\tNAME\t") || r.err != "No revoked keys found\n" {
		t.Errorf("keys list --state revoked off a terminal: %s", r)
	}
	if r := h.runWith(runOpts{tty: true}, "automations", "list").expect(t, 0); r.out != "" || r.err != "No automations found\n" {
		t.Errorf("automations list: %s", r)
	}
	for _, args := range [][]string{{"-o", "json"}, {"--jq", ".[]"}, {"-q"}} {
		if r := h.run(append([]string{"keys", "list", "--state", "expired"}, args...)...).expect(t, 0); r.err != "" {
			t.Errorf("keys list %v: %s", args, r)
		}
	}
}
