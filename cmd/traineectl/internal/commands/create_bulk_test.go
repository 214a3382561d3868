package commands_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/server"
	"github.com/traineed/traineed/cmd/traineectl/internal/bulkimport"
	"github.com/traineed/traineed/store"
	"github.com/traineed/traineed/store/storetest"
)

// importServer is the real handler over SQLite, behind a wrapper that
// records every request and can misbehave.
type importServer struct {
	*testServer
	mu   sync.Mutex
	seen []seenReq
	// misbehave, when set, may answer instead of the handler (return true).
	misbehave func(w http.ResponseWriter, r *http.Request, body []byte, next http.Handler) bool
}

type seenReq struct {
	method, path, query, requestID, email string
	ifMatch, idempotencyKey               string
}

func newImportServer(t *testing.T) *importServer {
	t.Helper()
	return newImportServerOn(t, storetest.SQLite(t))
}

// newImportServerOn is newImportServer over the store st.
func newImportServerOn(t *testing.T, st *store.Store) *importServer {
	t.Helper()
	ctx := context.Background()
	c, err := st.CreateCompany(ctx, "Acme", "UTC")
	must(t, err)
	tr, err := st.CreateTrainer(ctx, c.ID, "Coach Carter", "coach@acme.example")
	must(t, err)
	h := server.NewHandler(st, server.WithHasher(cheapHasher), server.WithClock(func() time.Time { return testNow }))
	is := &importServer{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body []byte
		if r.Body != nil {
			body, _ = io.ReadAll(r.Body)
		}
		var b struct {
			Email string `json:"email"`
		}
		_ = json.Unmarshal(body, &b)
		is.mu.Lock()
		if r.URL.Path != api.PathCurrentKey { // the scope check before the import
			is.seen = append(is.seen, seenReq{r.Method, r.URL.Path, r.URL.RawQuery, r.Header.Get(api.HeaderRequestID), b.Email,
				r.Header.Get(api.HeaderIfMatch), r.Header.Get(api.HeaderIdempotencyKey)})
		}
		mis := is.misbehave
		is.mu.Unlock()
		r.Body = io.NopCloser(bytes.NewReader(body))
		if mis != nil && mis(w, r, body, h) {
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	is.testServer = &testServer{url: srv.URL, store: st, companyID: c.ID, trainerID: tr.ID}
	is.key = is.newKey(t, c.ID)
	return is
}

// requests returns the requests seen and forgets them.
func (s *importServer) requests() []seenReq {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.seen
	s.seen = nil
	return r
}

func (s *importServer) posts() []seenReq {
	var p []seenReq
	for _, r := range s.requests() {
		if r.method == http.MethodPost && r.path != api.PathErasedCheck { // creates only
			p = append(p, r)
		}
	}
	return p
}

// trainees returns every trainee of the company by e-mail.
func (s *importServer) trainees(t *testing.T) map[string]*api.Trainee {
	t.Helper()
	all, _, err := s.store.SearchTrainees(context.Background(), s.companyID, api.Search{Status: api.StatusAll, Size: 1000, Today: api.DateOf(testNow)})
	must(t, err)
	m := map[string]*api.Trainee{}
	for _, tr := range all {
		if m[tr.Email] != nil {
			t.Fatalf("two trainees with e-mail %s", tr.Email)
		}
		m[tr.Email] = tr
	}
	return m
}

func (s *importServer) passwordHash(t *testing.T, email string) string {
	t.Helper()
	var hash string
	err := storetest.DB(t, s.store).NewSelect().Table("users").Column("password_hash").Where("email = ?", email).Scan(context.Background(), &hash)
	must(t, err)
	return hash
}

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	must(t, os.WriteFile(p, []byte(content), 0o644))
	return p
}

func readResults(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	must(t, err)
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	must(t, err)
	if strings.Join(recs[0], ",") != strings.Join(bulkimport.ResultsHeader, ",") {
		t.Fatalf("results header %v", recs[0])
	}
	return recs[1:]
}

const validCSV = "\ufeffName,EMAIL,Password,phone,DOB,expires,trainer,weightUnit,requestId\n" +
	"Ada Park,Ada@Example.com,S3cret-pass,+44 7700 900123,1990-03-02,31-12-2026,%d,LB,\n" +
	"Bob Stone,bob@example.com,S3cret-pass,,02-03-1985,,,,bob-1\n" +
	",,,,,,,,\n" +
	"\"Cy, Jr.\",cy@example.com,S3cret-pass,,,,,,\n"

func TestBulkImportCSV(t *testing.T) {
	s := newImportServer(t)
	h := newHarness(t, s.url, s.key)
	in := writeFile(t, "clients.csv", fmt.Sprintf(validCSV, s.trainerID))

	r := h.run("create", "-f", in).expect(t, 0)
	if r.out != "" {
		t.Errorf("stdout of a table import: %q", r.out)
	}
	if !strings.Contains(r.err, "Created 3, already done 0, failed 0 of 3 rows") {
		t.Errorf("summary: %s", r)
	}
	posts := s.posts()
	if len(posts) != 3 {
		t.Fatalf("%d creates sent, want 3", len(posts))
	}
	wantID := map[string]string{
		"ada@example.com": bulkimport.DeriveRequestID("ada@example.com"),
		"bob@example.com": "bob-1",
		"cy@example.com":  bulkimport.DeriveRequestID("cy@example.com"),
	}
	for _, p := range posts {
		if p.requestID != wantID[p.email] {
			t.Errorf("create of %s carried X-Request-Id %q, want %q", p.email, p.requestID, wantID[p.email])
		}
	}
	ts := s.trainees(t)
	ada := ts["ada@example.com"]
	if ada == nil || ada.Name != "Ada Park" || ada.PhoneNumber == nil || *ada.PhoneNumber != "+447700900123" ||
		ada.DateOfBirth == nil || ada.DateOfBirth.String() != "02-03-1990" || ada.ExpirationDate == nil ||
		ada.ExpirationDate.String() != "31-12-2026" || ada.WeightUnit != "LB" || ada.TrainerID == nil || *ada.TrainerID != s.trainerID {
		t.Errorf("ada: %+v", ada)
	}
	if ts["cy@example.com"] == nil || ts["cy@example.com"].Name != "Cy, Jr." || len(ts) != 3 {
		t.Errorf("trainees: %v", ts)
	}
	if !server.VerifyPassword(s.passwordHash(t, "bob@example.com"), "S3cret-pass") {
		t.Error("bob's password is not the file's")
	}
	if _, err := os.Stat(in + ".journal"); err != nil {
		t.Errorf("no journal beside the input: %v", err)
	}

	// A second run creates nothing and says so.
	r = h.run("create", "-f", in, "-o", "json").expect(t, 0)
	if n := len(s.posts()); n != 0 {
		t.Errorf("second run sent %d creates", n)
	}
	recs := decode[[]bulkimport.Record](t, r)
	if len(recs) != 3 {
		t.Fatalf("records: %s", r)
	}
	for _, rec := range recs {
		if rec.Status != bulkimport.StatusAlreadyDone || rec.TraineeID == nil || *rec.TraineeID != ts[rec.Email].ID {
			t.Errorf("second run record %+v", rec)
		}
	}
	if recs[0].Row != 2 || recs[1].Row != 3 || recs[2].Row != 5 {
		t.Errorf("rows %d %d %d, want the spreadsheet's 2 3 5", recs[0].Row, recs[1].Row, recs[2].Row)
	}
	if !strings.Contains(r.err, "Created 0, already done 3, failed 0") {
		t.Errorf("second summary: %s", r.err)
	}
}

func TestBulkImportJSONLines(t *testing.T) {
	s := newImportServer(t)
	h := newHarness(t, s.url, s.key)
	lines := []string{
		`{"name":"Ada","email":"ada@example.com","password":"S3cret-pass","expirationDate":null,"requestId":"r-ada"}`,
		``,
		`{"name":"Bob","email":"bob@example.com","password":"S3cret-pass","phoneNumber":"+15551234567","companyId":99}`,
	}
	in := writeFile(t, "clients.ndjson", strings.Join(lines, "\n"))
	r := h.run("create", "-f", in, "-o", "json", "--parallel", "1").expect(t, 0)
	recs := decode[[]bulkimport.Record](t, r)
	ts := s.trainees(t)
	if len(recs) != 2 || len(ts) != 2 {
		t.Fatalf("records %+v, trainees %v", recs, ts)
	}
	for i, want := range []struct {
		row         int
		rid, email  string
		wantTrainee bool
	}{{1, "r-ada", "ada@example.com", true}, {3, bulkimport.DeriveRequestID("bob@example.com"), "bob@example.com", true}} {
		rec := recs[i]
		if rec.Row != want.row || rec.RequestID != want.rid || rec.Email != want.email || rec.Status != bulkimport.StatusCreated ||
			rec.TraineeID == nil || *rec.TraineeID != ts[want.email].ID || rec.ErrorCode != nil {
			t.Errorf("record %d: %+v", i, rec)
		}
	}
	if ts["bob@example.com"].CompanyID != s.companyID {
		t.Error("companyId of the body was used")
	}
}

func TestBulkImportInvalidRows(t *testing.T) {
	s := newImportServer(t)
	h := newHarness(t, s.url, s.key)
	// taken@ exists already: the server refuses it (1008); trainer 999 is
	// not one of the company's (1010): both only the server can tell.
	h.run("create", "--name", "Taken", "--email", "taken@example.com", "--password", "S3cret-pass").expect(t, 0)
	s.requests()
	in := writeFile(t, "mixed.csv", "name,email,password,trainer,dob\n"+
		"Ada,ada@example.com,S3cret-pass,,\n"+ // 2: valid
		"Bad,not-an-email,S3cret-pass,,\n"+ // 3: 1002
		"Short,short@example.com,abc,,\n"+ // 4: 1003
		"Taken,taken@example.com,S3cret-pass,,\n"+ // 5: 1008 from the server
		"Nobody,nobody@example.com,S3cret-pass,999,\n"+ // 6: 1010 from the server
		"Ada again,ADA@example.com,S3cret-pass,,\n"+ // 7: repeats row 2
		"Future,future@example.com,S3cret-pass,,22-11-2026\n"+ // 8: born tomorrow (1005)
		"Bob,bob@example.com,S3cret-pass,,\n") // 9: valid
	r := h.run("create", "-f", in, "-o", "json").expect(t, 5)
	for _, want := range []string{
		"row 3: invalid: 1002 email: e-mail address is not valid\n",
		"row 4: invalid: 1003 password: ",
		"row 5: failed: 1008 email: e-mail address is already in use\n",
		"row 6: failed: 1010 trainerId: ",
		"row 7: invalid: 1008 email: e-mail address repeats row 2 of the input\n",
		"row 8: invalid: 1005 dateOfBirth: ",
		"Created 2, already done 0, failed 6 (4 invalid, not sent) of 8 rows",
	} {
		if !strings.Contains(r.err, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.err)
		}
	}
	posts := s.posts()
	sent := map[string]bool{}
	for _, p := range posts {
		sent[p.email] = true
	}
	if len(posts) != 4 || !sent["ada@example.com"] || !sent["bob@example.com"] || !sent["taken@example.com"] || !sent["nobody@example.com"] {
		t.Errorf("creates sent: %+v", posts)
	}
	recs := decode[[]bulkimport.Record](t, r)
	status := map[int]string{}
	codes := map[int]int{}
	for _, rec := range recs {
		status[rec.Row] = rec.Status
		if rec.ErrorCode != nil {
			codes[rec.Row] = *rec.ErrorCode
		}
	}
	wantStatus := map[int]string{2: "created", 3: "invalid", 4: "invalid", 5: "failed", 6: "failed", 7: "invalid", 8: "invalid", 9: "created"}
	wantCodes := map[int]int{3: 1002, 4: 1003, 5: 1008, 6: 1010, 7: 1008, 8: 1005}
	if fmt.Sprint(status) != fmt.Sprint(wantStatus) || fmt.Sprint(codes) != fmt.Sprint(wantCodes) {
		t.Errorf("statuses %v codes %v", status, codes)
	}
	if ts := s.trainees(t); len(ts) != 3 || ts["ada@example.com"].Name != "Ada" {
		t.Errorf("trainees: %v", ts)
	}

	// Again: the created rows are done; the refused ones are tried again
	// (a 4xx created nothing, and the data may have been fixed since).
	r = h.run("create", "-f", in).expect(t, 5)
	if posts := s.posts(); len(posts) != 2 {
		t.Errorf("second run sent %d creates, want the 2 refused rows", len(posts))
	}
	if !strings.Contains(r.err, "Created 0, already done 2, failed 6") {
		t.Errorf("second run: %s", r.err)
	}
}

