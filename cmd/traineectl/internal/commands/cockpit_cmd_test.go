package commands_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/store/storetest"
)

type bulkRecord struct {
	ID        int64  `json:"id"`
	Status    string `json:"status"`
	Change    string `json:"change"`
	ErrorCode int    `json:"errorCode"`
	Message   string `json:"message"`
}

func countStatus(recs []bulkRecord) map[string]int {
	m := map[string]int{}
	for _, r := range recs {
		m[r.Status]++
	}
	return m
}

// TestBulkExtend500: an action over 500 trainees with one that fails
// (its new date is past the API's range): 499 applied once, 1 reported
// with its reason, and a re-run of the same action (the same --action-id,
// then the same --journal) applies nothing twice.
func TestBulkExtend500(t *testing.T) {
	s := newServer(t)
	ctx := context.Background()
	db := storetest.DB(t, s.store)
	today := api.DateOf(testNow)
	var ids []int64
	for i := range 500 {
		tr := storetest.MustCreate(t, s.store, s.companyID, storetest.NewTrainee(fmt.Sprintf("Bulk %03d", i), fmt.Sprintf("bulk%03d@example.com", i)))
		ids = append(ids, tr.ID)
	}
	_, err := db.NewRaw("UPDATE trainees SET expiration_date = ? WHERE company_id = ?", today.AddDays(5).Int(), s.companyID).Exec(ctx)
	must(t, err)
	bad := ids[137]
	_, err = db.NewRaw("UPDATE trainees SET expiration_date = 21991220 WHERE id = ?", bad).Exec(ctx)
	must(t, err)
	h := newHarness(t, s.url, s.key)

	// The dry run changes nothing and says what would change.
	r := h.run("update", "--from-search", "status=active&expiresWithin=7d", "--extend", "30d", "--dry-run", "-o", "json").expect(t, 0)
	recs := decode[[]bulkRecord](t, r)
	if c := countStatus(recs); len(recs) != 499 || c["would-change"] != 499 {
		t.Fatalf("dry run: %d records %v", len(recs), c)
	}
	want := "expirationDate " + today.AddDays(5).String() + " → " + today.AddDays(35).String()
	if recs[0].Change != want {
		t.Fatalf("dry run change %q, want %q", recs[0].Change, want)
	}
	if n := storetest.Count(t, s.store, "trainees", "expiration_date = ?", today.AddDays(5).Int()); n != 499 {
		t.Fatalf("the dry run changed trainees: %d left", n)
	}

	r = h.run("update", "--from-search", "status=active", "--extend", "30d", "--action-id", "nov-renewals", "--parallel", "8", "-o", "json").expect(t, 5)
	recs = decode[[]bulkRecord](t, r)
	if c := countStatus(recs); len(recs) != 500 || c["updated"] != 499 || c["failed"] != 1 {
		t.Fatalf("run: %d records %v\n%s", len(recs), c, r.err)
	}
	for _, rec := range recs {
		if rec.Status == "failed" && (rec.ID != bad || rec.ErrorCode != api.CodeInvalidDate) {
			t.Fatalf("failure %+v", rec)
		}
	}
	if !strings.Contains(r.err, fmt.Sprintf("trainee %d (Bulk 137): failed: %d", bad, api.CodeInvalidDate)) || !strings.Contains(r.err, "499 updated") {
		t.Fatalf("stderr lacks the failure or the summary:\n%s", r.err)
	}
	applied := func() {
		t.Helper()
		if n := storetest.Count(t, s.store, "trainees", "expiration_date = ? AND version = 2", today.AddDays(35).Int()); n != 499 {
			t.Fatalf("%d trainees extended exactly once, want 499", n)
		}
		if n := storetest.Count(t, s.store, "trainees", "id = ? AND version = 1", bad); n != 1 {
			t.Fatal("the failed trainee changed")
		}
	}
	applied()

	// The same action again: the server has each key, nothing twice.
	r = h.run("update", "--from-search", "status=active", "--extend", "30d", "--action-id", "nov-renewals", "-o", "json").expect(t, 5)
	if c := countStatus(decode[[]bulkRecord](t, r)); c["already-done"] != 499 || c["failed"] != 1 {
		t.Fatalf("re-run: %v\n%s", c, r.err)
	}
	applied()

	// With a journal: a first run, then a re-run that sends nothing for
	// what was done.
	journal := filepath.Join(t.TempDir(), "extend.journal")
	_, err = db.NewRaw("UPDATE trainees SET expiration_date = NULL WHERE id = ?", bad).Exec(ctx)
	must(t, err)
	r = h.run("update", "--ids", strconv.FormatInt(ids[0], 10)+","+strconv.FormatInt(ids[1], 10)+","+strconv.FormatInt(bad, 10),
		"--trainer", strconv.FormatInt(s.trainerID, 10), "--expiration-date", "31-12-2030", "--journal", journal, "-o", "json").expect(t, 0)
	if c := countStatus(decode[[]bulkRecord](t, r)); c["updated"] != 3 {
		t.Fatalf("journal run: %v\n%s", c, r.err)
	}
	r = h.run("update", "--ids", strconv.FormatInt(ids[0], 10)+","+strconv.FormatInt(ids[1], 10)+","+strconv.FormatInt(bad, 10),
		"--trainer", strconv.FormatInt(s.trainerID, 10), "--expiration-date", "31-12-2030", "--journal", journal, "-o", "json").expect(t, 0)
	if c := countStatus(decode[[]bulkRecord](t, r)); c["already-done"] != 3 {
		t.Fatalf("journal re-run: %v\n%s", c, r.err)
	}
	if n := storetest.Count(t, s.store, "trainees", "id = ? AND version = 2 AND expiration_date = 20301231", bad); n != 1 {
		t.Fatal("the journal's trainee was not changed exactly once")
	}
	// Usage errors send nothing.
	for _, args := range [][]string{
		{"update", "--ids", "1,x", "--extend", "3d"},
		{"update", "--ids", "1", "--extend", "soon"},
		{"update", "--ids", "1", "--name", "Same Name"},
		{"update", "--ids", "1"},
		{"update", "--from-search", "page=2", "--extend", "3d"},
		{"update", "--ids", "1", "--from-search", "status=active", "--extend", "3d"},
	} {
		h.run(args...).expect(t, 2)
	}
}

