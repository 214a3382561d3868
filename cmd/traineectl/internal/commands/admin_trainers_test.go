package commands_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/cmd/traineectl/internal/cmdutil"
)

// traineectl trainers create, get, update, deactivate and reassign
// against the real server, each naming trainers by id or name.
func TestTrainersAdminCommands(t *testing.T) {
	srv := newAdminServer(t)
	ctx := context.Background()
	h := newHarness(t, srv.url, srv.admin)

	sam := decode[api.TrainerSummary](t, h.run("trainers", "create", "--name", "Sam Coach", "--email", "Sam@Acme.example", "-o", "json").expect(t, 0))
	if sam.ID == 0 || sam.Name != "Sam Coach" || sam.Email != "sam@acme.example" || !sam.Active {
		t.Fatalf("created %+v", sam)
	}
	samID, carterID := fmt.Sprint(sam.ID), fmt.Sprint(srv.trainerID)
	for _, args := range [][]string{{"--name", "x"}, {"--name", "x", "--email", "not-an-address"}, {"--name", "", "--email", "x@example.com"}, {"--name", "a\x1b", "--email", "x@example.com"}} {
		h.run(append([]string{"trainers", "create"}, args...)...).expect(t, cmdutil.ExitUsage)
	}
	if ts, err := srv.store.CompanyTrainers(ctx, srv.companyID, false); err != nil || len(ts) != 2 {
		t.Fatalf("trainers stored: %d, %v", len(ts), err)
	}
	hf := newHarness(t, srv.url, srv.key)
	r := hf.run("trainers", "create", "--name", "Zed", "--email", "zed@acme.example").expect(t, cmdutil.ExitForbidden)
	if !strings.Contains(r.err, "1029") || !strings.Contains(r.err, "hint: this command needs an admin key") {
		t.Errorf("full key: %s", r)
	}
	hf.run("trainers", "list").expect(t, 0) // every key lists them

	srv.addTrainees(t, srv.trainerID, "Carter", 3)
	r = h.run("trainers").expect(t, 0)
	want := fmt.Sprintf("ID\tNAME\tEMAIL\tACTIVE\tTRAINEES\n%s\tCoach Carter\tcoach@acme.example\tyes\t3\n%s\tSam Coach\tsam@acme.example\tyes\t0\n", carterID, samID)
	if r.out != want {
		t.Errorf("trainers list:\n%s\nwant\n%s", r.out, want)
	}
	if rows := readCSV(t, h.run("trainers", "list", "-o", "csv").expect(t, 0)); strings.Join(rows[0], ",") != "id,name,email,active,traineeCount" || rows[1][4] != "3" {
		t.Errorf("csv: %v", rows)
	}

	// get: by id or name; unknown ids and names exit 2.
	if got := decode[api.TrainerSummary](t, h.run("trainers", "get", "sam coach", "-o", "json").expect(t, 0)); got.ID != sam.ID {
		t.Errorf("get by name: %+v", got)
	}
	if r := h.run("trainers", "get", "999").expect(t, cmdutil.ExitUsage); !strings.Contains(r.err, "trainer: no trainer has id 999") {
		t.Errorf("get 999: %s", r)
	}
	if r := h.run("trainers", "get", "Sam").expect(t, cmdutil.ExitUsage); !strings.Contains(r.err, `did you mean "Sam Coach"`) {
		t.Errorf("get Sam: %s", r)
	}
	h.run("trainers", "get", "-3").expect(t, cmdutil.ExitUsage)

	// Another company's trainer: exit 2, as an unknown one, sending nothing.
	other, err := srv.store.CreateCompany(ctx, "Other Gym", "UTC")
	must(t, err)
	ho := newHarness(t, srv.url, srv.newAdminKey(t, other.ID))
	for _, args := range [][]string{{"get", samID}, {"update", samID, "--name", "x"}, {"deactivate", samID}, {"reassign", samID, "--to", samID, "--yes"}} {
		if r := ho.run(append([]string{"trainers"}, args...)...).expect(t, cmdutil.ExitUsage); !strings.Contains(r.err, "no trainer has id "+samID+": your company has no trainers") {
			t.Errorf("another company's trainer, %v: %s", args, r)
		}
	}

	// update: only the flags given.
	r = h.run("trainers", "update", "Sam Coach", "--email", "sam.coach@acme.example", "-o", "json").expect(t, 0)
	if got := decode[api.TrainerSummary](t, r); got.Email != "sam.coach@acme.example" || got.Name != "Sam Coach" {
		t.Errorf("update: %s", r)
	}
	h.run("trainers", "update", samID).expect(t, cmdutil.ExitUsage)
	h.run("trainers", "update", samID, "--email", "nope").expect(t, cmdutil.ExitUsage)

	// deactivate: refused while Carter has trainees, with the hint.
	r = h.run("trainers", "deactivate", "coach carter").expect(t, cmdutil.ExitRejected)
	if !strings.Contains(r.err, "1033") || !strings.Contains(r.err, "has 3 trainees") || !strings.Contains(r.err, "hint: give --reassign-to") {
		t.Errorf("deactivate with trainees: %s", r)
	}
	if c, _ := srv.store.CompanyTrainer(ctx, srv.companyID, srv.trainerID); !c.Active {
		t.Fatalf("a refused deactivation deactivated")
	}
	r = h.run("trainers", "deactivate", "coach carter", "--reassign-to", "Sam Coach", "-o", "json").expect(t, 0)
	if got := decode[api.TrainerSummary](t, r); got.Active || got.ID != srv.trainerID {
		t.Errorf("deactivated: %s", r)
	}
	srv.addTrainees(t, sam.ID, "Sam", 1)
	if n := len(searchTrainer(t, h, samID)); n != 4 {
		t.Errorf("Sam has %d trainees after the reassignment, want 4", n)
	}
	// Trainees given to a deactivated trainer: 400 1035, exit 5.
	h.run("trainers", "reassign", samID, "--to", carterID, "--yes").expect(t, cmdutil.ExitRejected)
	if r := h.run("trainers", "update", carterID, "--activate", "-o", "json").expect(t, 0); !strings.Contains(r.out, `"active": true`) {
		t.Errorf("--activate: %s", r)
	}

	// reassign: --yes off a terminal; the question names the count.
	if r := h.run("trainers", "reassign", "Sam Coach", "--to", "Coach Carter").expect(t, cmdutil.ExitUsage); !strings.Contains(r.err, "--yes") {
		t.Errorf("no terminal: %s", r)
	}
	r = h.runWith(runOpts{tty: true, stdin: "n\n"}, "trainers", "reassign", "Sam Coach", "--to", "Coach Carter").expect(t, cmdutil.ExitUsage)
	if !strings.Contains(r.err, "Move the 4 trainees of trainer Sam Coach ("+samID+"), and any soft-deleted ones, to trainer Coach Carter ("+carterID+")? [y/N]") {
		t.Errorf("question: %s", r)
	}
	if n := len(searchTrainer(t, h, samID)); n != 4 {
		t.Fatalf("a refused reassignment moved trainees")
	}
	r = h.runWith(runOpts{tty: true, stdin: "y\n"}, "trainers", "reassign", "Sam Coach", "--to", "Coach Carter").expect(t, 0)
	if !strings.Contains(r.out, "Sam Coach ("+samID+")") || !strings.Contains(r.err, "Moved 4 trainees") {
		t.Errorf("reassign: %s", r)
	}
	for _, tr := range searchTrainer(t, h, carterID) {
		if srv.trainerOf(t, tr.ID) != srv.trainerID {
			t.Errorf("trainee %d not moved", tr.ID)
		}
	}
	res := decode[map[string]any](t, h.run("trainers", "reassign", samID, "--to", carterID, "--yes", "-o", "json").expect(t, 0))
	if res["moved"] != float64(0) || res["timestamp"] != nil {
		t.Errorf("reassign -o json: %v", res)
	}
	h.run("trainers", "reassign", samID, "--yes").expect(t, cmdutil.ExitUsage) // no --to

	// Completion: the trainers' ids with their names.
	for _, args := range [][]string{{"trainers", "get", ""}, {"trainers", "reassign", samID, "--to", ""}, {"trainers", "deactivate", "", "--reassign-to", ""}} {
		if r := h.run(append([]string{"__complete"}, args...)...); !strings.Contains(r.out, samID+"\tSam Coach") {
			t.Errorf("completion %v: %s", args, r)
		}
	}
	if r := h.run("__complete", "trainers", "get", samID, ""); strings.Contains(r.out, "Sam Coach") {
		t.Errorf("a second argument completed: %s", r)
	}
}
