package commands_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/cmd/traineectl/internal/cmdutil"
)

// Every trainer a command of company administration is given (an
// argument, --to, --reassign-to, keys create --trainer) is looked up in
// the company's trainers before anything is sent: an unknown id or name is
// exit 2, naming the flag and listing the trainers.
func TestTrainerReferencesResolveAlike(t *testing.T) {
	srv := newAdminServer(t)
	h := newHarness(t, srv.url, srv.admin)
	carter := fmt.Sprint(srv.trainerID)
	n := srv.keyCount(t, h)
	for _, tc := range []struct {
		label string
		args  []string
	}{
		{"trainer", []string{"trainers", "get", "99"}},
		{"trainer", []string{"trainers", "update", "99", "--name", "x"}},
		{"trainer", []string{"trainers", "deactivate", "99"}},
		{"trainer", []string{"trainers", "reassign", "99", "--to", carter, "--yes"}},
		{"--to", []string{"trainers", "reassign", carter, "--to", "99", "--yes"}},
		{"--reassign-to", []string{"trainers", "deactivate", carter, "--reassign-to", "99"}},
		{"--trainer", []string{"keys", "create", "--name", "x", "--scope", "full", "--trainer", "99"}},
	} {
		for _, ref := range []string{"99", "Nobody"} {
			args := make([]string, len(tc.args))
			for i, a := range tc.args {
				args[i] = strings.ReplaceAll(a, "99", ref)
			}
			r := h.run(args...).expect(t, cmdutil.ExitUsage)
			what := "no trainer has id 99; "
			if ref != "99" {
				what = `no trainer is named "Nobody"; `
			}
			if !strings.HasPrefix(r.err, "error: "+tc.label+": "+what+"your company's trainers (id name): "+carter+" Coach Carter\n") || r.out != "" {
				t.Errorf("%v: %s", args, r)
			}
		}
	}
	if c, err := srv.store.CompanyTrainer(t.Context(), srv.companyID, srv.trainerID); err != nil || !c.Active || c.Name != "Coach Carter" {
		t.Errorf("a refused command changed Coach Carter: %+v %v", c, err)
	}
	if srv.keyCount(t, h) != n {
		t.Errorf("a refused keys create made a key")
	}
}

// trainers deactivate says how many trainees moved to whom and which keys
// it disabled; an inactive trainer is left as is; --activate says the
// keys stay disabled and how to enable them.
func TestTrainersDeactivateSaysWhatItDid(t *testing.T) {
	srv := newAdminServer(t)
	h := newHarness(t, srv.url, srv.admin)
	leo := decode[api.TrainerSummary](t, h.run("trainers", "create", "--name", "Leo Coach", "--email", "leo@acme.example", "-o", "json").expect(t, 0))
	hannah := decode[api.TrainerSummary](t, h.run("trainers", "create", "--name", "Hannah Okoye", "--email", "hannah@acme.example", "-o", "json").expect(t, 0))
	srv.addTrainees(t, leo.ID, "Leo", 3)
	keyID := func(name string) string {
		t.Helper()
		return strings.TrimSpace(h.run("keys", "list", "--jq", `.[] | select(.name == "`+name+`") | .id`).expect(t, 0).out)
	}
	h.run("keys", "create", "--name", "Leo tablet", "--scope", "full", "--trainer", "Leo Coach", "--save-profile", "leo-tab").expect(t, 0)
	h.run("keys", "create", "--name", "Leo phone", "--scope", "read", "--trainer", "Leo Coach", "--save-profile", "leo-phone").expect(t, 0)
	tablet, phone := keyID("Leo tablet"), keyID("Leo phone")
	leoText, hannahText := fmt.Sprintf("Leo Coach (%d)", leo.ID), fmt.Sprintf("Hannah Okoye (%d)", hannah.ID)

	r := h.run("trainers", "deactivate", "leo coach", "--reassign-to", "Hannah Okoye", "-o", "json").expect(t, 0)
	want := fmt.Sprintf("Deactivated trainer %s: moved 3 trainees to %s; disabled keys %s (Leo tablet), %s (Leo phone)\n", leoText, hannahText, tablet, phone)
	if r.err != want {
		t.Errorf("deactivate's note:\n got %q\nwant %q", r.err, want)
	}
	got := decode[map[string]any](t, r)
	if got["active"] != false || got["moved"] != float64(3) || fmt.Sprint(got["disabledKeys"]) != "["+tablet+" "+phone+"]" {
		t.Errorf("deactivate -o json: %v", got)
	}
	withoutKey(h).run("--profile", "leo-tab", "whoami").expect(t, cmdutil.ExitAuth)

	// Already inactive: said, nothing sent, exit 0.
	r = h.run("trainers", "deactivate", fmt.Sprint(leo.ID)).expect(t, 0)
	if r.err != "Trainer "+leoText+" was already inactive; nothing was changed.\n" {
		t.Errorf("deactivate again: %q", r.err)
	}

	// --activate: the keys stay disabled, named, with how to enable them.
	r = h.run("trainers", "update", "Leo Coach", "--activate").expect(t, 0)
	want = fmt.Sprintf("Trainer %s is active again; their keys stay disabled: keys %s (Leo tablet), %s (Leo phone). Enable each that should work again with `traineectl keys update ID --enable`.\n", leoText, tablet, phone)
	if r.err != want {
		t.Errorf("--activate's note:\n got %q\nwant %q", r.err, want)
	}
	h.run("keys", "update", tablet, "--enable").expect(t, 0)
	withoutKey(h).run("--profile", "leo-tab", "whoami").expect(t, 0)

	// Without trainees or enabled keys: nothing moved, no key to disable.
	h.run("keys", "update", tablet, "--disable").expect(t, 0)
	r = h.run("trainers", "deactivate", "Leo Coach").expect(t, 0)
	if r.err != "Deactivated trainer "+leoText+": no key of theirs to disable\n" {
		t.Errorf("deactivate without trainees or keys: %q", r.err)
	}
	if r := h.run("trainers", "update", "Leo Coach", "--activate").expect(t, 0); !strings.Contains(r.err, "keys "+tablet+" (Leo tablet), "+phone+" (Leo phone)") {
		t.Errorf("--activate again: %q", r.err)
	}
	if r := h.run("trainers", "update", "Leo Coach", "--activate").expect(t, 0); r.err != "" {
		t.Errorf("--activate of an active trainer: %q", r.err)
	}
}
