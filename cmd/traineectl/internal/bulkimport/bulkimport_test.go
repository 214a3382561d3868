package bulkimport

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/client"
)

var today = api.Date{Year: 2026, Month: 11, Day: 21}

func summary(rows []Row) string {
	var b strings.Builder
	for _, r := range rows {
		fmt.Fprintf(&b, "%d %s", r.Num, r.Email)
		for _, e := range r.Errors {
			fmt.Fprintf(&b, " [%d %s]", e.ErrorCode, e.Field)
		}
		b.WriteString("\n")
	}
	return b.String()
}

func TestReadCSV(t *testing.T) {
	in := "\ufeff NAME ,E-Mail\n"
	if _, err := Read(strings.NewReader(in), ReadOptions{Format: CSV, Today: today}); err == nil || !strings.Contains(err.Error(), `unknown column(s) "E-Mail"`) {
		t.Errorf("unknown column: %v", err)
	}
	if _, err := Read(strings.NewReader("name,email,phone,phoneNumber,password\n"), ReadOptions{Format: CSV}); err == nil ||
		!strings.Contains(err.Error(), "both give phoneNumber") {
		t.Errorf("duplicate column: %v", err)
	}
	if _, err := Read(strings.NewReader(""), ReadOptions{Format: CSV}); err == nil {
		t.Error("empty input accepted")
	}
	in = "\ufeff Name ,EMAIL,Password,DOB,Expires,Trainer,WeightUnit\n" +
		"Ada, Ada@Example.COM ,S3cret-pass,1990-03-02,31-12-2026,7,lb\n" + // 2: a unit in any case, as --weight-unit takes it
		"\n" + // not a row (encoding/csv skips it; row numbers follow records)
		",,,,,,\n" + // 3: blank: skipped
		"Bob,bob@example.com,S3cret-pass,31-02-1990,,seven,stone\n" + // 4
		"Cy,cy@example.com,S3cret-pass\n" + // 5: short
		"Dee,ADA@example.com,S3cret-pass,,,,\n" // 6: repeats 2
	rows, err := Read(strings.NewReader(in), ReadOptions{Format: CSV, Today: today})
	if err != nil {
		t.Fatal(err)
	}
	want := "2 ada@example.com\n" +
		"4 bob@example.com [1005 dateOfBirth] [1000 trainerId] [1004 weightUnit]\n" +
		"5  [1000 ]\n" +
		"6 ada@example.com [1008 email]\n"
	if got := summary(rows); got != want {
		t.Errorf("rows:\n%s\nwant\n%s", got, want)
	}
	if rows[0].Req.WeightUnit != "LB" {
		t.Errorf("weightUnit lb read as %q", rows[0].Req.WeightUnit)
	}
	ada := rows[0].Req
	if ada.Name != "Ada" || ada.DateOfBirth.String() != "02-03-1990" || ada.ExpirationDate.String() != "31-12-2026" ||
		*ada.TrainerID != 7 || ada.WeightUnit != "LB" || rows[0].RequestID != DeriveRequestID("ada@example.com") {
		t.Errorf("ada: %+v", rows[0])
	}

	// Without a password column only --generate-passwords will do.
	if _, err := Read(strings.NewReader("name,email\nAda,ada@example.com\n"), ReadOptions{Format: CSV, Today: today}); err == nil {
		t.Error("no password column accepted")
	}
	rows, err = Read(strings.NewReader("name,email,password\nAda,ada@example.com,\nBob,bob@example.com,own-password\nCy,cy@example.com,short\n"),
		ReadOptions{Format: CSV, Today: today, GeneratePasswords: true})
	if err != nil {
		t.Fatal(err)
	}
	if !rows[0].Valid() || !rows[0].GeneratePassword || rows[0].Req.Password != "" ||
		rows[1].GeneratePassword || rows[1].Req.Password != "own-password" || rows[2].Valid() {
		t.Errorf("generated passwords: %+v", rows)
	}
}

