package commands_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/olekukonko/tablewriter/pkg/twwidth"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/cmd/traineectl/internal/iostreams"
)

// atWidth runs on a terminal of width columns.
func atWidth(width int) runOpts {
	return runOpts{tty: true, setup: func(ios *iostreams.IOStreams) { ios.Width = width }}
}

// fitted checks that no line of a table is wider than width and returns
// its header's columns.
func fitted(t *testing.T, r result, width int) []string {
	t.Helper()
	for _, l := range strings.Split(strings.TrimRight(r.out, "\n"), "\n") {
		if w := twwidth.Width(l); w > width {
			t.Errorf("a line of %d columns at %d: %q", w, width, l)
		}
	}
	return tableRows(r.out)[0]
}

// keys list fits 80 columns by leaving out CREATED BY, CREATED and PREFIX,
// in that order, never ID, NAME, SCOPE or STATE; whoami keeps the trainer
// whole at 80 columns; --fields keeps what it names.
func TestAdminTablesFitTheTerminal(t *testing.T) {
	srv := newAdminServer(t)
	h := newHarness(t, srv.url, srv.admin)
	h.run("trainers", "create", "--name", "Sam Coach", "--email", "sam@acme.example").expect(t, 0)
	h.run("keys", "create", "--name", "Sam's phone", "--scope", "read", "--trainer", "Sam Coach", "--own-trainees-only",
		"--expires", "30d", "--save-profile", "sam").expect(t, 0)

	for width, want := range map[int]string{
		80:  "ID|NAME|SCOPE|TRAINER|LAST USED|EXPIRES|STATE",
		120: "ID|NAME|PREFIX|SCOPE|TRAINER|CREATED|LAST USED|EXPIRES|STATE",
		200: "ID|NAME|PREFIX|SCOPE|TRAINER|CREATED|CREATED BY|LAST USED|EXPIRES|STATE",
	} {
		r := h.runWith(atWidth(width), "keys", "list").expect(t, 0)
		if got := strings.Join(fitted(t, r, width), "|"); got != want {
			t.Errorf("keys list at %d columns: %s, want %s\n%s", width, got, want, r.out)
		}
		if !strings.Contains(r.out, "Sam's phone") || width > 80 && !strings.Contains(r.out, "Sam Coach (own only)") {
			t.Errorf("keys list at %d columns cut a name or a trainer:\n%s", width, r.out)
		}
	}
	r := h.runWith(atWidth(80), "keys", "list", "--fields", "id,name,prefix,createdBy").expect(t, 0)
	if got := strings.Join(fitted(t, r, 80), "|"); got != "ID|NAME|PREFIX|CREATED BY" {
		t.Errorf("--fields at 80 columns: %s", got)
	}

	hs := withoutKey(h)
	r = hs.runWith(atWidth(80), "--profile", "sam", "whoami").expect(t, 0)
	fitted(t, r, 80)
	if !strings.Contains(r.out, "Sam Coach (own only)") {
		t.Errorf("whoami at 80 columns cut the trainer:\n%s", r.out)
	}
	if r := hs.runWith(atWidth(160), "--profile", "sam", "whoami").expect(t, 0); !strings.Contains(r.out, "RATE LIMIT") {
		t.Errorf("whoami at 160 columns lost the rate limit:\n%s", r.out)
	}
}

// keys get shows until when the previous secret works (OLD SECRET UNTIL),
// with the new prefix and the last use, at 80 columns too.
func TestKeysGetShowsTheOldSecretsEnd(t *testing.T) {
	srv := newAdminServer(t)
	h := newHarness(t, srv.url, srv.admin)
	crm := strings.TrimSpace(h.run("keys", "create", "--name", "CRM sync", "--scope", "full", "--expires", "90d").expect(t, 0).out)
	id := fmt.Sprint(decode[api.CurrentKey](t, newHarness(t, srv.url, crm).run("whoami", "-o", "json").expect(t, 0)).ID)
	if r := h.run("keys", "get", id, "--utc").expect(t, 0); tableRows(r.out)[1][10] != "-" {
		t.Errorf("OLD SECRET UNTIL before a rotation:\n%s", r.out)
	}
	fresh := strings.TrimSpace(h.run("keys", "rotate", id, "--overlap", "48h").expect(t, 0).out)
	k := decode[api.APIKey](t, h.run("keys", "get", id, "-o", "json").expect(t, 0))
	if k.PreviousSecretExpiresAt == nil {
		t.Fatalf("no previousSecretExpiresAt after a rotation: %+v", k)
	}
	until := k.PreviousSecretExpiresAt.UTC().Format("2006-01-02 15:04")

	r := h.run("keys", "get", id, "--utc").expect(t, 0)
	rows := tableRows(r.out)
	if rows[0][10] != "OLD SECRET UNTIL" || rows[1][10] != until || rows[1][2] != fresh[:8] {
		t.Errorf("keys get after a rotation: %q", rows)
	}
	r = h.runWith(atWidth(80), "keys", "get", id, "--utc").expect(t, 0)
	header := strings.Join(fitted(t, r, 80), "|")
	if header != "ID|NAME|PREFIX|SCOPE|LAST USED|STATE|OLD SECRET UNTIL" || !strings.Contains(r.out, until) || !strings.Contains(r.out, fresh[:8]) {
		t.Errorf("keys get at 80 columns: %s\n%s", header, r.out)
	}
	if r := h.runWith(atWidth(80), "keys", "get", id, "--fields", "name,previousSecretExpiresAt", "--utc").expect(t, 0); r.out != fmt.Sprintf("NAME      OLD SECRET UNTIL\nCRM sync  %s\n", until) {
		t.Errorf("--fields previousSecretExpiresAt: %q", r.out)
	}
}
