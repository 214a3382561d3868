package commands_test

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/server"
	"github.com/traineed/traineed/store/storetest"
)

// traineectl automations against the real server: every verb, every output
// format, the exit codes, completion of automation ids.
func TestAutomationsCommands(t *testing.T) {
	ctx := context.Background()
	st := storetest.SQLite(t)
	co, err := st.CreateCompany(ctx, "Auto Gym", "UTC")
	must(t, err)
	other, err := st.CreateCompany(ctx, "Other Gym", "UTC")
	must(t, err)
	storetest.MustTrainer(t, st, co.ID, "Coach", "coach@auto.example")
	storetest.MustTrainer(t, st, other.ID, "Coach", "coach@other.example")
	key, otherKey := api.GenerateKey(), api.GenerateKey()
	_, err = st.CreateKey(ctx, co.ID, "k", api.HashKey(key), api.KeyDisplayPrefix(key))
	must(t, err)
	_, err = st.CreateKey(ctx, other.ID, "k", api.HashKey(otherKey), api.KeyDisplayPrefix(otherKey))
	must(t, err)
	srv := httptest.NewServer(server.NewHandler(st, server.WithHasher(cheapHasher), server.WithOutbound(storetest.LoopbackOutbound()), server.WithClock(func() time.Time { return testNow })))
	defer srv.Close()
	h := newHarness(t, srv.URL, key)

	// create from flags: JSON carries the secret once.
	var a api.Automation
	out := h.run("automations", "create", "--name", "CRM week", "--trigger", "EXPIRATION_APPROACHING", "--days", "7",
		"--action", "WEBHOOK", "--url", "https://crm.example/hook", "-o", "json").expect(t, 0).out
	must(t, json.Unmarshal([]byte(out), &a))
	if a.ID == 0 || !strings.HasPrefix(a.Secret, "whsec_") || *a.Trigger.Days != 7 {
		t.Fatalf("created %s", out)
	}
	id := fmt.Sprint(a.ID)
	// Table: the secret on stderr.
	r := h.run("automations", "create", "--name", "Idle", "--trigger", "INACTIVE", "--days", "14", "--status", "active",
		"--action", "WEBHOOK", "--url", "https://crm.example/idle").expect(t, 0)
	if !strings.Contains(r.err, "whsec_") || strings.Contains(r.out, "whsec_") || !strings.Contains(r.out, "INACTIVE 14d") {
		t.Fatalf("table create: %s", r)
	}
	// From a YAML file, flags overriding.
	file := filepath.Join(t.TempDir(), "a.yaml")
	must(t, os.WriteFile(file, []byte("name: from yaml\ntrigger:\n  type: TRAINEE_CREATED\nactionType: DISABLE_TRAINEE\nenabled: true\n"), 0o600))
	r = h.run("automations", "create", "-f", file, "--disabled", "-o", "yaml").expect(t, 0)
	if !strings.Contains(r.out, "name: from yaml") || !strings.Contains(r.out, "enabled: false") || !strings.Contains(r.out, "type: TRAINEE_CREATED") {
		t.Fatalf("yaml create: %s", r)
	}
	// A member of the wrong type is a usage error, as --days seven is: the
	// typed parameters find it before anything is sent.
	must(t, os.WriteFile(file, []byte("name: typed\ntrigger:\n  type: INACTIVE\n  days: seven\nactionType: DISABLE_TRAINEE\n"), 0o600))
	r = h.run("automations", "create", "-f", file, "-o", "json").expect(t, 2)
	if !strings.Contains(r.err, "trigger.days has the wrong type") {
		t.Fatalf("wrong type: %s", r)
	}
	// Reserved and invalid actions: exit 5 with the error code.
	r = h.run("automations", "create", "--name", "mail", "--trigger", "TRAINEE_CREATED", "--action", "EMAIL", "-o", "json").expect(t, 5)
	if !strings.Contains(r.err, `"errorCode":1013`) || !strings.Contains(r.err, `"field":"actionType"`) {
		t.Fatalf("EMAIL: %s", r)
	}
	h.run("automations", "create", "--name", "x", "--trigger", "TRAINEE_CREATED", "--action", "FAX").expect(t, 5)
	h.run("automations", "create").expect(t, 2)
	h.run("automations", "create", "--name", "x", "--days", "seven").expect(t, 2)

	// list in every format.
	r = h.run("automations", "list").expect(t, 0)
	for _, want := range []string{"CRM week", "Idle", "from ya", "EXPIRATION_APPROACHING 7d", "disabled", "never"} {
		if !strings.Contains(r.out, want) {
			t.Fatalf("list table lacks %q:\n%s", want, r.out)
		}
	}
	var list []api.Automation
	must(t, json.Unmarshal([]byte(h.run("automations", "list", "-o", "json").expect(t, 0).out), &list))
	if len(list) != 3 || list[0].Secret != "" {
		t.Fatalf("list json %+v", list)
	}
	rows, err := csv.NewReader(strings.NewReader(h.run("automations", "list", "-o", "csv").expect(t, 0).out)).ReadAll()
	must(t, err)
	if len(rows) != 4 || rows[0][0] != "id" || rows[1][3] != "EXPIRATION_APPROACHING" || rows[1][4] != "7" {
		t.Fatalf("csv %v", rows)
	}

	// update, disable, enable, get.
	r = h.run("automations", "update", id, "--days", "3", "--trainer", "none", "-o", "json").expect(t, 0)
	if !strings.Contains(r.out, `"days": 3`) {
		t.Fatalf("update: %s", r)
	}
	h.run("automations", "update", id).expect(t, 2)
	if r := h.run("automations", "disable", id, "-o", "json").expect(t, 0); !strings.Contains(r.out, `"enabled": false`) {
		t.Fatalf("disable: %s", r)
	}
	if r := h.run("automations", "enable", id, "-o", "json").expect(t, 0); !strings.Contains(r.out, `"enabled": true`) {
		t.Fatalf("enable: %s", r)
	}
	h.run("automations", "get", id).expect(t, 0)
	// Another company's id: exit 4, "automation N not found".
	hb := newHarness(t, srv.URL, otherKey)
	for _, args := range [][]string{{"get", id}, {"update", id, "--name", "x"}, {"enable", id}, {"runs", id}, {"test", id}, {"delete", id, "--yes"}} {
		r := hb.run(append([]string{"automations"}, args...)...).expect(t, 4)
		if !strings.Contains(r.err, "automation "+id+" not found") {
			t.Fatalf("%v: %s", args, r)
		}
	}

	// test and runs: the TRAINEE_CREATED automation is disabled, so the new
	// trainee fired nothing, but the dry run lists whom it would fire for.
	_, err = st.CreateTrainee(ctx, co.ID, storetest.NewTrainee("Ada Park", "ada@auto.example"))
	must(t, err)
	r = h.run("automations", "test", id, "-o", "json").expect(t, 0)
	if strings.TrimSpace(r.out) != "[]" {
		t.Fatalf("test of EXPIRATION_APPROACHING with nobody expiring: %s", r)
	}
	yamlID := ""
	for _, a := range list {
		if a.Name == "from yaml" {
			yamlID = fmt.Sprint(a.ID)
		}
	}
	r = h.run("automations", "test", yamlID, "-o", "csv").expect(t, 0)
	if !strings.Contains(r.out, "ada@auto.example") {
		t.Fatalf("test: %s", r)
	}
	r = h.run("automations", "runs", id, "-o", "json").expect(t, 0)
	if strings.TrimSpace(r.out) != "[]" {
		t.Fatalf("runs: %s", r)
	}
	h.run("automations", "runs", id, "--size", "101").expect(t, 2)

	// Completion of automation ids, with their names.
	r = h.run("__complete", "automations", "get", "")
	if !strings.Contains(r.out, id+"\tCRM week") {
		t.Fatalf("completion: %s", r)
	}

	// delete: --yes needed off a terminal.
	h.run("automations", "delete", id).expect(t, 2)
	if r := h.run("automations", "delete", id, "--yes", "-o", "json").expect(t, 0); !strings.Contains(r.out, `"name": "CRM week"`) {
		t.Fatalf("delete: %s", r)
	}
	h.run("automations", "get", id).expect(t, 4)
}