func TestBulkDryRunSendsNothing(t *testing.T) {
	s := newImportServer(t)
	h := newHarness(t, s.url, s.key)
	in := writeFile(t, "c.csv", "name,email,password\nAda,ada@example.com,S3cret-pass\nBad,bad,S3cret-pass\nBob,bob@example.com,short\n")
	r := h.run("create", "-f", in, "--dry-run").expect(t, 5)
	want := "row 3: invalid: 1002 email: e-mail address is not valid\n" +
		"row 4: invalid: 1003 password: password must be 8 to 128 characters\n" +
		"3 rows: 1 valid, 2 invalid; 1 to create. Nothing was sent.\n"
	if r.out != want {
		t.Errorf("dry run report:\n%s\nwant\n%s", r.out, want)
	}
	r = h.run("create", "-f", in, "--dry-run", "-o", "json").expect(t, 5)
	c := decode[bulkimport.Check](t, r)
	if c.Rows != 3 || c.Valid != 1 || c.Invalid != 2 || c.ToSend != 1 || len(c.Errors) != 2 || c.Errors[0].Row != 3 ||
		c.Errors[0].ErrorCode == nil || *c.Errors[0].ErrorCode != 1002 || c.Errors[0].Field != "email" {
		t.Errorf("dry run JSON: %+v", c)
	}
	ok := writeFile(t, "ok.jsonl", `{"name":"Ada","email":"ada@example.com","password":"S3cret-pass"}`+"\n")
	h.run("create", "-f", ok, "--dry-run").expect(t, 0)
	// Nothing but the erased-check of the rows to create, once a run.
	if reqs := s.requests(); len(reqs) != 3 || slices.ContainsFunc(reqs, func(r seenReq) bool { return r.path != api.PathErasedCheck }) {
		t.Errorf("dry runs sent %v, want the 3 erased-checks alone", reqs)
	}
	// With --allow-erased it still asks, to mark who would come back.
	h.run("create", "-f", ok, "--dry-run", "--allow-erased").expect(t, 0)
	if reqs := s.requests(); len(reqs) != 1 || reqs[0].path != api.PathErasedCheck {
		t.Errorf("a dry run with --allow-erased sent %v, want the erased-check alone", reqs)
	}
	if _, err := os.Stat(in + ".journal"); !os.IsNotExist(err) {
		t.Errorf("a dry run made a journal: %v", err)
	}
	// After an import, a dry run counts the rows already done.
	h.run("create", "-f", ok).expect(t, 0)
	r = h.run("create", "-f", ok, "--dry-run").expect(t, 0)
	if !strings.Contains(r.out, "1 row: 1 valid, 0 invalid; 1 already done, 0 to create.") {
		t.Errorf("dry run after the import: %s", r)
	}
}