func TestReadJSONLines(t *testing.T) {
	in := `{"name":"Ada","email":"ada@example.com","password":"S3cret-pass","requestId":"r1"}

{"name":"Bob","email":"bob@example.com","password":"S3cret-pass"} {}
[1]
{"name":"Cy","email":"cy@example.com","password":"S3cret-pass","requestId":7}
{"name":"Dee","email":"dee@example.com","password":"S3cret-pass","requestId":"bad id"}
{"name":"Eve","email":"eve@example.com","password":"S3cret-pass","requestId":"r1"}
{"name":"Fay","email":"fay@example.com","password":null,"phoneNumber":"+1 555 123 4567"}
{"name":"Gus","email":"gus@example.com","password":"S3cret-pass","phoneNumber":"+15551234567"}`
	rows, err := Read(strings.NewReader(in), ReadOptions{Format: JSONL, Today: today})
	if err != nil {
		t.Fatal(err)
	}
	want := "1 ada@example.com\n" +
		"3  [1000 ]\n" +
		"4  [1000 ]\n" +
		"5  [0 requestId]\n" +
		"6 dee@example.com [0 requestId]\n" +
		"7 eve@example.com [0 requestId]\n" +
		"8 fay@example.com [1001 password]\n" +
		"9 gus@example.com\n"
	if got := summary(rows); got != want {
		t.Errorf("rows:\n%s\nwant\n%s", got, want)
	}
	if rows[0].RequestID != "r1" || *rows[7].Req.PhoneNumber != "+15551234567" {
		t.Errorf("rows: %+v", rows)
	}
	// Two rows with one phone number: the second is refused (1009).
	rows, _ = Read(strings.NewReader(`{"name":"A","email":"a@example.com","password":"S3cret-pass","phoneNumber":"+15551234567"}
{"name":"B","email":"b@example.com","password":"S3cret-pass","phoneNumber":"+1 (555) 123-4567"}`), ReadOptions{Format: JSONL, Today: today})
	if got := summary(rows); got != "1 a@example.com\n2 b@example.com [1009 phoneNumber]\n" {
		t.Errorf("phones: %s", got)
	}
}

func TestJournal(t *testing.T) {
	path := filepath.Join(t.TempDir(), "j")
	j, err := OpenJournal(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := OpenJournal(path); err == nil {
		t.Error("a second import could open the journal in use")
	}
	must(t, j.Run("http://x", 7, "in.csv"))
	var wg sync.WaitGroup
	for i := range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rid := fmt.Sprintf("r%d", i)
			must(t, j.Sent(rid, i+2, rid+"@example.com"))
			if i%2 == 0 {
				must(t, j.Created(rid, i+2, int64(100+i), "response"))
			} else if i%5 == 0 {
				must(t, j.Failed(rid, i+2, 400, 1008, "taken", false))
			}
		}()
	}
	wg.Wait()
	must(t, j.Close())

	// A torn last line (a machine crash mid-write) is ignored.
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	must(t, err)
	_, err = f.WriteString(`{"kind":"created","requestId":"r1","traineeId":9`)
	must(t, err)
	must(t, f.Close())
	ro, err := ReadJournal(path)
	must(t, err)
	check := func(j *Journal) {
		t.Helper()
		es := j.Entries()
		if len(es) != 50 || j.BaseURL() != "http://x" {
			t.Fatalf("%d entries, base %q", len(es), j.BaseURL())
		}
		for i := range 50 {
			e := es[fmt.Sprintf("r%d", i)]
			switch {
			case i%2 == 0:
				if e.State != StateCreated || e.TraineeID != int64(100+i) || e.Uncertain {
					t.Errorf("r%d: %+v", i, e)
				}
			case i%5 == 0:
				if e.State != StateFailed || e.ErrorCode != 1008 || e.Uncertain {
					t.Errorf("r%d: %+v", i, e)
				}
			default:
				if e.State != StateSent || !e.Uncertain || e.Email != fmt.Sprintf("r%d@example.com", i) || e.Row != i+2 {
					t.Errorf("r%d: %+v", i, e)
				}
			}
		}
	}
	check(ro)
	j, err = OpenJournal(path) // cuts the torn line off
	must(t, err)
	check(j)
	must(t, j.Sent("r1", 3, "r1@example.com"))
	must(t, j.Close())
	b, err := os.ReadFile(path)
	must(t, err)
	if strings.Contains(string(b), `"traineeId":9`) || !strings.HasSuffix(string(b), "\n") {
		t.Errorf("torn line kept: %s", b[len(b)-120:])
	}
	// A damaged line in the middle is an error, not silently skipped.
	must(t, os.WriteFile(path, append([]byte("garbage\n"), b...), 0o600))
	if _, err := OpenJournal(path); err == nil || !strings.Contains(err.Error(), "damaged at line 1") {
		t.Errorf("damaged journal: %v", err)
	}
}

// scripted is an API whose answers the test sets.
type scripted struct {
	mu      sync.Mutex
	find    []*api.Trainee // successive answers of FindByEmail
	create  error
	creates int
}

func (s *scripted) Create(ctx context.Context, rid string, req api.CreateRequest) (*api.Trainee, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.creates++
	if s.create != nil {
		return nil, s.create
	}
	return &api.Trainee{ID: 77, Email: req.Email}, nil
}