// automations list names the trainer of a condition, as people read it
// ("trainer Maya Brooks (#7)"); JSON and CSV keep the id.
func TestAutomationsListNamesTheTrainer(t *testing.T) {
	ctx := context.Background()
	st := storetest.SQLite(t)
	co, err := st.CreateCompany(ctx, "Named Gym", "UTC")
	must(t, err)
	maya := storetest.MustTrainer(t, st, co.ID, "Maya Brooks", "maya@named.example")
	key := api.GenerateKey()
	_, err = st.CreateKey(ctx, co.ID, "k", api.HashKey(key), api.KeyDisplayPrefix(key))
	must(t, err)
	srv := httptest.NewServer(server.NewHandler(st, server.WithHasher(cheapHasher), server.WithOutbound(storetest.LoopbackOutbound()), server.WithClock(func() time.Time { return testNow })))
	defer srv.Close()
	h := newHarness(t, srv.URL, key)
	h.run("automations", "create", "--name", "Maya's idle", "--trigger", "INACTIVE", "--days", "14", "--trainer", "Maya Brooks",
		"--action", "DISABLE_TRAINEE").expect(t, 0)
	if r := h.run("automations", "list").expect(t, 0); !strings.Contains(r.out, fmt.Sprintf("trainer Maya Brooks (#%d)", maya)) {
		t.Errorf("list: %s", r)
	}
	if r := h.run("automations", "list", "-o", "csv").expect(t, 0); !strings.Contains(r.out, fmt.Sprintf(",%d,", maya)) || strings.Contains(r.out, "Maya Brooks") {
		t.Errorf("csv: %s", r)
	}
}

