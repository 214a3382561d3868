package commands_test

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/server"
	"github.com/traineed/traineed/cmd/traineed/demo"
	"github.com/traineed/traineed/store"
	"github.com/traineed/traineed/store/storetest"
)

var cheapHasher = server.NewHasher(server.PasswordParams{MemoryKiB: 64, Time: 1, Threads: 1})

// testServer is the real handler over a migrated SQLite store, on httptest.
type testServer struct {
	url       string
	key       string
	store     *store.Store
	companyID int64
	trainerID int64
}

func newServer(t *testing.T) *testServer {
	t.Helper()
	ctx := context.Background()
	st := storetest.SQLite(t)
	c, err := st.CreateCompany(ctx, "Acme", "UTC")
	must(t, err)
	tr, err := st.CreateTrainer(ctx, c.ID, "Coach Carter", "coach@acme.example")
	must(t, err)
	srv := httptest.NewServer(server.NewHandler(st, server.WithHasher(cheapHasher), server.WithOutbound(storetest.LoopbackOutbound()), server.WithClock(func() time.Time { return testNow })))
	t.Cleanup(srv.Close)
	s := &testServer{url: srv.URL, store: st, companyID: c.ID, trainerID: tr.ID}
	s.key = s.newKey(t, c.ID)
	return s
}

func (s *testServer) newKey(t *testing.T, company int64) string {
	t.Helper()
	k := api.GenerateKey()
	_, err := s.store.CreateKey(context.Background(), company, "cli", api.HashKey(k), api.KeyDisplayPrefix(k))
	must(t, err)
	return k
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// decode reads stdout as JSON.
func decode[T any](t *testing.T, r result) T {
	t.Helper()
	var v T
	if err := json.Unmarshal([]byte(r.out), &v); err != nil {
		t.Fatalf("stdout is not the JSON wanted: %v\n%s", err, r)
	}
	return v
}

func readCSV(t *testing.T, r result) [][]string {
	t.Helper()
	rows, err := csv.NewReader(strings.NewReader(r.out)).ReadAll()
	if err != nil {
		t.Fatalf("stdout is not CSV: %v\n%s", err, r)
	}
	return rows
}

// tableRows splits a table into its cells (columns are 2+ blanks apart).
// tableRows splits the table format: tab-separated cells off a terminal,
// columns two or more blanks apart on one.
func tableRows(out string) [][]string {
	var rows [][]string
	for _, l := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		if strings.Contains(l, "\t") {
			rows = append(rows, strings.Split(l, "\t"))
			continue
		}
		rows = append(rows, regexp.MustCompile(`\s{2,}`).Split(strings.TrimSpace(l), -1))
	}
	return rows
}

func ids(ts []api.Trainee) []string {
	var s []string
	for _, t := range ts {
		s = append(s, fmt.Sprint(t.ID))
	}
	return s
}

