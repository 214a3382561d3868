package commands_test

import (
	"fmt"
	"strings"
	"testing"

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
