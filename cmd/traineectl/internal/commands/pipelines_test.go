package commands_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/traineed/traineed/api"
)

// --jq, --template and --fields work on every command that prints data,
// from the one output package.
func TestJQTemplateFields(t *testing.T) {
	s := requestStub(t)
	h := newHarness(t, s.URL, stubKey)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"get", "41", "--jq", ".email"}, "ada@example.com\n"},
		{[]string{"search", "--jq", ".[] | {id, name}"}, `{"id":41,"name":"Ada Park"}` + "\n"},
		{[]string{"search", "-o", "json", "--jq", "map(.id)"}, "[41]\n"},
		{[]string{"get", "41", "--template", "{{.id}}{{tab}}{{.name}}{{tab}}{{join \",\" .authorities}}\n"}, "41\tAda Park\tTRAINEE,USER\n"},
		{[]string{"search", "-t", `{{range .}}{{.email}}{{"\n"}}{{end}}`}, "ada@example.com\n"},
		{[]string{"get", "41", "--fields", "id,email"}, "ID\tEMAIL\n41\tada@example.com\n"},
		{[]string{"get", "41", "--fields", "phoneNumber,TRAINER,status"}, "PHONE\tTRAINER\tSTATUS\n-\t7\tactive\n"},
		{[]string{"get", "41", "-o", "csv", "--fields", "email,id,weightUnit"}, "email,id,weightUnit\nada@example.com,41,KG\n"},
		{[]string{"config", "list", "--jq", "length"}, "0\n"},
		{[]string{"version", "--jq", ".version"}, "1.2.3-test\n"},
	} {
		r := h.run(tc.args...).expect(t, 0)
		if r.out != tc.want {
			t.Errorf("%q:\n got %q\nwant %q", tc.args, r.out, tc.want)
		}
	}
	sent := len(s.requests())
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"get", "41", "--jq", ".[ | bad"}, "--jq"},
		{[]string{"get", "41", "--template", "{{.id"}, "--template"},
		{[]string{"get", "41", "--jq", ".id", "--template", "{{.id}}"}, "cannot be used together"},
		{[]string{"get", "41", "--jq", ".id", "-o", "csv"}, "-o csv"},
		{[]string{"get", "41", "--fields", "id", "-o", "json"}, "--fields"},
		{[]string{"get", "41", "--fields", "id", "--jq", ".id"}, "--fields"},
	} {
		r := h.run(tc.args...).expect(t, 2)
		if !strings.Contains(r.err, tc.want) || r.out != "" {
			t.Errorf("%q: %s", tc.args, r)
		}
	}
	if n := len(s.requests()); n != sent {
		t.Errorf("a refused option sent %d requests", n-sent)
	}
	r := h.run("get", "41", "--fields", "id,shoe").expect(t, 2)
	if !strings.Contains(r.err, `no field "shoe"`) || !strings.Contains(r.err, "id, name, email") {
		t.Errorf("%s", r)
	}
}

// On a terminal COLUMNS sets the table's width; off one, values are whole.
func TestTableWidthFromColumns(t *testing.T) {
	s := newStubAPI(t)
	long := traineeJSON(41, "Bartholomew Montgomery-Smythe the Third", "bartholomew.montgomery-smythe@a-very-long-domain.example.com", true)
	s.handle("GET /public-api/trainees/search", 200, `{"timestamp":1,"content":[`+long+`],"page":{"size":20,"number":0,"totalElements":1,"totalPages":1}}`)
	h := newHarness(t, s.URL, stubKey)
	r := h.run("search").expect(t, 0)
	if !strings.Contains(r.out, "\tbartholomew.montgomery-smythe@a-very-long-domain.example.com\t") {
		t.Errorf("off a terminal the e-mail is cut: %q", r.out)
	}
	h.env["COLUMNS"] = "200"
	r = h.runWith(runOpts{tty: true}, "search").expect(t, 0) // the terminal is 100 wide
	if !strings.Contains(r.out, "  bartholomew.montgomery-smythe@a-very-long-domain.example.com  ") {
		t.Errorf("COLUMNS=200 ignored: %q", r.out)
	}
	h.env["COLUMNS"] = "72"
	r = h.runWith(runOpts{tty: true}, "search").expect(t, 0)
	for _, l := range strings.Split(strings.TrimRight(r.out, "\n"), "\n") {
		if n := len([]rune(l)); n > 72 {
			t.Errorf("COLUMNS=72: a line of %d: %q", n, l)
		}
	}
}