// TestUpdateSendsIfMatch: a single update reads the trainee and sends its
// ETag; a change made in between is a 412 that the command explains.
func TestUpdateSendsIfMatch(t *testing.T) {
	s := newServer(t)
	tr := storetest.MustCreate(t, s.store, s.companyID, storetest.NewTrainee("Ada Match", "ada.match@example.com"))
	h := newHarness(t, s.url, s.key)
	h.run("update", strconv.FormatInt(tr.ID, 10), "--name", "Ada Matched").expect(t, 0)
	if got := storetest.MustGet(t, s.store, s.companyID, tr.ID); got.Name != "Ada Matched" {
		t.Fatalf("name %q", got.Name)
	}
	// A colleague's change between the read and the write: an editor that
	// changes the trainee while traineectl edit waits for it.
	dir := t.TempDir()
	script := filepath.Join(dir, "editor.sh")
	curl := fmt.Sprintf(`curl -s -o /dev/null -X PUT -H 'X-API-Key: %s' -H 'Content-Type: application/json' -d '{"name":"Colleague"}' %s/public-api/trainees/%d`,
		s.key, s.url, tr.ID)
	must(t, os.WriteFile(script, []byte("#!/bin/sh\n"+curl+"\nsed -i 's/^name: .*/name: Mine/' \"$1\"\n"), 0o755))
	h.env["EDITOR"] = script
	r := h.run("edit", strconv.FormatInt(tr.ID, 10)).expect(t, 5)
	if !strings.Contains(r.err, "changed meanwhile") || !strings.Contains(r.err, "your edit is kept in") {
		t.Fatalf("412 not explained:\n%s", r)
	}
	if got := storetest.MustGet(t, s.store, s.companyID, tr.ID); got.Name != "Colleague" {
		t.Fatalf("the colleague's change was overwritten: %q", got.Name)
	}
	testEditFromKeptFile(t, s, h, tr.ID, r.err)
}