// automations runs names each run's trainee ("Runa Park #12"); CSV adds
// traineeName as its last column.
func TestAutomationRunsNameTheTrainee(t *testing.T) {
	ctx := context.Background()
	st := storetest.SQLite(t)
	co, err := st.CreateCompany(ctx, "Runs Gym", "UTC")
	must(t, err)
	storetest.MustTrainer(t, st, co.ID, "Coach", "coach@runs.example")
	key := api.GenerateKey()
	_, err = st.CreateKey(ctx, co.ID, "k", api.HashKey(key), api.KeyDisplayPrefix(key))
	must(t, err)
	srv := httptest.NewServer(server.NewHandler(st, server.WithHasher(cheapHasher), server.WithOutbound(storetest.LoopbackOutbound()), server.WithClock(func() time.Time { return testNow })))
	defer srv.Close()
	h := newHarness(t, srv.URL, key)
	var a api.Automation
	must(t, json.Unmarshal([]byte(h.run("automations", "create", "--name", "Park new", "--trigger", "TRAINEE_CREATED",
		"--action", "DISABLE_TRAINEE", "-o", "json").expect(t, 0).out), &a))
	runa := decode[api.Trainee](t, h.run("create", "--name", "Runa Park", "--email", "runa@runs.example", "--password", "S3cret-pass", "-o", "json").expect(t, 0))
	if r := h.run("automations", "runs", fmt.Sprint(a.ID)).expect(t, 0); !strings.Contains(r.out, fmt.Sprintf("Runa Park #%d", runa.ID)) {
		t.Errorf("runs: %s", r)
	}
	rows := readCSV(t, h.run("automations", "runs", fmt.Sprint(a.ID), "-o", "csv").expect(t, 0))
	if last := len(rows[0]) - 1; rows[0][last] != "traineeName" || rows[1][last] != "Runa Park" {
		t.Errorf("runs csv: %v", rows)
	}
}
