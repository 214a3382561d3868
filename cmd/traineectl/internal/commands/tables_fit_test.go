package commands_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/olekukonko/tablewriter/pkg/twwidth"
	"github.com/spf13/cobra"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/client"
	"github.com/traineed/traineed/cmd/traineectl/internal/cmdutil"
	"github.com/traineed/traineed/cmd/traineectl/internal/commands"
	"github.com/traineed/traineed/cmd/traineectl/internal/iostreams"
	"github.com/traineed/traineed/store/storetest"
)

// printsNoTable are the leaf commands of traineectl whose standard output
// in the table format is no table, and why. Every other leaf command is
// run by TestTablesFitTheTerminal at 80 and 120 columns; a command that is
// in neither (a new one) fails the test, and so does an entry here that
// names no command any more or a command that the test runs as well.
var printsNoTable = map[string]string{
	"completion":             "a shell script",
	"config current":         "the current profile's name, one word",
	"config delete-profile":  "nothing: a note on stderr",
	"config set-profile":     "nothing: a note on stderr",
	"config use":             "nothing: a note on stderr",
	"events listen":          "follows the feed until interrupted: one line of fixed fields per event (time, type, id), no columns to fit",
	"export":                 "a document (JSON, YAML or CSV), never a table",
	"keys create":            "the secret alone (for `> file` or `$(...)`), or nothing with --save-profile",
	"keys rotate":            "the new secret alone, or nothing with --save-profile",
	"tui":                    "a full screen: its layout has golden screens at 80x24 and 120x35 (tui's TestGolden)",
	"version":                "one line of text",
	"webhooks add":           "the webhook's id, URL and secret as lines of text (the secret must never be cut)",
	"webhooks redeliver":     "one sentence: how many deliveries were scheduled",
	"webhooks rotate-secret": "the new secret as lines of text (it must never be cut)",
}