func TestBulkGeneratedPasswords(t *testing.T) {
	s := newImportServer(t)
	h := newHarness(t, s.url, s.key)
	dir := t.TempDir()
	in := filepath.Join(dir, "c.csv")
	must(t, os.WriteFile(in, []byte("name,email\nAda,ada@example.com\nBob,bob@example.com\nCy,cy@example.com\n"), 0o644))
	resPath := filepath.Join(dir, "out", "results.csv")
	must(t, os.MkdirAll(filepath.Dir(resPath), 0o755))

	// Without --results there is nowhere to put them.
	h.run("create", "-f", in, "--generate-passwords").expect(t, 2)
	// Without --generate-passwords a file without passwords is refused.
	h.run("create", "-f", in).expect(t, 2)
	if n := len(s.requests()); n != 0 {
		t.Fatalf("refused commands sent %d requests", n)
	}

	r := h.run("create", "-f", in, "--generate-passwords", "--results", resPath, "-o", "json").expect(t, 0)
	fi, err := os.Stat(resPath)
	must(t, err)
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("results file mode %v, want 0600", fi.Mode().Perm())
	}
	ts := s.trainees(t)
	passwords := map[string]string{}
	for _, rec := range readResults(t, resPath) {
		if rec[4] != bulkimport.StatusCreated {
			continue
		}
		email, pw := rec[3], rec[7]
		if len(pw) < bulkimport.GeneratedPasswordLength {
			t.Errorf("%s: weak password %q", email, pw)
		}
		if rec[2] != fmt.Sprint(ts[email].ID) {
			t.Errorf("%s: trainee id %s, want %d", email, rec[2], ts[email].ID)
		}
		if !server.VerifyPassword(s.passwordHash(t, email), pw) {
			t.Errorf("%s: the password of the results file does not match the stored hash", email)
		}
		passwords[email] = pw
	}
	if len(passwords) != 3 || passwords["ada@example.com"] == passwords["bob@example.com"] {
		t.Fatalf("passwords: %v", passwords)
	}
	journal, err := os.ReadFile(in + ".journal")
	must(t, err)
	for _, pw := range passwords {
		if strings.Contains(r.out, pw) || strings.Contains(r.err, pw) || strings.Contains(string(journal), pw) {
			t.Errorf("a generated password was printed or journaled")
		}
	}
	for _, rec := range decode[[]bulkimport.Record](t, r) {
		if !rec.PasswordGenerated || rec.Status != bulkimport.StatusCreated {
			t.Errorf("record %+v", rec)
		}
	}

	// A second run appends "already done" lines that repeat the password.
	h.run("create", "-f", in, "--generate-passwords", "--results", resPath).expect(t, 0)
	recs := readResults(t, resPath)
	last := recs[len(recs)-1]
	if last[4] != bulkimport.StatusAlreadyDone || last[7] != passwords[last[3]] {
		t.Errorf("second run's results line %v", last)
	}
}