// testEditFromKeptFile: the 412's message names edit --file and the kept
// file; a second colleague's change (the phone) comes before it is used;
// --file opens the kept edit over the server's version, names what changed
// on both sides, and sends only the edit's own field, with the new ETag.
func testEditFromKeptFile(t *testing.T, s *testServer, h *harness, id int64, stderr string) {
	ids := strconv.FormatInt(id, 10)
	_, after, ok := strings.Cut(stderr, "traineectl edit "+ids+" --file ")
	kept, _, _ := strings.Cut(after, `"`)
	if !ok || !strings.HasPrefix(kept, os.TempDir()) {
		t.Fatalf("the 412's message does not name edit --file and the kept file:\n%s", stderr)
	}
	defer os.Remove(kept)
	phone := "+447700900555"
	curl := fmt.Sprintf(`curl -s -o /dev/null -X PUT -H 'X-API-Key: %s' -H 'Content-Type: application/json' -d '{"phoneNumber":"%s"}' %s/public-api/trainees/%d`,
		s.key, phone, s.url, id)
	if out, err := exec.Command("sh", "-c", curl).CombinedOutput(); err != nil {
		t.Fatalf("the colleague's change: %v %s", err, out)
	}
	dir := t.TempDir()
	script := filepath.Join(dir, "editor.sh")
	must(t, os.WriteFile(script, []byte("#!/bin/sh\ncp \"$1\" "+dir+"/seen.yaml\n"), 0o755))
	h.env["EDITOR"] = script
	r := h.run("edit", ids, "--file", kept).expect(t, 0)
	got := storetest.MustGet(t, s.store, s.companyID, id)
	if got.Name != "Mine" || got.PhoneNumber == nil || *got.PhoneNumber != phone {
		t.Fatalf("after edit --file: name %q phone %v\n%s", got.Name, got.PhoneNumber, r)
	}
	seen, err := os.ReadFile(filepath.Join(dir, "seen.yaml"))
	must(t, err)
	for _, want := range []string{"# Your fields: name.", "# Changed on the server meanwhile: phoneNumber, name (yours kept for name: check them).",
		"name: Mine\n#   the server's, changed meanwhile: name: Colleague\n", `phoneNumber: "` + phone + `"`} {
		if !strings.Contains(string(seen), want) {
			t.Fatalf("edit --file opened without %q:\n%s", want, seen)
		}
	}
	h.run("edit", ids, "--file", filepath.Join(dir, "missing.yaml")).expect(t, 2)
}