// leafCommands are the paths ("webhooks list") of every command of the
// tree that runs something and has no subcommands.
func leafCommands(root *cobra.Command) []string {
	var out []string
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if !c.HasSubCommands() && c.Runnable() && c != root {
			out = append(out, strings.TrimPrefix(c.CommandPath(), root.Name()+" "))
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	slices.Sort(out)
	return out
}

// newTestRoot is traineectl's command tree, for its shape only.
func newTestRoot() *cobra.Command {
	ios, _, _ := iostreams.Test("")
	return commands.NewRoot(&cmdutil.Factory{IOStreams: ios})
}

// Every table that traineectl prints fits a terminal of 80 and of 120
// columns over the demo data: no line is wider than the screen (a wider
// one wraps mid-cell: "2026-11-" / "28 00:31"), empty columns going first,
// then the least useful. The commands are the tree's: each leaf command
// is run below or exempted in printsNoTable, or the test fails.
func TestTablesFitTheTerminal(t *testing.T) {
	h, c := demoServer(t)
	root := newTestRoot()
	ran := map[string]bool{}
	for _, width := range []int{80, 120} {
		for _, args := range fitScene(t, h, c, width) {
			cmd, _, err := root.Find(args)
			if err != nil {
				t.Fatalf("%v: %v", args, err)
			}
			ran[strings.TrimPrefix(cmd.CommandPath(), root.Name()+" ")] = true
			r := h.runWith(atWidth(width), args...)
			if slices.Contains(args, "--extend") && !wholeDateChange.MatchString(r.out) {
				t.Errorf("traineectl %s at %d columns cut the change's dates:\n%s", strings.Join(args, " "), width, r.out)
			}
			if r.code != 0 {
				t.Errorf("traineectl %s at %d columns: %s", strings.Join(args, " "), width, r)
				continue
			}
			if strings.TrimSpace(r.out) == "" {
				t.Errorf("traineectl %s at %d columns printed nothing: exempt it in printsNoTable, or run it so that it prints its table", strings.Join(args, " "), width)
			}
			for _, l := range strings.Split(r.out, "\n") {
				if w := twwidth.Width(l); w > width {
					t.Errorf("traineectl %s at %d columns: a line of %d:\n%s", strings.Join(args, " "), width, w, l)
				}
			}
			if readsOnly(args) {
				emptyColumnsGoFirst(t, h, args, width, r.out)
			}
		}
	}
	for _, p := range leafCommands(root) {
		_, exempt := printsNoTable[p]
		switch {
		case !ran[p] && !exempt:
			t.Errorf("traineectl %s is neither run by TestTablesFitTheTerminal (fitScene) nor exempted in printsNoTable: "+
				"run it at both widths if it prints a table, else say in printsNoTable what it prints", p)
		case ran[p] && exempt:
			t.Errorf("traineectl %s is run by TestTablesFitTheTerminal and exempted in printsNoTable: drop one", p)
		}
	}
	for p := range printsNoTable {
		if cmd, _, err := root.Find(strings.Fields(p)); err != nil || strings.TrimPrefix(cmd.CommandPath(), root.Name()+" ") != p {
			t.Errorf("printsNoTable names %q, which is no command of traineectl", p)
		}
	}
}

// fitScene makes what the commands of one width act on (a trainee to
// delete, restore and erase, a webhook, automations (one that fires for
// that trainee: its runs), a key and a trainer, each named long) and returns the command lines to run, in
// order: every one of them prints a table.
func fitScene(t *testing.T, h *harness, c *client.Client, width int) [][]string {
	t.Helper()
	ctx := context.Background()
	w := fmt.Sprint(width)
	page, err := c.SearchTrainees(ctx, client.SearchParams{Size: 5})
	must(t, err)
	id := fmt.Sprint(page.Content[0].ID)
	rc := storetest.NewReceiver(t, nil)
	wh := decode[api.Webhook](t, h.run("webhooks", "add", "--url", rc.URL+"/a-rather-long-path/of/a/receiver/that/takes/room/"+w, "-o", "json").expect(t, 0))
	whID := fmt.Sprint(wh.ID)
	h.run("update", id, "--name", "Ada Parkinson-Whitfield").expect(t, 0) // an event for the webhook
	au := decode[api.Automation](t, h.run("automations", "create", "--name", "Idle members of a long-named coach "+w, "--trigger", "INACTIVE", "--days", "14",
		"--trainer", "Maya Brooks", "--action", "WEBHOOK", "--url", "https://crm.example/hooks/inactive-members", "-o", "json").expect(t, 0))
	auID := fmt.Sprint(au.ID)
	welcome := decode[api.Automation](t, h.run("automations", "create", "--name", "Welcome every new member warmly "+w, "--trigger", "TRAINEE_CREATED",
		"--action", "WEBHOOK", "--url", "https://crm.example/hooks/welcome", "-o", "json").expect(t, 0))
	gone := decode[api.Trainee](t, h.run("create", "--name", "Bartholomew Featherstonehaugh "+w, "--email", "bart"+w+"@example.com",
		"--password", "S3cret-pass", "-o", "json").expect(t, 0))
	goneID := fmt.Sprint(gone.ID)
	key := decode[api.APIKey](t, h.run("keys", "create", "--name", "Front desk tablet by the long entrance "+w, "--scope", "read", "-o", "json").expect(t, 0))
	keyID := fmt.Sprint(key.ID)
	coach := "Constance Worthington-Smythe " + w
	h.run("config", "set-profile", "a-rather-long-profile-name-"+w, "--base-url", "http://127.0.0.1:9/a/long/path/to/the/api", "--api-key", stubKey).expect(t, 0)
	dir := t.TempDir()
	editor := filepath.Join(dir, "editor.sh")
	must(t, os.WriteFile(editor, []byte("#!/bin/sh\nsed -i 's/^name: .*/name: Ada Parkinson-Whitfield-Edited/' \"$1\"\n"), 0o755))
	h.env["EDITOR"] = editor
	bulk := filepath.Join(dir, "new.csv")
	must(t, os.WriteFile(bulk, []byte("name,email,password\nPenelope Cruz-Montgomery "+w+",pen"+w+"@example.com,S3cret-pass\n"), 0o600))

	return [][]string{
		{"search"}, {"search", "--status", "all"}, {"get", id},
		{"create", "--name", "Wilhelmina Ashworth-Blackwood " + w, "--email", "wilhelmina.ashworth" + w + "@example.com", "--password", "S3cret-pass",
			"--phone", "+447700900" + w, "--expires", "31-12-2027", "--trainer", "Maya Brooks"},
		{"apply", "-f", bulk, "--dry-run"},
		{"update", id, "--expires", "31-12-2027"},
		{"update", "--from-search", "status=active", "--extend", "30d", "--dry-run"},
		{"edit", id},
		{"delete", goneID, "--yes"}, {"restore", goneID},
		{"erase", goneID, "--confirm", gone.Email},
		{"weight", id}, {"measurements", id}, {"nutrition", id, "--date", "20-11-2026"}, {"steps", id}, {"steps", id, "--daily"},
		{"automations", "list"}, {"automations", "get", auID}, {"automations", "update", auID, "--days", "21"},
		{"automations", "disable", auID}, {"automations", "enable", auID}, {"automations", "runs", fmt.Sprint(welcome.ID)}, {"automations", "test", auID},
		{"automations", "create", "--name", "Say goodbye to every leaving member " + w, "--trigger", "TRAINEE_DELETED", "--action", "WEBHOOK",
			"--url", "https://crm.example/hooks/goodbye"},
		{"automations", "delete", auID, "--yes"},
		{"webhooks", "list"}, {"webhooks", "get", whID}, {"webhooks", "deliveries", whID}, {"webhooks", "test", whID},
		{"webhooks", "update", whID, "--events", "trainee.created,trainee.updated,trainee.deleted"},
		{"webhooks", "disable", whID}, {"webhooks", "enable", whID}, {"webhooks", "delete", whID, "--yes"},
		{"events", "list"},
		{"trainers", "list"}, {"trainers", "create", "--name", coach, "--email", "constance" + w + "@example.com"},
		{"trainers", "get", coach}, {"trainers", "update", coach, "--email", "constance.ws" + w + "@example.com"},
		{"trainers", "reassign", "Maya Brooks", "--to", coach, "--yes"}, {"trainers", "deactivate", coach, "--reassign-to", "Maya Brooks"},
		{"keys", "list"}, {"keys", "get", keyID}, {"keys", "update", keyID, "--name", "Front desk tablet by the longer entrance " + w},
		{"keys", "revoke", keyID, "--yes"},
		{"company", "get"}, {"company", "update", "--name", "Demo Fitness"},
		{"whoami"}, {"config", "list"}, {"config", "get"},
	}
}

// wholeDateChange is an extension's change as a bulk update's dry run
// must show it at any width: the old date and the new one, whole.
var wholeDateChange = regexp.MustCompile(`expirationDate \d\d-\d\d-\d{4} → \d\d-\d\d-\d{4}`)

// readsOnly reports whether the command line changes nothing, so that it
// may run a second time off a terminal.
func readsOnly(args []string) bool {
	switch last := args[len(args)-1]; {
	case slices.Contains(args, "--dry-run"):
		return true
	case len(args) > 1 && slices.Contains([]string{"list", "get", "deliveries", "runs"}, args[1]):
		return true
	case last == "--daily" || slices.Contains([]string{"search", "get", "weight", "measurements", "nutrition", "steps", "whoami"}, args[0]):
		return true
	}
	return false
}

// emptyColumnsGoFirst checks that a table which lost something at width
// (a cell cut with "…", or a column that says something) shows no column
// that is empty in every row (each cell "" or "-"): the empty ones go
// first. The table's whole columns are read off a terminal (tab-separated,
// nothing cut).
func emptyColumnsGoFirst(t *testing.T, h *harness, args []string, width int, fitted string) {
	t.Helper()
	whole := tableRows(h.run(args...).expect(t, 0).out)
	if len(whole) < 2 {
		return
	}
	lines := strings.SplitN(fitted, "\n", 2)
	shown := map[string]bool{}
	for _, title := range regexp.MustCompile(`\s{2,}`).Split(strings.TrimSpace(lines[0]), -1) {
		shown[title] = true
	}
	var empty []string
	lost := strings.Contains(fitted, "…")
	for i, title := range whole[0] {
		hasValue := false
		for _, row := range whole[1:] {
			if i < len(row) && row[i] != "" && row[i] != "-" {
				hasValue = true
			}
		}
		switch {
		case !hasValue && shown[title]:
			empty = append(empty, title)
		case hasValue && !shown[title]:
			lost = true
		}
	}
	if lost && len(empty) > 0 {
		t.Errorf("traineectl %s at %d columns shows the empty columns %v while it cuts or leaves out others:\n%s",
			strings.Join(args, " "), width, empty, fitted)
	}
}
