package commands_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/cmd/traineectl/internal/cmdutil"
	"github.com/traineed/traineed/store/storetest"
)

// search --mine lists the trainees of the key's trainer; whoami shows the
// trainer, ownTraineesOnly and the expiry.
func TestSearchMineAndWhoami(t *testing.T) {
	srv := newAdminServer(t)
	h := newHarness(t, srv.url, srv.admin)
	sam := decode[api.TrainerSummary](t, h.run("trainers", "create", "--name", "Sam Coach", "--email", "sam@acme.example", "-o", "json").expect(t, 0))
	mine := srv.addTrainees(t, sam.ID, "Sam", 2)
	srv.addTrainees(t, srv.trainerID, "Carter", 3)
	h.run("keys", "create", "--name", "Sam's phone", "--scope", "read", "--trainer", "Sam Coach", "--own-trainees-only",
		"--expires", "30d", "--save-profile", "sam").expect(t, 0)
	hs := withoutKey(h)

	got := decode[[]api.Trainee](t, hs.run("--profile", "sam", "search", "--mine", "--all", "-o", "json").expect(t, 0))
	if len(got) != 2 || got[0].ID != mine[0] || got[1].ID != mine[1] {
		t.Errorf("search --mine: %+v", got)
	}
	// Such a key counts no other trainer's trainees: "-".
	if r := hs.run("--profile", "sam", "trainers", "--fields", "name,trainees").expect(t, 0); r.out != "NAME\tTRAINEES\nCoach Carter\t-\nSam Coach\t2\n" {
		t.Errorf("trainers with an own-trainees-only key: %q", r.out)
	}
	// A full key of Sam's finds them too; a key that acts for no trainer
	// is a usage error.
	h.run("keys", "create", "--name", "Sam's laptop", "--scope", "full", "--trainer", fmt.Sprint(sam.ID), "--save-profile", "sam-full").expect(t, 0)
	if got := decode[[]api.Trainee](t, hs.run("--profile", "sam-full", "search", "--mine", "-o", "json").expect(t, 0)); len(got) != 2 {
		t.Errorf("search --mine with a full key of Sam's: %d trainees", len(got))
	}
	r := h.run("search", "--mine").expect(t, cmdutil.ExitUsage)
	if !strings.Contains(r.err, `--mine: the API key in use ("Laptop"`) || !strings.Contains(r.err, "acts for no trainer") || r.out != "" {
		t.Errorf("search --mine with a company key: %s", r)
	}

	who := decode[api.CurrentKey](t, hs.run("--profile", "sam", "whoami", "-o", "json").expect(t, 0))
	if who.TrainerID == nil || *who.TrainerID != sam.ID || !who.OwnTraineesOnly || who.ExpiresAt == nil || who.Scope != api.KeyScopeRead {
		t.Errorf("whoami json: %+v", who)
	}
	r = hs.runWith(runOpts{}, "--profile", "sam", "whoami", "--utc").expect(t, 0)
	rows := tableRows(r.out)
	if strings.Join(rows[0], "|") != "COMPANY|KEY|PREFIX|SCOPE|TRAINER|EXPIRES|RATE LIMIT" || rows[1][3] != "read" ||
		rows[1][4] != "Sam Coach (own only)" || rows[1][5] != testNow.AddDate(0, 0, 30).Format("2006-01-02 15:04") {
		t.Errorf("whoami table: %q", rows)
	}
	csv := readCSV(t, hs.run("--profile", "sam", "whoami", "-o", "csv").expect(t, 0))
	if strings.Join(csv[0][8:], ",") != "trainerId,trainerName,ownTraineesOnly,expiresAt" || csv[1][9] != "Sam Coach" || csv[1][10] != "true" {
		t.Errorf("whoami csv: %v", csv)
	}
	if rows := tableRows(h.run("whoami").expect(t, 0).out); rows[1][3] != "admin" || rows[1][4] != "-" || rows[1][5] != "never" {
		t.Errorf("whoami of the admin key: %q", rows)
	}
}

// A bulk update by --from-search with a key limited to its trainer's
// trainees plans and changes that trainer's trainees only: the other
// trainer's are neither listed nor touched.
func TestFromSearchWithAnOwnTraineesOnlyKey(t *testing.T) {
	srv := newAdminServer(t)
	h := newHarness(t, srv.url, srv.admin)
	sam := decode[api.TrainerSummary](t, h.run("trainers", "create", "--name", "Sam Coach", "--email", "sam@acme.example", "-o", "json").expect(t, 0))
	mine := srv.addTrainees(t, sam.ID, "Sam", 2)
	others := srv.addTrainees(t, srv.trainerID, "Carter", 3)
	h.run("keys", "create", "--name", "Sam's tablet", "--scope", "full", "--trainer", "Sam Coach", "--own-trainees-only",
		"--save-profile", "sam").expect(t, 0)
	hs := withoutKey(h)
	before := map[int64]*api.Trainee{}
	for _, id := range append(append([]int64{}, mine...), others...) {
		before[id] = storetest.MustGet(t, srv.store, srv.companyID, id)
	}
	dry := decode[[]struct {
		ID     int64  `json:"id"`
		Status string `json:"status"`
	}](t, hs.run("--profile", "sam", "update", "--from-search", "status=all", "--disable", "--dry-run", "-o", "json").expect(t, 0))
	if len(dry) != 2 || dry[0].ID != mine[0] || dry[1].ID != mine[1] || dry[0].Status != "would-change" {
		t.Fatalf("the dry run's plan %+v, want Sam's trainees %v only", dry, mine)
	}
	hs.run("--profile", "sam", "update", "--from-search", "status=all", "--disable", "--action-id", "sam-off", "-o", "json").expect(t, 0)
	for _, id := range mine {
		if got := storetest.MustGet(t, srv.store, srv.companyID, id); got.Enabled {
			t.Errorf("Sam's trainee %d still enabled", id)
		}
	}
	for _, id := range others {
		was, _ := json.Marshal(before[id])
		now, _ := json.Marshal(storetest.MustGet(t, srv.store, srv.companyID, id))
		if string(was) != string(now) {
			t.Errorf("another trainer's trainee %d changed:\n%s\n%s", id, was, now)
		}
	}
}