func TestTraineeLifecycle(t *testing.T) {
	srv := newServer(t)
	h := newHarness(t, srv.url, srv.key)
	trainer := fmt.Sprint(srv.trainerID)

	// create (table)
	r := h.run("create", "--name", "Ada Park", "--email", "Ada@Example.com", "--password", "S3cret-pass",
		"--phone", "+44 7700 900123", "--dob", "1990-03-02", "--expires", "31-12-2026").expect(t, 0)
	rows := tableRows(r.out)
	if len(rows) != 2 || strings.Join(rows[0], "|") != "ID|NAME|EMAIL|PHONE|STATUS|EXPIRES|TRAINER" {
		t.Fatalf("create table:\n%s", r.out)
	}
	adaID := rows[1][0]
	if strings.Join(rows[1][1:], "|") != "Ada Park|ada@example.com|+447700900123|active|31-12-2026|Coach Carter" {
		t.Errorf("create row %q (the trainer by name)", rows[1])
	}
	if r.err != "" {
		t.Errorf("stderr without a terminal: %q", r.err)
	}

	// create (json), password from stdin
	bo := decode[api.Trainee](t, h.runWith(runOpts{stdin: "Pa55word-bo\n"}, "create", "--name", "Bo Li", "--email", "bo@example.com",
		"--password-stdin", "--weight-unit", "lb", "--trainer", trainer, "-o", "json").expect(t, 0))
	if bo.Name != "Bo Li" || bo.WeightUnit != "LB" || *bo.TrainerID != srv.trainerID || !bo.Enabled || !bo.ForcePasswordChange ||
		bo.CreatedByType != "ADMIN" || bo.Username != "bo@example.com" || bo.ExpirationDate != nil || len(bo.Authorities) != 2 {
		t.Errorf("created %+v", bo)
	}
	boID := fmt.Sprint(bo.ID)

	// create (yaml, csv)
	r = h.run("create", "--name", "Cy", "--email", "cy@example.com", "--password", "S3cret-pass", "--expires", "yesterday", "-o", "yaml").expect(t, 0)
	var cy map[string]any
	must(t, yaml.Unmarshal([]byte(r.out), &cy))
	if cy["name"] != "Cy" || cy["expirationDate"] != "20-11-2026" || !strings.HasPrefix(r.out, "id: ") {
		t.Errorf("yaml:\n%s", r.out)
	}
	cyID := fmt.Sprint(cy["id"])
	csvRows := readCSV(t, h.run("create", "--name", "Di", "--email", "di@example.com", "--password", "S3cret-pass", "-o", "csv").expect(t, 0))
	if len(csvRows) != 2 || csvRows[0][0] != "id" || csvRows[1][1] != "Di" || csvRows[1][4] != "active" {
		t.Errorf("csv: %q", csvRows)
	}
	diID := csvRows[1][0]

	// rejected: duplicate e-mail, bad values
	r = h.run("create", "--name", "Ada Two", "--email", "ada@example.com", "--password", "S3cret-pass").expect(t, 5)
	if !strings.Contains(r.err, "(1008): email: ") {
		t.Errorf("duplicate: %s", r)
	}
	r = h.run("create", "--name", "X", "--email", "not-an-address", "--password", "short", "-o", "json").expect(t, 5)
	e := decode[map[string]map[string]any](t, result{out: r.err})
	if e["error"]["status"] != 400.0 || e["error"]["errorCode"] != 1002.0 || len(e["error"]["errors"].([]any)) != 2 {
		t.Errorf("error object: %s", r.err)
	}

	// get, every format
	got := decode[api.Trainee](t, h.run("get", adaID, "-o", "json").expect(t, 0))
	if got.Email != "ada@example.com" || *got.PhoneNumber != "+447700900123" || got.DateOfBirth.String() != "02-03-1990" || got.ExpirationDate.String() != "31-12-2026" {
		t.Errorf("get json %+v", got)
	}
	r = h.run("get", adaID, boID, "-o", "yaml").expect(t, 0)
	var list []map[string]any
	must(t, yaml.Unmarshal([]byte(r.out), &list))
	if len(list) != 2 || list[1]["name"] != "Bo Li" || list[1]["weightUnit"] != "LB" {
		t.Errorf("get yaml:\n%s", r.out)
	}
	csvRows = readCSV(t, h.run("get", adaID, cyID, "-o", "csv").expect(t, 0))
	if len(csvRows) != 3 || csvRows[1][2] != "ada@example.com" || csvRows[2][4] != "expired" || csvRows[2][5] != "20-11-2026" {
		t.Errorf("get csv: %q", csvRows)
	}
	rows = tableRows(h.run("get", cyID).expect(t, 0).out)
	if strings.Join(rows[1][1:], "|") != "Cy|cy@example.com|-|expired|20-11-2026|Coach Carter" {
		t.Errorf("get table %q", rows)
	}

	// not found: unknown id, and another company's trainee
	h.run("get", "999999").expect(t, 4)
	other, err := srv.store.CreateCompany(context.Background(), "Other", "UTC")
	must(t, err)
	storetest.MustTrainer(t, srv.store, other.ID, "Coach", "coach@other.example")
	stranger, err := srv.store.CreateTrainee(context.Background(), other.ID, api.NewTrainee{Name: "Stranger", Email: "s@other.example",
		PasswordHash: "x", WeightUnit: "KG", CreatedByType: "ADMIN", Enabled: true})
	must(t, err)
	r = h.run("get", fmt.Sprint(stranger.ID)).expect(t, 4)
	if r.err != fmt.Sprintf("error: trainee %d not found\n", stranger.ID) {
		t.Errorf("%s", r)
	}
	h.run("update", fmt.Sprint(stranger.ID), "--name", "Mine").expect(t, 4)
	h.run("delete", "--yes", fmt.Sprint(stranger.ID)).expect(t, 4)

	// update sends only the flags given; none clears
	up := decode[api.Trainee](t, h.run("update", adaID, "--expires", "none", "--phone", "none", "-o", "json").expect(t, 0))
	if up.ExpirationDate != nil || up.PhoneNumber != nil || up.DateOfBirth == nil || up.Name != "Ada Park" {
		t.Errorf("after clearing: %+v", up)
	}
	up = decode[api.Trainee](t, h.run("update", adaID, "--name", "Ada Park-Lee", "--dob", "none", "--expires", "2027-01-31",
		"--weight-unit", "LB", "--email", "ada.lee@example.com", "-o", "json").expect(t, 0))
	if up.Name != "Ada Park-Lee" || up.DateOfBirth != nil || up.ExpirationDate.String() != "31-01-2027" || up.WeightUnit != "LB" ||
		up.Username != "ada.lee@example.com" || up.PhoneNumber != nil {
		t.Errorf("after update: %+v", up)
	}
	r = h.run("update", adaID, "--email", "bo@example.com").expect(t, 5)
	if !strings.Contains(r.err, "1008") {
		t.Errorf("%s", r)
	}
	h.run("update", adaID, "--trainer", "999999").expect(t, 5)
	h.run("update", adaID, "--password", "N3w-password-long", "--force-password-change=false").expect(t, 0)

	// search
	all := decode[[]api.Trainee](t, h.run("search", "-o", "json").expect(t, 0))
	if strings.Join(ids(all), ",") != strings.Join([]string{adaID, boID, cyID, diID}, ",") {
		t.Errorf("search: %v", ids(all))
	}
	found := decode[[]api.Trainee](t, h.run("search", "ADA", "-o", "json").expect(t, 0))
	if len(found) != 1 || fmt.Sprint(found[0].ID) != adaID {
		t.Errorf("search ADA: %v", ids(found))
	}
	sorted := decode[[]api.Trainee](t, h.run("list", "--sort", "name,desc", "--status", "active", "-o", "json").expect(t, 0))
	if strings.Join(ids(sorted), ",") != strings.Join([]string{diID, boID, adaID}, ",") {
		t.Errorf("active by name desc: %v", ids(sorted))
	}
	page := decode[[]api.Trainee](t, h.run("search", "--size", "1", "--page", "1", "-o", "json").expect(t, 0))
	if len(page) != 1 || fmt.Sprint(page[0].ID) != boID {
		t.Errorf("page 1 of size 1: %v", ids(page))
	}
	everyone := decode[[]api.Trainee](t, h.run("search", "--all", "--size", "1", "-o", "json").expect(t, 0))
	if len(everyone) != 4 {
		t.Errorf("--all: %v", ids(everyone))
	}
	csvRows = readCSV(t, h.run("search", "--status", "expired", "-o", "csv").expect(t, 0))
	if len(csvRows) != 2 || csvRows[1][0] != cyID {
		t.Errorf("expired csv: %q", csvRows)
	}
	r = h.run("search", "--status", "expired", "-o", "yaml").expect(t, 0)
	if !strings.HasPrefix(r.out, "- id: "+cyID+"\n") {
		t.Errorf("yaml:\n%s", r.out)
	}
	rows = tableRows(h.run("search", "nobody").expect(t, 0).out)
	if len(rows) != 1 {
		t.Errorf("no match: %q", rows)
	}
	r = h.runWith(runOpts{tty: true}, "search", "--size", "3").expect(t, 0)
	if r.err != "page 1 of 2, 4 trainees\n" {
		t.Errorf("summary %q", r.err)
	}
	// Refused locally, with the server's own check (was a 400 1012).
	r = h.run("search", "--status", "bogus").expect(t, 2)
	if !strings.Contains(r.err, `--status "bogus": status must be live`) {
		t.Errorf("%s", r)
	}

	// delete: refused without a terminal and --yes; nothing deleted
	r = h.run("delete", boID).expect(t, 2)
	if !strings.Contains(r.err, "nothing was deleted") {
		t.Errorf("%s", r)
	}
	if got := decode[api.Trainee](t, h.run("get", boID, "-o", "json").expect(t, 0)); !got.Enabled {
		t.Fatal("a refused delete deleted")
	}
	r = h.runWith(runOpts{tty: true, stdin: "y\n"}, "delete", boID, diID).expect(t, 0)
	rows = tableRows(r.out)
	if len(rows) != 3 || rows[1][4] != "deleted" || rows[2][4] != "deleted" {
		t.Errorf("deleted table %q", rows)
	}
	if !strings.Contains(r.err, "Deleted trainee "+boID+" (Bo Li)\n") {
		t.Errorf("stderr %q", r.err)
	}
	r = h.run("delete", "--yes", boID, "-o", "json").expect(t, 0) // again: the same result
	if d := decode[api.Trainee](t, r); d.Enabled {
		t.Error("deleted trainee enabled")
	}
	live := decode[[]api.Trainee](t, h.run("search", "-o", "json").expect(t, 0))
	deleted := decode[[]api.Trainee](t, h.run("search", "--status", "deleted", "-o", "json").expect(t, 0))
	if strings.Join(ids(live), ",") != adaID+","+cyID || strings.Join(ids(deleted), ",") != boID+","+diID {
		t.Errorf("live %v, deleted %v", ids(live), ids(deleted))
	}
	r = h.run("get", boID).expect(t, 0)
	if !strings.Contains(r.out, "deleted") {
		t.Errorf("get of a deleted trainee:\n%s", r.out)
	}

	// restore
	rest := decode[[]api.Trainee](t, h.run("restore", boID, diID, "-o", "json").expect(t, 0))
	if len(rest) != 2 || !rest[0].Enabled || !rest[1].Enabled {
		t.Errorf("restored %+v", rest)
	}
	if n := len(decode[[]api.Trainee](t, h.run("search", "-o", "json").expect(t, 0))); n != 4 {
		t.Errorf("%d live after restore", n)
	}
}

