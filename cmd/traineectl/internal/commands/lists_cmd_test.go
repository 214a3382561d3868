package commands_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/cmd/traineectl/internal/cmdutil"
	"github.com/traineed/traineed/store"
	"github.com/traineed/traineed/store/storetest"
)

// The list commands (automations list, automations runs, webhooks
// deliveries, events list) page as search does: one page without more,
// --limit N across pages, --all every row, and a note on stderr when fewer
// rows were printed than the list has.
func TestListCommandsLimitAll(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		url, full, _ := selfServiceServer(t, st)
		h := newHarness(t, url, full)
		p, err := st.Authenticate(ctx, api.HashKey(full))
		must(t, err)
		rc := storetest.NewReceiver(t, nil)
		fires, err := st.CreateAutomation(ctx, p.CompanyID, api.AutomationSpec{Name: "CRM", Enabled: true, TriggerType: api.TriggerTraineeCreated,
			ActionType: api.ActionWebhook, URL: &rc.URL}, api.GenerateWebhookSecret(), 0)
		must(t, err)
		for i := range 23 {
			_, err := st.CreateAutomation(ctx, p.CompanyID, api.AutomationSpec{Name: fmt.Sprint("Idle ", i), Enabled: true, TriggerType: api.TriggerInactive,
				Days: &[]int{30 + i}[0], ActionType: api.ActionDisableTrainee}, api.GenerateWebhookSecret(), 0)
			must(t, err)
		}
		wh, err := st.CreateWebhook(ctx, p.CompanyID, rc.URL, []string{api.EventTraineeCreated}, api.GenerateWebhookSecret())
		must(t, err)
		const trainees = 105 // more than a page of events (100)
		for i := range trainees {
			storetest.MustCreate(t, st, p.CompanyID, storetest.NewTrainee("Listed Trainee", fmt.Sprintf("listed.%d@example.com", i)))
		}
		runs, deliveries := fmt.Sprintf("%d", fires.ID), fmt.Sprintf("%d", wh.ID)

		// ids reads a JSON array's ids (or a delivery's deliveryId).
		ids := func(r result) []int64 {
			t.Helper()
			var rows []map[string]any
			must(t, json.Unmarshal([]byte(r.out), &rows))
			out := make([]int64, len(rows))
			for i, row := range rows {
				id, ok := row["id"].(float64)
				if !ok {
					id, _ = row["deliveryId"].(float64)
				}
				out[i] = int64(id)
			}
			return out
		}
		ordered := func(what string, got []int64, desc bool) {
			t.Helper()
			for i := 1; i < len(got); i++ {
				if got[i] == got[i-1] || (got[i] < got[i-1]) != desc {
					t.Fatalf("%s: out of order at %d: %v", what, i, got)
				}
			}
		}
		for _, c := range []struct {
			name    string
			args    []string
			rows    int
			note    string // "" for none
			ordered int    // 1 ascending, -1 descending, 0 unchecked
		}{
			{"automations, one page", []string{"automations", "list"}, 20, "Showing 20 of 24 automations; use --limit N or --all for more", 1},
			{"automations --limit", []string{"automations", "list", "--limit", "22"}, 22, "Showing 22 of 24 automations; use a larger --limit or --all for more", 1},
			{"automations --limit all of them", []string{"automations", "list", "--limit", "24"}, 24, "", 1},
			{"automations --all", []string{"automations", "list", "--all"}, 24, "", 1},
			{"runs, one page", []string{"automations", "runs", runs}, 20, "Showing 20 of 105 runs; use --limit N or --all for more", -1},
			{"runs --size", []string{"automations", "runs", runs, "--size", "7"}, 7, "Showing 7 of 105 runs; use --limit N or --all for more", -1},
			{"runs --limit -q", []string{"automations", "runs", runs, "--limit", "30", "-q"}, 30, "", -1},
			{"runs --all", []string{"automations", "runs", runs, "--all"}, trainees, "", -1},
			{"runs --all --size", []string{"automations", "runs", runs, "--all", "--size", "9"}, trainees, "", -1},
			{"deliveries, one page", []string{"webhooks", "deliveries", deliveries}, 20, "Showing 20 of more attempts; use --limit N or --all for more", -1},
			{"deliveries --limit", []string{"webhooks", "deliveries", deliveries, "--limit", "101"}, 101, "Showing 101 of more attempts; use a larger --limit or --all for more", -1},
			{"deliveries --all", []string{"webhooks", "deliveries", deliveries, "--all"}, trainees, "", -1},
			{"events, one page", []string{"events", "list"}, 100, "Showing 100 of more events; use --limit N or --all for more", 0},
			{"events --limit", []string{"events", "list", "--limit", "3"}, 3, "Showing 3 of more events; use a larger --limit or --all for more", 0},
			{"events --all", []string{"events", "list", "--all"}, trainees, "", 0},
			{"events --all --oldest-first", []string{"events", "list", "--all", "--oldest-first"}, trainees, "", 0},
		} {
			r := h.run(append(c.args, "-o", "json")...).expect(t, 0)
			got := ids(r)
			if len(got) != c.rows {
				t.Fatalf("%s: %d rows, want %d\n%s", c.name, len(got), c.rows, r.err)
			}
			if note := strings.TrimSpace(r.err); note != c.note {
				t.Fatalf("%s: stderr %q, want %q", c.name, note, c.note)
			}
			if c.ordered != 0 {
				ordered(c.name, got, c.ordered < 0)
			}
		}

		// Events: newest first, the feed reversed with --oldest-first; the
		// first page is the newest 100, not the oldest.
		var newest, oldest []api.Event
		must(t, json.Unmarshal([]byte(h.run("events", "list", "--all", "-o", "json").expect(t, 0).out), &newest))
		must(t, json.Unmarshal([]byte(h.run("events", "list", "--all", "--oldest-first", "-o", "json").expect(t, 0).out), &oldest))
		for i := range newest {
			if newest[i].ID != oldest[len(oldest)-1-i].ID {
				t.Fatalf("event %d newest first is %s, oldest first reversed %s", i, newest[i].ID, oldest[len(oldest)-1-i].ID)
			}
		}
		var page []api.Event
		must(t, json.Unmarshal([]byte(h.run("events", "list", "-o", "json").expect(t, 0).out), &page))
		if page[0].ID != newest[0].ID || page[99].ID != newest[99].ID {
			t.Fatalf("the first page is not the newest 100")
		}

		// Every format streams or gathers the same rows: CSV a header and a
		// line each, the table off a terminal a header and a line each.
		if csv := h.run("automations", "runs", runs, "--all", "-o", "csv").expect(t, 0).out; strings.Count(csv, "\n") != trainees+1 ||
			!strings.HasPrefix(csv, strings.Join([]string{"id", "automationId", "traineeId"}, ",")) {
			t.Fatalf("runs --all -o csv: %d lines", strings.Count(csv, "\n"))
		}
		if tsv := h.run("webhooks", "deliveries", deliveries, "--limit", "30").expect(t, 0).out; strings.Count(tsv, "\n") != 31 || !strings.HasPrefix(tsv, "EVENT\t") {
			t.Fatalf("deliveries --limit 30, table off a terminal: %q", tsv)
		}
		if yaml := h.run("events", "list", "--all", "-o", "yaml").expect(t, 0).out; strings.Count(yaml, "- id: evt_") != trainees {
			t.Fatalf("events --all -o yaml: %d events", strings.Count(yaml, "- id: evt_"))
		}
		tty := h.runWith(runOpts{tty: true}, "automations", "list", "--all").expect(t, 0)
		if strings.Count(tty.out, "Idle ") != 23 || strings.Contains(tty.err, "Showing") {
			t.Fatalf("automations list --all on a terminal: %s", tty)
		}
		if jq := h.run("automations", "runs", runs, "--all", "--jq", "length").expect(t, 0).out; strings.TrimSpace(jq) != fmt.Sprint(trainees) {
			t.Fatalf("runs --all --jq length: %q", jq)
		}

		// Flags that cannot go together, as search's.
		for _, args := range [][]string{
			{"automations", "list", "--all", "--limit", "5"},
			{"automations", "list", "--limit", "0"},
			{"automations", "runs", runs, "--all", "--page", "1"},
			{"automations", "runs", runs, "--limit", "3", "--page", "1"},
			{"automations", "runs", runs, "--size", "101"},
			{"webhooks", "deliveries", deliveries, "--limit", "-1"},
			{"events", "list", "--all", "--limit", "2"},
			{"events", "list", "--after", "41"},
		} {
			h.run(args...).expect(t, cmdutil.ExitUsage)
		}
		// --page still reads one page by number.
		var second []api.AutomationRun
		must(t, json.Unmarshal([]byte(h.run("automations", "runs", runs, "--page", "1", "--size", "5", "-o", "json").expect(t, 0).out), &second))
		all := ids(h.run("automations", "runs", runs, "--all", "-o", "json").expect(t, 0))
		if len(second) != 5 || second[0].ID != all[5] {
			t.Fatalf("--page 1 --size 5: %+v", second)
		}
		checkShownTimes(t, h, runs, deliveries)
	})
}