func TestBulkUsageErrors(t *testing.T) {
	s := newImportServer(t)
	h := newHarness(t, s.url, s.key)
	csvIn := writeFile(t, "c.csv", "name,email,password\nAda,ada@example.com,S3cret-pass\n")
	txt := writeFile(t, "c.txt", "name,email,password\n")
	unknownCol := writeFile(t, "u.csv", "name,email,password,nickname\nAda,ada@example.com,S3cret-pass,A\n")
	noEmail := writeFile(t, "n.csv", "name,password\nAda,S3cret-pass\n")
	for _, tc := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"-f", txt}, 2, "cannot tell the format"},
		{[]string{"-f", "-"}, 2, "needs --format"},
		{[]string{"-f", "-", "--format", "csv"}, 2, "needs --journal"},
		{[]string{"-f", csvIn, "--format", "xml"}, 2, "invalid format"},
		{[]string{"-f", csvIn, "--name", "Ada"}, 2, "--name cannot be used with -f"},
		{[]string{"--dry-run", "--name", "A", "--email", "a@example.com", "--password", "S3cret-pass"}, 2, "--dry-run needs -f"},
		{[]string{"-f", csvIn, "--parallel", "0"}, 2, "--parallel must be"},
		{[]string{"-f", csvIn, "--journal", csvIn}, 2, "--journal must not be the input"},
		{[]string{"-f", unknownCol}, 2, `unknown column(s) "nickname"`},
		{[]string{"-f", noEmail}, 2, "no email column"},
		{[]string{"-f", filepath.Join(t.TempDir(), "missing.csv")}, 1, "open the input"},
	} {
		r := h.run(append([]string{"create"}, tc.args...)...)
		if r.code != tc.code || !strings.Contains(r.err, tc.msg) {
			t.Errorf("%v: want exit %d and %q, got %s", tc.args, tc.code, tc.msg, r)
		}
	}
	if n := len(s.requests()); n != 0 {
		t.Errorf("usage errors sent %d requests", n)
	}
	// stdin works with --format and --journal.
	r := h.runWith(runOpts{stdin: "name,email,password\nSam,sam@example.com,S3cret-pass\n"},
		"create", "-f", "-", "--format", "csv", "--journal", filepath.Join(t.TempDir(), "j"))
	r.expect(t, 0)
	// A journal of another server is refused.
	j := filepath.Join(t.TempDir(), "j")
	h.run("create", "-f", csvIn, "--journal", j).expect(t, 0)
	r = h.run("--base-url", "http://127.0.0.1:1", "create", "-f", csvIn, "--journal", j)
	if r.code != 2 || !strings.Contains(r.err, "belongs to an import into "+s.url) {
		t.Errorf("journal of another server: %s", r)
	}
	// A refused key stops the import: exit 3, and nothing is created.
	bad := newHarness(t, s.url, "pk_"+strings.Repeat("x", 40))
	r = bad.run("create", "-f", writeFile(t, "k.csv", "name,email,password\nZed,zed@example.com,S3cret-pass\nYan,yan@example.com,S3cret-pass\n"), "--parallel", "1")
	if r.code != 3 || !strings.Contains(r.err, "authentication refused") {
		t.Errorf("bad key: %s", r)
	}
}