func (s *scripted) FindByEmail(ctx context.Context, email string) (*api.Trainee, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.find[0]
	s.find = s.find[1:]
	return t, nil
}

// A row left "sent" by an earlier run, not found by the lookup, then
// refused with 1008 (the earlier create committed late): a second lookup
// settles it as already done.
func TestRunSettlesLateCommit(t *testing.T) {
	j, err := OpenJournal(filepath.Join(t.TempDir(), "j"))
	must(t, err)
	defer j.Close()
	rows, err := Read(strings.NewReader("name,email,password\nAda,ada@example.com,S3cret-pass\n"), ReadOptions{Format: CSV, Today: today})
	must(t, err)
	must(t, j.Sent(rows[0].RequestID, 2, "ada@example.com"))
	a := &scripted{
		find:   []*api.Trainee{nil, {ID: 41, Email: "ada@example.com"}},
		create: &client.RejectedError{CallInfo: client.CallInfo{Status: 400, Attempts: 1}, ErrorBody: api.ErrorBody{ErrorCode: api.CodeEmailTaken, Field: "email"}},
	}
	sum, recs, err := Run(context.Background(), rows, Options{API: a, Journal: j})
	must(t, err)
	if sum.AlreadyDone != 1 || recs[0].Status != StatusAlreadyDone || *recs[0].TraineeID != 41 || a.creates != 1 {
		t.Errorf("summary %+v, records %+v", sum, recs)
	}
	if e, _ := j.Entry(rows[0].RequestID); e.State != StateCreated || e.TraineeID != 41 {
		t.Errorf("journal: %+v", e)
	}

	// The same 1008 for a row never sent before is a plain failure: the
	// e-mail belongs to someone else.
	rows, err = Read(strings.NewReader("name,email,password\nBob,bob@example.com,S3cret-pass\n"), ReadOptions{Format: CSV, Today: today})
	must(t, err)
	a = &scripted{create: a.create}
	sum, recs, err = Run(context.Background(), rows, Options{API: a, Journal: j})
	must(t, err)
	if sum.Failed != 1 || *recs[0].ErrorCode != api.CodeEmailTaken {
		t.Errorf("summary %+v, records %+v", sum, recs)
	}
	// A refused key stops the run.
	rows, err = Read(strings.NewReader("name,email,password\nCy,cy@example.com,S3cret-pass\nDee,dee@example.com,S3cret-pass\n"), ReadOptions{Format: CSV, Today: today})
	must(t, err)
	a = &scripted{create: &client.AuthRefusedError{CallInfo: client.CallInfo{Status: 401}}}
	sum, _, err = Run(context.Background(), rows, Options{API: a, Journal: j, Parallel: 1})
	var ae *client.AuthRefusedError
	if !errors.As(err, &ae) || a.creates != 1 || sum.NotAttempted != 1 {
		t.Errorf("401: %v, %d creates, %+v", err, a.creates, sum)
	}
}

