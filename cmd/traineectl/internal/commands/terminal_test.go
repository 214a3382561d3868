package commands_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/traineed/traineed/api/apitest"
)

// TestHostileServerText: whatever a server sends, no control character
// (but the output's own newlines, tabs and colours), DEL, C1 control or
// bidirectional formatting character reaches the terminal, on stdout or
// stderr, through any output of traineectl: tables on a terminal (in
// colour) and off one, --fields, CSV, --template, --jq, messages, errors
// (text and JSON), the verbose trace, a bulk import's progress and report,
// and completions. The text is shown
// escaped, and -o json and yaml keep the data exact.
func TestHostileServerText(t *testing.T) {
	srv := apitest.Server(t)
	h := newHarness(t, srv.URL, stubKey)
	reads := [][]string{
		{"search"}, {"search", "--all"}, {"get", "41"}, {"trainers", "list"}, {"whoami"},
		{"weight", "41"}, {"measurements", "41"}, {"nutrition", "41"},
		{"webhooks", "list"}, {"webhooks", "get", "3"}, {"webhooks", "deliveries", "3"},
		{"automations", "list"}, {"automations", "runs", "9"}, {"events", "list"},
	}
	formats := [][]string{{}, {"--fields", "name,email"}, {"-o", "csv"}, {"-o", "json"}, {"-o", "yaml"},
		{"--template", "{{range .}}{{.}}{{\"\\n\"}}{{end}}"}, {"--jq", ".. | strings"}, {"-v"}}
	check := func(args []string, r result, shown bool) {
		t.Helper()
		for stream, s := range map[string]string{"stdout": r.out, "stderr": r.err} {
			if err := apitest.TerminalSafe(s); err != nil {
				t.Errorf("traineectl %s: %s: %v\n%s", strings.Join(args, " "), stream, err, r)
			}
		}
		if shown && !strings.Contains(r.out+r.err, `Eve\u001b]0;pwned`) {
			t.Errorf("traineectl %s: the hostile text is not shown escaped:\n%s", strings.Join(args, " "), r)
		}
	}
	for _, read := range reads {
		for _, format := range formats {
			args := append(append([]string{}, read...), format...)
			if len(format) > 0 && format[0] == "--fields" && read[0] != "search" && read[0] != "get" {
				continue // only trainees have those columns
			}
			for _, tty := range []bool{false, true} {
				r := h.runWith(runOpts{tty: tty, color: tty}, args...)
				if r.code != 0 {
					t.Errorf("traineectl %s (terminal %v): %s", strings.Join(args, " "), tty, r)
					continue
				}
				check(args, r, !(len(format) > 1 && (format[1] == "json" || format[1] == "yaml")))
			}
		}
	}

	// JSON and YAML keep the data exact.
	for _, f := range []string{"json", "yaml"} {
		r := h.run("get", "41", "-o", f).expect(t, 0)
		var got map[string]any
		var err error
		if f == "json" {
			err = json.Unmarshal([]byte(r.out), &got)
		} else {
			err = yaml.Unmarshal([]byte(r.out), &got)
		}
		if err != nil || got["name"] != apitest.Hostile || got["email"] != apitest.Hostile || got["phoneNumber"] != apitest.Hostile {
			t.Errorf("-o %s: %v, name %q:\n%s", f, err, got["name"], r.out)
		}
	}
	var a []map[string]any
	if r := h.run("automations", "list", "-o", "json").expect(t, 0); json.Unmarshal([]byte(r.out), &a) != nil || a[0]["name"] != apitest.Hostile {
		t.Errorf("automations -o json: %s", r.out)
	}

	// Errors: a 400 whose message, field and errors are hostile, in text
	// and in JSON, with and without the trace; and the notes of changes.
	for _, args := range [][]string{
		{"create", "--name", "Ada", "--email", "ada@example.com", "--password", "12345678"},
		{"update", "41", "--name", "Ada"},
		{"webhooks", "test", "3"},
		{"webhooks", "redeliver", "evt_1"},
		{"automations", "create", "--name", "n", "--trigger", "TRAINEE_CREATED", "--action", "DISABLE_TRAINEE"},
		// These succeed, with a note naming what was done.
		{"delete", "41", "--yes"},
		{"webhooks", "delete", "3", "--yes"},
		{"automations", "delete", "9", "--yes"},
	} {
		for _, extra := range [][]string{{}, {"-o", "json"}, {"-v"}} {
			all := append(append([]string{}, args...), extra...)
			r := h.runWith(runOpts{tty: true, color: true}, all...)
			if ok := r.code == 0; ok != (args[0] == "delete" || args[1] == "delete") {
				t.Errorf("traineectl %s: %s", strings.Join(all, " "), r)
			}
			check(all, r, len(extra) == 0 || extra[0] != "-o")
		}
	}
	// A bulk import: the server's refusal of a row, and a row refused here.
	in := writeFile(t, "rows.csv", "name,email,password\nAda,ada@example.com,S3cret-pass\n\"Bidi \u202egnp\",bidi@example.com,S3cret-pass\n")
	for _, extra := range [][]string{{}, {"--dry-run"}, {"-v"}} {
		args := append([]string{"create", "-f", in}, extra...)
		r := h.runWith(runOpts{tty: true, color: true}, args...)
		if r.code == 0 || !strings.Contains(r.out+r.err, "(U+202E)") {
			t.Errorf("traineectl %s: %s", strings.Join(args, " "), r)
		}
		check(args, r, len(extra) == 0)
	}
	r := h.run("create", "--name", "Ada", "--email", "ada@example.com", "--password", "12345678", "-o", "json")
	var e struct {
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal([]byte(r.err), &e) != nil || e.Error.Message != apitest.Hostile {
		t.Errorf("the JSON error does not keep the message: %s", r.err)
	}

	// events listen prints each event as it comes, until Ctrl-C.
	for _, format := range []string{"table", "json", "yaml", "csv"} {
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		args := []string{"events", "listen", "--since", "all", "-o", format}
		r := h.runWith(runOpts{tty: true, ctx: ctx}, args...)
		cancel()
		check(args, r, format != "json" && format != "yaml")
	}

	// Completions offer ids with their names as descriptions.
	for _, args := range [][]string{{"__complete", "get", ""}, {"__complete", "webhooks", "get", ""}, {"__complete", "automations", "get", ""}} {
		check(args, h.run(args...).expect(t, 0), true)
	}
}

// TestHostileTextRefusedLocally: text the server refuses (1016) is refused
// before anything is sent (a usage error, exit 2; the hostile server would
// answer a 400, exit 5), for every command that sends text, and the
// refusal names the character without writing it.
func TestHostileTextRefusedLocally(t *testing.T) {
	h := newHarness(t, apitest.Server(t).URL, stubKey)
	for _, bad := range []string{"Bidi \u202egnp.exe", "C1 \u009b31m", "del\x7f", "iso\u2066late"} {
		for _, args := range [][]string{
			{"create", "--name", bad, "--email", "ada@example.com", "--password", "12345678"},
			{"update", "41", "--name", bad},
			{"search", bad},
			{"webhooks", "add", "--url", "https://crm.example/" + bad},
			{"webhooks", "update", "3", "--url", "https://crm.example/" + bad},
			{"automations", "create", "--name", bad, "--trigger", "TRAINEE_CREATED", "--action", "DISABLE_TRAINEE"},
			{"automations", "update", "9", "--url", "https://crm.example/" + bad},
		} {
			r := h.run(args...)
			if r.code != 2 || !strings.Contains(r.err, "U+") {
				t.Errorf("traineectl %q: want a usage error naming the character, got %s", args, r)
			}
			if err := apitest.TerminalSafe(r.err); err != nil {
				t.Errorf("traineectl %q: %v", args, err)
			}
		}
	}
}