func TestAuthRefused(t *testing.T) {
	srv := newServer(t)
	for _, key := range []string{"pk_malformed", api.GenerateKey()} {
		h := newHarness(t, srv.url, key)
		r := h.run("search").expect(t, 3)
		if !strings.HasPrefix(r.err, "error: authentication refused (401)") || r.out != "" {
			t.Errorf("key %q: %s", key, r)
		}
		r = h.run("get", "1", "-o", "json").expect(t, 3)
		if !strings.HasPrefix(r.err, `{"error":{"status":401,"errorCode":null,`) {
			t.Errorf("json: %s", r.err)
		}
	}
	// A disabled key is refused on the next request.
	h := newHarness(t, srv.url, srv.key)
	h.run("search").expect(t, 0)
	keys, err := srv.store.Keys(context.Background(), srv.companyID)
	must(t, err)
	must(t, srv.store.SetKeyDisabled(context.Background(), keys[0].ID, true))
	h.run("search").expect(t, 3)
}

func TestSupportLogAgainstServer(t *testing.T) {
	srv := newServer(t)
	h := newHarness(t, srv.url, srv.key)
	logPath := filepath.Join(t.TempDir(), "support.log")
	h.run("create", "--name", "Ada", "--email", "ada@example.com", "--password", "Pa55word-secret", "--log-file", logPath, "-o", "json").expect(t, 0)
	h.run("create", "--name", "Ada", "--email", "ada@example.com", "--password", "Pa55word-secret", "--log-file", logPath).expect(t, 5)
	h.run("get", "424242", "--log-file", logPath).expect(t, 4)
	b, err := os.ReadFile(logPath)
	must(t, err)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 3 {
		t.Fatalf("want a line per request:\n%s", b)
	}
	for i, want := range []string{
		`method=POST url=` + srv.url + `/public-api/trainees status=200 `,
		`method=POST url=` + srv.url + `/public-api/trainees status=400 error_code=1008 `,
		`method=GET url=` + srv.url + `/public-api/trainees/424242 status=500 `,
	} {
		if !strings.Contains(lines[i], want) || !strings.Contains(lines[i], "attempt=1 ") || !regexp.MustCompile(`^time=\S+([+-]\d\d:\d\d|Z) `).MatchString(lines[i]) {
			t.Errorf("line %d: %s\nwant %s", i+1, lines[i], want)
		}
	}
	if strings.Contains(string(b), srv.key) || strings.Contains(string(b), "Pa55word") {
		t.Error("the log holds the key or the password")
	}
}