// TestEditWithScriptedEditor: traineectl edit with $EDITOR a script: a
// change is sent alone, an unchanged file cancels, an invalid change
// reopens the file with the error on top.
func TestEditWithScriptedEditor(t *testing.T) {
	s := newServer(t)
	nt := storetest.NewTrainee("Edie Tor", "edie@example.com")
	ph := "+447700900123"
	nt.PhoneNumber = &ph
	tr := storetest.MustCreate(t, s.store, s.companyID, nt)
	id := strconv.FormatInt(tr.ID, 10)
	h := newHarness(t, s.url, s.key)
	dir := t.TempDir()
	editor := func(name, body string) {
		p := filepath.Join(dir, name)
		must(t, os.WriteFile(p, []byte("#!/bin/sh\n"+body+"\n"), 0o755))
		h.env["EDITOR"] = p
	}

	editor("noop.sh", "true")
	r := h.run("edit", id).expect(t, 0)
	if !strings.Contains(r.err, "Edit cancelled, no changes made.") {
		t.Fatalf("unchanged file:\n%s", r)
	}
	editor("same.sh", `sed -i 's/^name: .*/name: Edie Tor/' "$1"`) // rewritten, same value
	if r = h.run("edit", id).expect(t, 0); !strings.Contains(r.err, "Edit cancelled, no changes made.") {
		t.Fatalf("same values:\n%s", r)
	}
	if v := storetest.Count(t, s.store, "trainees", "id = ? AND version = 1", tr.ID); v != 1 {
		t.Fatal("a cancelled edit changed the trainee")
	}

	editor("change.sh", `cp "$1" `+dir+`/seen.yaml; sed -i -e 's/^name: .*/name: Edie Edited/' -e 's/^expirationDate: .*/expirationDate: 31-12-2027/' "$1"`)
	r = h.run("edit", id, "-o", "json").expect(t, 0)
	got := storetest.MustGet(t, s.store, s.companyID, tr.ID)
	if got.Name != "Edie Edited" || got.ExpirationDate == nil || got.ExpirationDate.String() != "31-12-2027" ||
		got.PhoneNumber == nil || *got.PhoneNumber != ph || got.Email != "edie@example.com" {
		t.Fatalf("after the edit: %+v\n%s", got, r)
	}
	seen, err := os.ReadFile(filepath.Join(dir, "seen.yaml"))
	must(t, err)
	for _, want := range []string{"name: Edie Tor\n", `phoneNumber: "+447700900123"`, "expirationDate: null\n", "weightUnit: KG\n", `If-Match: "1"`} {
		if !strings.Contains(string(seen), want) {
			t.Fatalf("the file lacks %q:\n%s", want, seen)
		}
	}

	// Invalid, then fixed: the second opening shows the error on top.
	editor("fix.sh", `n=$(cat `+dir+`/n 2>/dev/null || echo 0); n=$((n+1)); echo $n > `+dir+`/n
cp "$1" `+dir+`/open$n.yaml
if [ $n = 1 ]; then sed -i 's/^email: .*/email: not-an-email/' "$1"; else sed -i 's/^email: .*/email: edie.fixed@example.com/' "$1"; fi`)
	h.run("edit", id).expect(t, 0)
	second, err := os.ReadFile(filepath.Join(dir, "open2.yaml"))
	must(t, err)
	if !strings.HasPrefix(string(second), "# The change was not saved:\n#   email: ") || !strings.Contains(string(second), "email: not-an-email") {
		t.Fatalf("the reopened file:\n%s", second)
	}
	if got := storetest.MustGet(t, s.store, s.companyID, tr.ID); got.Email != "edie.fixed@example.com" {
		t.Fatalf("email %q", got.Email)
	}
	// Invalid and left so: the error, nothing changed.
	editor("bad.sh", `sed -i 's/^weightUnit: .*/weightUnit: STONE/' "$1"`)
	r = h.run("edit", id)
	if r.code == 0 || !strings.Contains(r.err, "weightUnit") {
		t.Fatalf("invalid edit left as is:\n%s", r)
	}
	if got := storetest.MustGet(t, s.store, s.companyID, tr.ID); got.WeightUnit != api.UnitKG {
		t.Fatal("an invalid edit changed the trainee")
	}
	// Two problems, left so: both said, exit status 2, no usage hint.
	editor("bad2.sh", `sed -i -e 's/^weightUnit: .*/weightUnit: STONE/' -e 's/^email: .*/email: not-an-email/' "$1"`)
	r = h.run("edit", id).expect(t, 2)
	if !strings.Contains(r.err, "weightUnit") || !strings.Contains(r.err, "email") || strings.Contains(r.err, "--help") {
		t.Fatalf("invalid edit given up:\n%s", r)
	}
}