// A create whose answer is lost (the trainee is created, the client sees a
// 503 and retries, the retry finds the e-mail taken) is settled by a lookup
// as created; a create that never reached the database is reported failed,
// and the next run sends it again.
func TestBulkLostAnswers(t *testing.T) {
	// keyed: the server keeps idempotent answers, so the retry of the lost
	// create gets its answer replayed; unkeyed: a server without the
	// feature (the header is dropped), where the lookup settles it.
	for _, keyed := range []bool{true, false} {
		t.Run(map[bool]string{true: "idempotency-key", false: "lookup"}[keyed], func(t *testing.T) {
			s := newImportServer(t)
			h := newHarness(t, s.url, s.key)
			var mu sync.Mutex
			lost := map[string]bool{"lost@example.com": true}
			down := map[string]bool{"down@example.com": true}
			s.misbehave = func(w http.ResponseWriter, r *http.Request, body []byte, next http.Handler) bool {
				if !keyed {
					r.Header.Del(api.HeaderIdempotencyKey)
				}
				if r.Method != http.MethodPost {
					return false
				}
				var b struct{ Email string }
				_ = json.Unmarshal(body, &b)
				mu.Lock()
				defer mu.Unlock()
				switch {
				case lost[b.Email]:
					delete(lost, b.Email)
					next.ServeHTTP(httptest.NewRecorder(), r) // created, answer thrown away
					w.WriteHeader(http.StatusBadGateway)
					return true
				case down[b.Email]:
					w.WriteHeader(http.StatusServiceUnavailable)
					return true
				}
				return false
			}
			in := writeFile(t, "c.csv", "name,email,password\nLost,lost@example.com,S3cret-pass\nDown,down@example.com,S3cret-pass\nFine,fine@example.com,S3cret-pass\n")
			r := h.run("create", "-f", in, "-o", "json", "--parallel", "1").expect(t, 5)
			recs := decode[[]bulkimport.Record](t, r)
			ts := s.trainees(t)
			if len(recs) != 3 || recs[0].Status != "created" || recs[0].TraineeID == nil || *recs[0].TraineeID != ts["lost@example.com"].ID ||
				recs[1].Status != "failed" || recs[2].Status != "created" {
				t.Fatalf("records: %s", r)
			}
			if strings.Contains(recs[0].Message, "found by its e-mail") != !keyed || !strings.Contains(recs[1].Message, "not created") {
				t.Errorf("messages: %q, %q", recs[0].Message, recs[1].Message)
			}
			if len(ts) != 2 || ts["down@example.com"] != nil {
				t.Errorf("trainees: %v", ts)
			}
			if !strings.Contains(r.err, "row 3: failed: server error: 503") {
				t.Errorf("stderr: %s", r.err)
			}
			// Every attempt of a create carried the row's request id.
			lostPosts := 0
			for _, p := range s.posts() {
				if p.email == "lost@example.com" {
					lostPosts++
					if p.requestID != bulkimport.DeriveRequestID("lost@example.com") {
						t.Errorf("attempt of the lost create with X-Request-Id %q", p.requestID)
					}
				}
			}
			if lostPosts != 2 {
				t.Errorf("the lost create was sent %d times, want 2 (the client's retry)", lostPosts)
			}

			mu.Lock()
			delete(down, "down@example.com")
			mu.Unlock()
			r = h.run("create", "-f", in, "-o", "json").expect(t, 0)
			recs = decode[[]bulkimport.Record](t, r)
			if recs[1].Status != "created" || len(s.trainees(t)) != 3 {
				t.Errorf("second run: %s", r)
			}
			reqs := s.requests()
			if len(reqs) != 2 || reqs[0].method != http.MethodGet || !strings.Contains(reqs[0].query, "q=down%40example.com") ||
				reqs[1].method != http.MethodPost || reqs[1].email != "down@example.com" {
				t.Errorf("second run: want a lookup then the create of the uncertain row, got %+v", reqs)
			}
		})
	}
}