// The demo data set spans several pages: --all returns every trainee once,
// and the table and CSV hold one row per trainee.
func TestSearchAllOverDemoData(t *testing.T) {
	ctx := context.Background()
	st := storetest.SQLite(t)
	hash, err := cheapHasher.Hash(ctx, "demo-password")
	must(t, err)
	_, key, err := demo.Load(ctx, st, hash, testNow)
	must(t, err)
	srv := httptest.NewServer(server.NewHandler(st, server.WithHasher(cheapHasher), server.WithOutbound(storetest.LoopbackOutbound()), server.WithClock(func() time.Time { return testNow })))
	defer srv.Close()
	h := newHarness(t, srv.URL, key)

	first := h.runWith(runOpts{tty: true}, "search", "--status", "all", "--size", "7").expect(t, 0)
	m := regexp.MustCompile(`^page 1 of (\d+), (\d+) trainees\n$`).FindStringSubmatch(first.err)
	if m == nil {
		t.Fatalf("summary %q", first.err)
	}
	total, _ := strconv.Atoi(m[2])
	if total < 40 {
		t.Fatalf("demo data has %d trainees", total)
	}
	everyone := decode[[]api.Trainee](t, h.run("search", "--status", "all", "--all", "--size", "7", "-o", "json").expect(t, 0))
	seen := map[int64]bool{}
	for _, tr := range everyone {
		seen[tr.ID] = true
	}
	if len(everyone) != total || len(seen) != total {
		t.Errorf("--all gave %d trainees (%d distinct), want %d", len(everyone), len(seen), total)
	}
	if n := len(readCSV(t, h.run("search", "--status", "all", "--all", "-o", "csv").expect(t, 0))); n != total+1 {
		t.Errorf("csv: %d rows", n)
	}
	r := h.run("search", "--status", "all", "--all")
	lines := strings.Split(strings.TrimRight(r.out, "\n"), "\n")
	if len(lines) != total+1 {
		t.Errorf("table: %d lines", len(lines))
	}
	statuses := map[string]int{}
	for _, row := range tableRows(r.out)[1:] {
		if len(row) != 7 {
			t.Errorf("row of %d cells: %q", len(row), row)
			continue
		}
		statuses[row[4]]++
		if strings.HasSuffix(row[2], "…") {
			t.Errorf("e-mail cut off a terminal: %q", row)
		}
	}
	if statuses["active"] == 0 || statuses["expired"] == 0 || statuses["deleted"] == 0 || statuses["active"]+statuses["expired"]+statuses["deleted"] != total {
		t.Errorf("statuses %v of %d", statuses, total)
	}
}

