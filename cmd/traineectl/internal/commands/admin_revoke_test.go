package commands_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/cmd/traineectl/internal/cmdutil"
)

// Revoking a revoked key changes nothing and says when it was revoked
// (exit 0); a confirmation answered no refuses with exit 2 and no "Run
// with --help"; the name of the key in use is compared trimmed and in any
// case, as the TUI compares it.
func TestKeysRevokeAgainAndDeclined(t *testing.T) {
	srv := newAdminServer(t)
	h := newHarness(t, srv.url, srv.admin)
	crm := strings.TrimSpace(h.run("keys", "create", "--name", "CRM sync", "--scope", "full").expect(t, 0).out)
	id := fmt.Sprint(decode[api.CurrentKey](t, newHarness(t, srv.url, crm).run("whoami", "-o", "json").expect(t, 0)).ID)

	// No: exit 2, nothing revoked, no usage line.
	r := h.runWith(runOpts{tty: true, stdin: "n\n"}, "keys", "revoke", id).expect(t, cmdutil.ExitUsage)
	if !strings.HasSuffix(r.err, "[y/N] error: not confirmed; nothing was revoked\n") || r.out != "" {
		t.Errorf("declined: %q", r.err)
	}
	newHarness(t, srv.url, crm).run("whoami").expect(t, 0)

	h.run("keys", "revoke", id, "--yes").expect(t, 0)
	k := srv.storedKey(t, decode[api.APIKey](t, h.run("keys", "get", id, "-o", "json").expect(t, 0)).ID)
	at := k.RevokedAt.UTC().Format("2006-01-02 15:04")
	for _, o := range []runOpts{{}, {tty: true}} {
		args := []string{"keys", "revoke", id, "--utc", "-o", "json"}
		if !o.tty {
			args = append(args, "--yes")
		}
		r = h.runWith(o, args...).expect(t, 0)
		if !strings.Contains(r.err, "Key "+id+" (CRM sync, "+api.KeyDisplayPrefix(crm)+"…) was already revoked at "+at) ||
			strings.Contains(r.err, "[y/N]") || decode[api.APIKey](t, r).State != api.KeyRevoked {
			t.Errorf("revoked again (terminal %v): %s", o.tty, r)
		}
	}
	if r := h.run("keys", "revoke", "--help").expect(t, 0); !strings.Contains(r.out, "revoked already changes nothing") {
		t.Errorf("keys revoke --help:\n%s", r.out)
	}

	// The key in use: its name in any case, blanks around it ignored.
	h.run("keys", "create", "--name", "Spare", "--scope", "admin", "--save-profile", "spare").expect(t, 0)
	laptop := fmt.Sprint(srv.adminID)
	r = h.runWith(runOpts{tty: true, stdin: "Desktop\n"}, "keys", "revoke", laptop).expect(t, cmdutil.ExitUsage)
	if !strings.HasSuffix(r.err, "error: \"Desktop\" is not the name of key "+laptop+"; not confirmed, nothing was revoked\n") {
		t.Errorf("another name typed: %q", r.err)
	}
	r = h.runWith(runOpts{tty: true, stdin: "\n"}, "keys", "revoke", laptop).expect(t, cmdutil.ExitUsage)
	if strings.Contains(r.err, "Run with --help") {
		t.Errorf("no name typed: %q", r.err)
	}
	if r := h.run("keys", "revoke", "--help").expect(t, 0); !strings.Contains(r.out, "blanks around it and case do not count") {
		t.Errorf("keys revoke --help does not say how the name is compared:\n%s", r.out)
	}
	h.runWith(runOpts{tty: true, stdin: "  LAPTOP \n"}, "keys", "revoke", laptop).expect(t, 0)
	h.run("whoami").expect(t, cmdutil.ExitAuth)
}

// trainers reassign answered no: exit 2, nothing moved, no usage line.
func TestTrainersReassignDeclined(t *testing.T) {
	srv := newAdminServer(t)
	h := newHarness(t, srv.url, srv.admin)
	h.run("trainers", "create", "--name", "Sam Coach", "--email", "sam@acme.example").expect(t, 0)
	srv.addTrainees(t, srv.trainerID, "Carter", 2)
	r := h.runWith(runOpts{tty: true, stdin: "n\n"}, "trainers", "reassign", "Coach Carter", "--to", "Sam Coach").expect(t, cmdutil.ExitUsage)
	if !strings.HasSuffix(r.err, "[y/N] error: not confirmed; nothing was moved\n") || r.out != "" {
		t.Errorf("declined: %q", r.err)
	}
	if n := len(searchTrainer(t, h, fmt.Sprint(srv.trainerID))); n != 2 {
		t.Errorf("a declined reassignment moved trainees: %d left", n)
	}
}