// A journal that says "sent" without an outcome (a run killed mid-flight)
// is settled by a lookup: found is already done and not sent again, not
// found is sent.
func TestBulkSettlesUnknownOutcomes(t *testing.T) {
	s := newImportServer(t)
	h := newHarness(t, s.url, s.key)
	dir := t.TempDir()
	in := filepath.Join(dir, "c.jsonl")
	must(t, os.WriteFile(in, []byte(`{"name":"Ada","email":"ada@example.com","password":"S3cret-pass"}
{"name":"Bob","email":"bob@example.com","password":"S3cret-pass"}
`), 0o644))
	// Ada was created, but the run died before it recorded the answer; Bob
	// was never created. The last line is torn (no newline).
	h.run("create", "--name", "Ada", "--email", "ada@example.com", "--password", "S3cret-pass").expect(t, 0)
	ada := s.trainees(t)["ada@example.com"]
	journal := fmt.Sprintf(`{"kind":"run","time":"2026-11-21T10:00:00Z","baseUrl":%q}
{"kind":"sent","time":"2026-11-21T10:00:00Z","requestId":%q,"row":1,"email":"ada@example.com"}
{"kind":"sent","time":"2026-11-21T10:00:00Z","requestId":%q,"row":2,"email":"bob@example.com"}
{"kind":"created","time":"2026-11-21T10:00:00Z","requestId":%q,"row":2,"trai`, s.url,
		bulkimport.DeriveRequestID("ada@example.com"), bulkimport.DeriveRequestID("bob@example.com"), bulkimport.DeriveRequestID("bob@example.com"))
	must(t, os.WriteFile(in+".journal", []byte(journal), 0o600))
	s.requests()

	r := h.run("create", "-f", in, "-o", "json", "--parallel", "1").expect(t, 0)
	recs := decode[[]bulkimport.Record](t, r)
	if recs[0].Status != bulkimport.StatusAlreadyDone || *recs[0].TraineeID != ada.ID || recs[1].Status != bulkimport.StatusCreated {
		t.Errorf("records: %s", r)
	}
	var posts []string
	for _, q := range s.requests() {
		if q.method == http.MethodPost {
			posts = append(posts, q.email)
		}
	}
	if strings.Join(posts, ",") != "bob@example.com" {
		t.Errorf("creates sent: %v", posts)
	}
	if ts := s.trainees(t); len(ts) != 2 {
		t.Errorf("trainees: %v", ts)
	}
	// The torn line was cut off, and the journal now has both as created.
	j, err := bulkimport.ReadJournal(in + ".journal")
	must(t, err)
	for _, e := range j.Entries() {
		if e.State != bulkimport.StateCreated || e.TraineeID == 0 {
			t.Errorf("journal entry %+v", e)
		}
	}
}