// checkShownTimes holds every table that shows an instant to the one form
// the docs define (yyyy-MM-dd HH:mm, here in UTC with --utc), the same
// instant JSON gives in RFC 3339.
func checkShownTimes(t *testing.T, h *harness, runs, deliveries string) {
	t.Helper()
	for _, c := range []struct {
		args          []string
		header, field string
	}{
		{[]string{"events", "list", "--limit", "3"}, "CREATED", "createdAt"},
		{[]string{"automations", "runs", runs, "--limit", "3"}, "FIRED AT", "firedAt"},
		{[]string{"webhooks", "deliveries", deliveries, "--limit", "3"}, "TIME", "time"},
		{[]string{"webhooks", "list"}, "CREATED", "createdAt"},
		{[]string{"automations", "list", "--limit", "1"}, "LAST RUN", "lastRunAt"},
	} {
		checkShownTime(t, h, c.args, c.header, c.field)
	}
}

// checkShownTime holds the column header of the table of args to the one
// form of instants (see checkShownTimes): the instant of field in JSON,
// or "never" for none.
func checkShownTime(t *testing.T, h *harness, args []string, header, field string) {
	t.Helper()
	table := strings.Split(strings.TrimRight(h.run(append(args, "--utc")...).expect(t, 0).out, "\n"), "\n")
	var rows []map[string]any
	must(t, json.Unmarshal([]byte(h.run(append(args, "-o", "json")...).expect(t, 0).out), &rows))
	col := slices.Index(strings.Split(table[0], "\t"), header)
	if col < 0 || len(rows) != len(table)-1 {
		t.Fatalf("%v: no %s column or %d rows for %d: %q", args, header, len(table)-1, len(rows), table)
	}
	for i, row := range rows {
		cell := strings.Split(table[i+1], "\t")[col]
		s, _ := row[field].(string)
		at, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			if cell != "never" {
				t.Errorf("%v row %d: %s %q, JSON %q", args, i, header, cell, s)
			}
			continue
		}
		if want := at.UTC().Format("2006-01-02 15:04"); cell != want {
			t.Errorf("%v row %d: %s %q, want %q", args, i, header, cell, want)
		}
	}
}