// search -o json gives one page unless asked for more: --limit N follows
// the pages up to N, and stderr says when more trainees match than were
// printed, off a terminal too, unless -q.
func TestSearchLimit(t *testing.T) {
	srv := newServer(t)
	h := newHarness(t, srv.url, srv.key)
	for i := range 45 {
		h.run("create", "--name", fmt.Sprintf("T %02d", i), "--email", fmt.Sprintf("t%02d@example.com", i), "--password", "S3cret-pass").expect(t, 0)
	}
	r := h.run("search", "-o", "json").expect(t, 0)
	if n := len(decode[[]api.Trainee](t, r)); n != 20 || r.err != "Showing 20 of 45 trainees; use --limit N or --all for more\n" {
		t.Errorf("one page: %d trainees, stderr %q", n, r.err)
	}
	r = h.run("search", "-o", "json", "--limit", "30").expect(t, 0)
	got := decode[[]api.Trainee](t, r)
	if len(got) != 30 || got[29].Name != "T 29" || r.err != "Showing 30 of 45 trainees; use a larger --limit or --all for more\n" {
		t.Errorf("--limit 30: %d trainees, stderr %q", len(got), r.err)
	}
	r = h.run("search", "-o", "json", "--limit", "30", "--size", "7", "-q").expect(t, 0)
	if n := len(decode[[]api.Trainee](t, r)); n != 30 || r.err != "" {
		t.Errorf("--limit 30 --size 7 -q: %d trainees, stderr %q", n, r.err)
	}
	r = h.run("search", "--limit", "1000", "--fields", "id").expect(t, 0)
	if n := strings.Count(r.out, "\n"); n != 46 || r.err != "" {
		t.Errorf("--limit 1000: %d lines, stderr %q", n, r.err)
	}
	r = h.run("search", "--all", "-o", "json").expect(t, 0)
	if n := len(decode[[]api.Trainee](t, r)); n != 45 || r.err != "" {
		t.Errorf("--all: %d, stderr %q", n, r.err)
	}
	for _, args := range [][]string{{"--limit", "0"}, {"--limit", "5", "--all"}, {"--limit", "5", "--page", "1"}} {
		if r := h.run(append([]string{"search"}, args...)...).expect(t, 2); r.out != "" {
			t.Errorf("%q: %s", args, r)
		}
	}
}

// With no key configured anywhere nothing is sent: the error says so and
// how to set one, exit 3.
func TestNoKeyConfigured(t *testing.T) {
	s := requestStub(t)
	h := newHarness(t, s.URL, "")
	r := h.run("search").expect(t, 3)
	if !strings.HasPrefix(r.err, "error: no API key configured") || !strings.Contains(r.err, "config set-profile") || r.out != "" {
		t.Errorf("%s", r)
	}
	r = h.run("get", "41", "-o", "json").expect(t, 3)
	if !strings.HasPrefix(r.err, `{"error":{"status":null,"errorCode":null,"message":"no API key configured`) {
		t.Errorf("json: %s", r.err)
	}
	h.run("config", "set-profile", "p", "--base-url", s.URL).expect(t, 0)
	r = h.run("update", "41", "--name", "X").expect(t, 3)
	if !strings.Contains(r.err, "profile p has none") {
		t.Errorf("%s", r)
	}
	if n := len(s.requests()); n != 0 {
		t.Errorf("%d requests sent without a key", n)
	}
}

// When the server cannot be reached, stderr says which address was used
// and where it came from; the default address says it is the default.
func TestUnreachableNamesTheAddress(t *testing.T) {
	h := newHarness(t, "", stubKey)
	delete(h.env, "TRAINEECTL_BASE_URL")
	h.env["TRAINEECTL_TIMEOUT"] = "2s"
	dead := httptest.NewServer(http.NotFoundHandler())
	dead.Close()
	r := h.run("search", "--base-url", dead.URL).expect(t, 1)
	if !strings.Contains(r.err, "hint: the address "+dead.URL+" comes from --base-url\n") {
		t.Errorf("%s", r)
	}
	h.env["TRAINEECTL_BASE_URL"] = dead.URL
	r = h.run("get", "41").expect(t, 1)
	if !strings.Contains(r.err, "hint: the address "+dead.URL+" comes from TRAINEECTL_BASE_URL\n") {
		t.Errorf("%s", r)
	}
}