func TestBulkProgressOnTerminal(t *testing.T) {
	s := newImportServer(t)
	h := newHarness(t, s.url, s.key)
	in := writeFile(t, "c.csv", "name,email,password\nAda,ada@example.com,S3cret-pass\nBad,bad,S3cret-pass\n")
	r := h.runWith(runOpts{tty: true}, "create", "-f", in).expect(t, 5)
	if !strings.Contains(r.err, "\r\x1b[K[") || !strings.Contains(r.err, "rows/s") ||
		!strings.Contains(r.err, "row 3: invalid: 1002") || !strings.HasSuffix(r.err, "\n") {
		t.Errorf("terminal progress: %q", r.err)
	}
	r = h.runWith(runOpts{tty: true, color: true}, "create", "-f", in).expect(t, 5)
	if !strings.Contains(r.err, "\x1b[90m"+strings.Repeat("░", 30)) || !strings.Contains(r.err, " 0/2 rows, 0 failed") ||
		!strings.Contains(r.err, "already done 1") {
		t.Errorf("colour progress: %q", r.err)
	}
	r = h.run("create", "-f", in).expect(t, 5)
	if strings.Contains(r.err, "\r") || strings.Count(r.err, "\n") != 2 {
		t.Errorf("progress off a terminal: %q", r.err)
	}
}