// Look-alike e-mail addresses, names and phone numbers (an invisible
// character: Unicode Cf, Zl, Zp) are refused locally with the server's
// codes (1002, 1016, 1006), before anything is sent, in CSV and JSONL, on
// create; a joiner inside a Persian word is part of the name. (A cell is
// trimmed of Unicode spaces first, U+2028 and U+2029 included, as of a
// trailing newline: what is sent holds none.)
func TestReadInvisibleCharacters(t *testing.T) {
	in := "name,email,password,phone\n" +
		"Twin,twin@alpha.example,S3cret-pass,\n" +
		"Twin,tw\u200bin@alpha.example,S3cret-pass,\n" +
		"Twin,twin\ufeff@alpha.example,S3cret-pass,\n" +
		"Tw\u200din,twin2@alpha.example,S3cret-pass,\n" +
		"Twin,twin3@alpha.example,S3cret-pass,+4477009\u202900123\n" +
		"می\u200cخواهم,twin4@alpha.example,S3cret-pass,\n"
	rows, err := Read(strings.NewReader(in), ReadOptions{Format: CSV, Today: today})
	if err != nil {
		t.Fatal(err)
	}
	want := "2 twin@alpha.example\n" +
		"3 tw\u200bin@alpha.example [1002 email]\n" +
		"4 twin\ufeff@alpha.example [1002 email]\n" +
		"5 twin2@alpha.example [1016 name]\n" +
		"6 twin3@alpha.example [1006 phoneNumber]\n" +
		"7 twin4@alpha.example\n"
	if got := summary(rows); got != want {
		t.Errorf("rows:\n%s\nwant\n%s", got, want)
	}
	rows, err = Read(strings.NewReader(`{"name":"Twin","email":"twin\u2060@alpha.example","password":"S3cret-pass"}`), ReadOptions{Format: JSONL, Today: today})
	if err != nil {
		t.Fatal(err)
	}
	if got := summary(rows); got != "1 twin\u2060@alpha.example [1002 email]\n" {
		t.Errorf("jsonl: %s", got)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// A control character in any text cell is refused locally with the
// server's 1016, before anything is sent.
func TestReadControlCharacters(t *testing.T) {
	in := "name,email,password,phone\n" +
		"Ada\x00Park,ada@example.com,S3cret-pass,\n" +
		"Bob,bob@example.com,S3cret\x1b-pass,\n" +
		"Cy,cy@example.com,S3cret-pass,+1555\x071234567\n" +
		"Dee\tTab,dee@example.com,S3cret-pass,\n"
	rows, err := Read(strings.NewReader(in), ReadOptions{Format: CSV, Today: today})
	if err != nil {
		t.Fatal(err)
	}
	want := "2 ada@example.com [1016 name]\n" +
		"3 bob@example.com [1016 password]\n" +
		"4 cy@example.com [1016 phoneNumber]\n" +
		"5 dee@example.com\n"
	if got := summary(rows); got != want {
		t.Errorf("rows:\n%s\nwant\n%s", got, want)
	}
	rows, err = Read(strings.NewReader(`{"name":"Eve","email":"eve\u0000@example.com","password":"S3cret-pass"}`), ReadOptions{Format: JSONL, Today: today})
	if err != nil {
		t.Fatal(err)
	}
	if got := summary(rows); got != "1 eve\x00@example.com [1016 email]\n" {
		t.Errorf("jsonl: %s", got)
	}
}

// A cell reads like the flag of its field (api.PatchField.ParseText): a
// unit in any case, a date in every form the flags take ("today"
// included), a trainer by whole name as --trainer; a bad date's problem
// quotes it. A row's every problem is listed at once, in the table's
// order: a repeated e-mail beside a bad phone number.
func TestCellsReadLikeFlags(t *testing.T) {
	trainers := map[string]int64{"maya brooks": 7}
	o := ReadOptions{Format: CSV, Today: today, Trainer: func(name string) (int64, error) {
		if id, ok := trainers[strings.ToLower(name)]; ok {
			return id, nil
		}
		return 0, fmt.Errorf("no trainer is named %q", name)
	}}
	in := "name,email,password,phone,dob,expires,trainer,weightUnit\n" +
		"Ada,ada@example.com,S3cret-pass,+447700900123,02-03-1990,today,Maya Brooks,kg\n" + // 2
		"Bob,bob@example.com,S3cret-pass,,1990-13-40,2026-12-31,7,Lb\n" + // 3
		"Cy,ADA@example.com,S3cret-pass,12345,,,Nobody,kg\n" // 4: repeats 2, a bad phone, no such trainer
	rows, err := Read(strings.NewReader(in), o)
	if err != nil {
		t.Fatal(err)
	}
	ada := rows[0].Req
	if !rows[0].Valid() || ada.WeightUnit != "KG" || ada.TrainerID == nil || *ada.TrainerID != 7 || ada.ExpirationDate == nil || *ada.ExpirationDate != today {
		t.Errorf("row 2: %+v %+v", rows[0].Errors, ada)
	}
	if len(rows[1].Errors) != 1 || rows[1].Errors[0].ErrorCode != api.CodeInvalidDate || !strings.Contains(rows[1].Errors[0].Message, `"1990-13-40"`) {
		t.Errorf("row 3: %+v", rows[1].Errors)
	}
	var got []string
	for _, e := range rows[2].Errors {
		got = append(got, fmt.Sprintf("%d %s", e.ErrorCode, e.Field))
	}
	if want := "1008 email,1006 phoneNumber,1010 trainerId"; strings.Join(got, ",") != want {
		t.Errorf("row 4's problems %q, want %q", strings.Join(got, ","), want)
	}
}

// A national number too short for its region is refused, not kept with
// its national prefix after the country code (07700 9001 is no UK number:
// not +44077009001).
func TestNationalPhoneTooShort(t *testing.T) {
	o := ReadOptions{Format: CSV, Today: today, PhoneRegion: func() (string, error) { return "GB", nil }}
	rows, err := Read(strings.NewReader("name,email,password,phone\nAda,ada@example.com,S3cret-pass,07700 9001\n"), o)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows[0].Errors) != 1 || rows[0].Errors[0].ErrorCode != api.CodeInvalidPhone {
		t.Errorf("07700 9001: %+v %+v", rows[0].Errors, rows[0].Req.PhoneNumber)
	}
}