// Tables show trainers by name, read once per command; other formats keep
// the id; `trainers list` lists them.
func TestTrainerNames(t *testing.T) {
	srv := newServer(t)
	h := newHarness(t, srv.url, srv.key)
	for i := range 3 {
		h.run("create", "--name", fmt.Sprintf("T%d", i), "--email", fmt.Sprintf("t%d@example.com", i), "--password", "S3cret-pass", "-o", "json").expect(t, 0)
	}
	r := h.run("search", "--fields", "name,trainer").expect(t, 0)
	if r.out != "NAME\tTRAINER\nT0\tCoach Carter\nT1\tCoach Carter\nT2\tCoach Carter\n" {
		t.Errorf("table: %q", r.out)
	}
	r = h.runWith(runOpts{tty: true}, "get", "1").expect(t, 0)
	if !strings.Contains(r.out, "Coach Carter") || strings.Contains(r.out, "#") {
		t.Errorf("terminal table: %q", r.out)
	}
	if r := h.run("get", "1", "--jq", ".trainerId").expect(t, 0); r.out != fmt.Sprintf("%d\n", srv.trainerID) {
		t.Errorf("json keeps the id: %q", r.out)
	}
	if r := h.run("get", "1", "-o", "csv", "--fields", "trainerId").expect(t, 0); r.out != fmt.Sprintf("trainerId\n%d\n", srv.trainerID) {
		t.Errorf("csv keeps the id: %q", r.out)
	}
	r = h.run("trainers", "list").expect(t, 0)
	if r.out != fmt.Sprintf("ID\tNAME\tEMAIL\tACTIVE\tTRAINEES\n%d\tCoach Carter\tcoach@acme.example\tyes\t3\n", srv.trainerID) {
		t.Errorf("trainers list: %q", r.out)
	}
	if r := h.run("trainers", "list", "--jq", ".[0].name").expect(t, 0); r.out != "Coach Carter\n" {
		t.Errorf("trainers list --jq: %q", r.out)
	}
	// Alone, trainers lists them too, in every format.
	if alone := h.run("trainers").expect(t, 0); alone.out != r.out || alone.err != "" {
		t.Errorf("trainers alone: %s, want %q", alone, r.out)
	}
	if r := h.run("trainers", "-o", "json", "--jq", ".[0].name").expect(t, 0); r.out != "Coach Carter\n" {
		t.Errorf("trainers -o json alone: %q", r.out)
	}
	if r := h.run("trainers", "--help").expect(t, 0); !strings.Contains(r.out, "Available Commands") {
		t.Errorf("trainers --help: %s", r)
	}
	h.run("trainers", "lst").expect(t, 2)

	// Against a server without the endpoint, tables fall back to ids.
	s := requestStub(t)
	h = newHarness(t, s.URL, stubKey)
	if r := h.run("get", "41", "--fields", "trainer").expect(t, 0); r.out != "TRAINER\n7\n" {
		t.Errorf("fallback: %s", r)
	}
	n := 0
	for _, q := range s.allRequests() {
		if q.Path == "/public-api/trainers" {
			n++
		}
	}
	if n != 1 {
		t.Errorf("%d trainer reads for one table", n)
	}
}