// TestBulkDeleteRestore: delete and restore over a search, with the
// confirmation's rule and the dry run.
func TestBulkDeleteRestore(t *testing.T) {
	s := newServer(t)
	var ids []string
	for i := range 5 {
		tr := storetest.MustCreate(t, s.store, s.companyID, storetest.NewTrainee(fmt.Sprintf("Gone %d", i), fmt.Sprintf("gone%d@example.com", i)))
		ids = append(ids, strconv.FormatInt(tr.ID, 10))
	}
	h := newHarness(t, s.url, s.key)
	h.run("delete", "--from-search", "q=gone").expect(t, 2) // no --yes off a terminal
	r := h.run("delete", "--from-search", "q=gone", "--dry-run", "-o", "json").expect(t, 0)
	if c := countStatus(decode[[]bulkRecord](t, r)); c["would-change"] != 5 {
		t.Fatalf("dry run %v", c)
	}
	if n := storetest.Count(t, s.store, "trainees", "company_id = ? AND enabled", s.companyID); n != 5 {
		t.Fatalf("%d live after a dry run", n)
	}
	r = h.run("delete", "--ids", strings.Join(ids[:3], ","), "--yes", "-o", "json").expect(t, 0)
	if c := countStatus(decode[[]bulkRecord](t, r)); c["updated"] != 3 {
		t.Fatalf("delete %v", c)
	}
	r = h.run("restore", "--from-search", "status=all&q=gone", "-o", "json").expect(t, 0)
	if c := countStatus(decode[[]bulkRecord](t, r)); c["updated"] != 3 || c["unchanged"] != 2 {
		t.Fatalf("restore %v\n%s", c, r.err)
	}
	if n := storetest.Count(t, s.store, "trainees", "company_id = ? AND enabled AND version = 3", s.companyID); n != 3 {
		t.Fatalf("%d deleted and restored once each", n)
	}
}

// TestFromSearchStatusHint: a dashboard count's name as a status is
// refused (exit 2, nothing sent) with the filter that finds those trainees.
func TestFromSearchStatusHint(t *testing.T) {
	h := newHarness(t, "http://127.0.0.1:1", stubKey)
	for status, hint := range map[string]string{"expiring": "status=active&expiresWithin=30d", "inactive": "inactiveFor=14d", "new": "createdSince=7d"} {
		r := h.run("update", "--from-search", "status="+status, "--extend", "3d").expect(t, 2)
		if !strings.Contains(r.err, hint) {
			t.Errorf("status=%s: no %q in\n%s", status, hint, r)
		}
	}
}

// TestBulkDryRunTable: update --dry-run's table has a header and the
// trainee's name, on a terminal and off one, and the summary says
// "1 trainee", not "1 trainees".
func TestBulkDryRunTable(t *testing.T) {
	s := newServer(t)
	tr := storetest.MustCreate(t, s.store, s.companyID, storetest.NewTrainee("Dry Runner", "dry.runner@example.com"))
	h := newHarness(t, s.url, s.key)
	id := strconv.FormatInt(tr.ID, 10)
	r := h.run("update", "--ids", id, "--extend", "30d", "--dry-run").expect(t, 0)
	if !strings.HasPrefix(r.out, "ID\tNAME\tSTATUS\tCHANGE\tERROR\tMESSAGE\n"+id+"\tDry Runner\t") {
		t.Fatalf("the dry run's table off a terminal:\n%s", r)
	}
	if !strings.Contains(r.err, "Dry run, none sent: 1 trainee, ") {
		t.Fatalf("the dry run's summary:\n%s", r)
	}
	r = h.runWith(runOpts{tty: true}, "update", "--ids", id, "--extend", "30d", "--dry-run").expect(t, 0)
	lines := strings.Split(r.out, "\n")
	if len(lines) < 2 || !strings.HasPrefix(strings.TrimSpace(lines[0]), "ID  NAME") || !strings.Contains(lines[1], "Dry Runner") {
		t.Fatalf("the dry run's table on a terminal:\n%s", r)
	}
}