// The summary's rate counts rows the server settled: a run that reached
// no server shows none, however many rows it tried.
func TestBulkRateCountsRowsSent(t *testing.T) {
	dead := httptest.NewServer(http.NotFoundHandler())
	dead.Close()
	var rows strings.Builder
	rows.WriteString("name,email,password\n")
	for i := range 20 {
		fmt.Fprintf(&rows, "T%d,t%d@example.com,S3cret-pass\n", i, i)
	}
	in := writeFile(t, "c.csv", rows.String())
	h := newHarness(t, dead.URL, stubKey)
	r := h.run("create", "-f", in).expect(t, 1)
	if !strings.Contains(r.err, "Created 0,") || strings.Contains(r.err, "rows/s") {
		t.Errorf("a run that sent nothing: %s", r)
	}
	s := newImportServer(t)
	h = newHarness(t, s.url, s.key)
	r = h.run("create", "-f", writeFile(t, "c.csv", rows.String())).expect(t, 0)
	if !strings.Contains(r.err, "Created 20,") || !strings.Contains(r.err, "rows/s)") {
		t.Errorf("a run that sent every row: %s", r)
	}
}

// Ctrl-C stops an import: the rows under way finish, none starts, the
// summary is printed and the exit status is 130.
func TestBulkInterruptedExits130(t *testing.T) {
	s := newImportServer(t)
	ctx, interrupt := context.WithCancel(context.Background())
	defer interrupt()
	var once sync.Once
	s.misbehave = func(w http.ResponseWriter, r *http.Request, body []byte, next http.Handler) bool {
		if r.Method == http.MethodPost {
			once.Do(interrupt) // Ctrl-C while the first create is under way
		}
		return false
	}
	var rows strings.Builder
	rows.WriteString("name,email,password\n")
	for i := range 50 {
		fmt.Fprintf(&rows, "T%d,t%d@example.com,S3cret-pass\n", i, i)
	}
	h := newHarness(t, s.url, s.key)
	r := h.runWith(runOpts{ctx: ctx}, "create", "-f", writeFile(t, "c.csv", rows.String()), "--parallel", "1").expect(t, 130)
	if !strings.Contains(r.err, "not attempted") || !strings.Contains(r.err, "interrupted") {
		t.Errorf("%s", r)
	}
	if n := len(s.trainees(t)); n == 0 || n == 50 {
		t.Errorf("%d trainees created", n)
	}
}