// --trainer takes a trainer's whole name (any case) as well as an id, in
// create, update and an update of many trainees; an unknown or shared name
// is a usage error that lists the company's trainers.
func TestTrainerFlagTakesANameOrAnID(t *testing.T) {
	srv := newServer(t)
	ctx := context.Background()
	maya, err := srv.store.CreateTrainer(ctx, srv.companyID, "Maya Brooks", "maya@acme.example")
	must(t, err)
	for _, email := range []string{"sam1@acme.example", "sam2@acme.example"} {
		_, err := srv.store.CreateTrainer(ctx, srv.companyID, "Sam Lee", email)
		must(t, err)
	}
	h := newHarness(t, srv.url, srv.key)
	trainerOf := func(id string) string {
		t.Helper()
		return strings.TrimSpace(h.run("get", id, "--jq", ".trainerId").expect(t, 0).out)
	}
	mayaID, carterID := fmt.Sprint(maya.ID), fmt.Sprint(srv.trainerID)

	created := h.run("create", "--name", "Ada", "--email", "ada@example.com", "--password", "S3cret-pass",
		"--trainer", "maya brooks", "--jq", ".id").expect(t, 0)
	ada := strings.TrimSpace(created.out)
	if got := trainerOf(ada); got != mayaID {
		t.Fatalf("create --trainer 'maya brooks': trainer %s, want %s", got, mayaID)
	}
	h.run("update", ada, "--trainer", "Coach Carter", "-o", "json").expect(t, 0)
	if got := trainerOf(ada); got != carterID {
		t.Fatalf("update --trainer 'Coach Carter': trainer %s, want %s", got, carterID)
	}
	h.run("update", ada, "--trainer", mayaID, "-o", "json").expect(t, 0) // an id is still an id
	if got := trainerOf(ada); got != mayaID {
		t.Fatalf("update --trainer %s: trainer %s", mayaID, got)
	}
	h.run("create", "--name", "Bo", "--email", "bo@example.com", "--password", "S3cret-pass").expect(t, 0)
	bo := strings.TrimSpace(h.run("search", "bo@example.com", "--jq", ".[0].id").expect(t, 0).out)
	h.run("update", "--ids", ada+","+bo, "--trainer", "COACH CARTER").expect(t, 0)
	if trainerOf(ada) != carterID || trainerOf(bo) != carterID {
		t.Fatalf("update --ids --trainer 'COACH CARTER': %s %s, want %s", trainerOf(ada), trainerOf(bo), carterID)
	}

	// Unknown: the trainers listed, the unique prefix suggested; nothing sent.
	for _, args := range [][]string{
		{"update", ada, "--trainer", "Maya"},
		{"update", "--ids", ada, "--trainer", "Maya"},
		{"create", "--name", "Cy", "--email", "cy@example.com", "--password", "S3cret-pass", "--trainer", "Maya"},
	} {
		r := h.run(args...).expect(t, 2)
		for _, want := range []string{`no trainer is named "Maya"`, `did you mean "Maya Brooks", id ` + mayaID, carterID + " Coach Carter", mayaID + " Maya Brooks", "Sam Lee"} {
			if !strings.Contains(r.err, want) {
				t.Errorf("%v: stderr lacks %q: %s", args, want, r.err)
			}
		}
	}
	if trainerOf(ada) != carterID {
		t.Fatalf("a refused --trainer changed the trainer")
	}
	if r := h.run("search", "cy@example.com", "-o", "json").expect(t, 0); strings.TrimSpace(r.out) != "[]" {
		t.Fatalf("a refused create --trainer created: %s", r.out)
	}
	// Shared: both listed, the id asked for.
	r := h.run("update", ada, "--trainer", "sam lee").expect(t, 2)
	if !strings.Contains(r.err, `2 trainers are named "sam lee"`) || strings.Count(r.err, "Sam Lee") != 2 || !strings.Contains(r.err, "give the id") {
		t.Errorf("shared name: %s", r.err)
	}
	// An automation's trainer condition takes a name too.
	auto := strings.TrimSpace(h.run("automations", "create", "--name", "Idle", "--trigger", "INACTIVE", "--days", "14",
		"--action", "DISABLE_TRAINEE", "--trainer", "MAYA BROOKS", "--jq", ".id").expect(t, 0).out)
	if got := h.run("automations", "get", auto, "--jq", ".conditions.trainerId").expect(t, 0).out; got != mayaID+"\n" {
		t.Errorf("automations create --trainer 'MAYA BROOKS': trainer %q, want %s", got, mayaID)
	}
	h.run("automations", "update", auto, "--trainer", "coach carter").expect(t, 0)
	if got := h.run("automations", "get", auto, "--jq", ".conditions.trainerId").expect(t, 0).out; got != carterID+"\n" {
		t.Errorf("automations update --trainer 'coach carter': trainer %q, want %s", got, carterID)
	}
	if r := h.run("automations", "update", auto, "--trainer", "Maya").expect(t, 2); !strings.Contains(r.err, `did you mean "Maya Brooks"`) {
		t.Errorf("automations update --trainer Maya: %s", r)
	}
	h.run("automations", "update", auto, "--trainer", "none").expect(t, 0)
	if got := h.run("automations", "get", auto, "--jq", ".conditions.trainerId").expect(t, 0).out; got != "null\n" {
		t.Errorf("automations update --trainer none: trainer %q", got)
	}
	if r := h.run("__complete", "automations", "create", "--trainer", ""); !strings.Contains(r.out, mayaID+"\tMaya Brooks") {
		t.Errorf("automations --trainer completion: %s", r)
	}

	// Completion offers the trainers' ids with their names, whatever
	// trainee id is on the command line.
	for _, args := range [][]string{{"__complete", "update", mayaID, "--trainer", ""}, {"__complete", "create", "--trainer", ""}} {
		r := h.run(args...)
		if !strings.Contains(r.out, mayaID+"\tMaya Brooks") || !strings.Contains(r.out, carterID+"\tCoach Carter") {
			t.Errorf("%v: %s", args, r)
		}
	}
	// -o json: the usage error as JSON.
	if r := h.run("update", ada, "--trainer", "Nobody", "-o", "json").expect(t, 2); !strings.Contains(r.err, `"error"`) || !strings.Contains(r.err, "Nobody") {
		t.Errorf("json error: %s", r.err)
	}
}