func TestCompletionAgainstServer(t *testing.T) {
	srv := newServer(t)
	h := newHarness(t, srv.url, srv.key)
	var made []string
	for i, n := range []string{"Ada Park", "Bo Li", "Adam Smith"} {
		tr := decode[api.Trainee](t, h.run("create", "--name", n, "--email", fmt.Sprintf("t%d@example.com", i), "--password", "S3cret-pass", "-o", "json").expect(t, 0))
		made = append(made, fmt.Sprint(tr.ID))
	}
	h.run("delete", "--yes", made[1]).expect(t, 0)
	r := h.run("__complete", "get", "").expect(t, 0)
	want := made[0] + "\tAda Park\n" + made[1] + "\tBo Li\n" + made[2] + "\tAdam Smith\n:4\n"
	if r.out != want {
		t.Errorf("get ids:\n%q\nwant %q", r.out, want)
	}
	if r = h.run("__complete", "delete", ""); r.out != made[0]+"\tAda Park\n"+made[2]+"\tAdam Smith\n:4\n" {
		t.Errorf("delete offers live trainees only: %q", r.out)
	}
	if r = h.run("__complete", "restore", ""); r.out != made[1]+"\tBo Li\n:4\n" {
		t.Errorf("restore offers deleted trainees only: %q", r.out)
	}
	// A name offers nothing: shells keep only candidates that start with
	// the typed word.
	if r = h.run("__complete", "weight", "adam"); r.out != ":4\n" {
		t.Errorf("completion of a name: %q", r.out)
	}
	if r = h.run("__complete", "get", made[1]); !strings.HasPrefix(r.out, made[1]+"\tBo Li\n") {
		t.Errorf("a whole id: %q", r.out)
	}
	if r = h.run("__complete", "delete", made[1]); strings.Contains(r.out, "Bo Li") {
		t.Errorf("delete offers a deleted trainee: %q", r.out)
	}
}
