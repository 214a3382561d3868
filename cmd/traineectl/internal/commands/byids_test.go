package commands_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/cmd/traineectl/internal/cmdutil"
	"github.com/traineed/traineed/store"
	"github.com/traineed/traineed/store/storetest"
)

// Enable, disable and delete of automations and webhooks, and delete and
// restore of trainees, share one implementation: the same note per
// resource on a terminal ("<Done> <resource> N (name)", nothing
// elsewhere), the same printing, and with several ids the same handling of
// the one that fails (reported, the others done, exit status of the
// failure).
func TestEnableDisableDeleteByIDs(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		url, full, _ := selfServiceServer(t, st)
		rc := storetest.NewReceiver(t, nil)
		h := newHarness(t, url, full)
		tty := runOpts{tty: true}

		var a1, a2 api.Automation
		for _, p := range []*api.Automation{&a1, &a2} {
			out := h.run("automations", "create", "--name", "Rule "+fmt.Sprint(p == &a2), "--trigger", "TRAINEE_CREATED",
				"--action", "DISABLE_TRAINEE", "-o", "json").expect(t, 0).out
			must(t, json.Unmarshal([]byte(out), p))
		}
		var w api.Webhook
		must(t, json.Unmarshal([]byte(h.run("webhooks", "add", "--url", rc.URL, "-o", "json").expect(t, 0).out), &w))
		id1, id2, wid := fmt.Sprint(a1.ID), fmt.Sprint(a2.ID), fmt.Sprint(w.ID)

		for _, c := range []struct {
			args []string
			note string // on a terminal's stderr
			out  string // in the table on stdout
		}{
			{[]string{"automations", "disable", id1, id2},
				fmt.Sprintf("Disabled automation %s (Rule false)\nDisabled automation %s (Rule true)\n", id1, id2), "disabled"},
			{[]string{"automations", "enable", id2},
				fmt.Sprintf("Enabled automation %s (Rule true)\n", id2), "enabled"},
			{[]string{"webhooks", "disable", wid}, fmt.Sprintf("Disabled webhook %s (%s)\n", wid, rc.URL), "disabled"},
			{[]string{"webhooks", "enable", wid}, fmt.Sprintf("Enabled webhook %s (%s)\n", wid, rc.URL), "active"},
		} {
			r := h.runWith(tty, c.args...).expect(t, 0)
			if r.err != c.note || !strings.Contains(r.out, c.out) {
				t.Errorf("%v on a terminal: %s; want the note %q and %q", c.args, r, c.note, c.out)
			}
			if r := h.run(c.args...).expect(t, 0); r.err != "" {
				t.Errorf("%v off a terminal: %s; want no note", c.args, r)
			}
		}

		// Several ids, one unknown: it is reported, the other is done and
		// printed, and the exit status is the failure's.
		r := h.run("automations", "disable", id1, "999999", "-o", "json").expect(t, cmdutil.ExitNotFound)
		var got []api.Automation
		must(t, json.Unmarshal([]byte(r.out), &got))
		if len(got) != 1 || got[0].ID != a1.ID || got[0].Enabled || !strings.Contains(r.err, "999999") {
			t.Errorf("disable of a known and an unknown id: %s", r)
		}

		r = h.runWith(tty, "webhooks", "delete", wid, "--yes").expect(t, 0)
		if r.err != fmt.Sprintf("Deleted webhook %s (%s)\n", wid, rc.URL) || !strings.Contains(r.out, rc.URL) {
			t.Errorf("webhooks delete on a terminal: %s", r)
		}
		h.run("webhooks", "get", wid).expect(t, cmdutil.ExitNotFound)
		r = h.runWith(tty, "automations", "delete", id1, id2, "--yes").expect(t, 0)
		if want := fmt.Sprintf("Deleted automation %s (Rule false)\nDeleted automation %s (Rule true)\n", id1, id2); r.err != want {
			t.Errorf("automations delete on a terminal: %s; want %q", r, want)
		}
		h.run("automations", "get", id2).expect(t, cmdutil.ExitNotFound)
	})
}
