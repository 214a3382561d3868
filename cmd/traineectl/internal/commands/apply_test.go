package commands_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/cmd/traineectl/internal/bulkimport"
	"github.com/traineed/traineed/store"
	"github.com/traineed/traineed/store/storetest"
)

// seedTrainee creates a trainee of the server's company directly in the
// store: phone and dob may be "", deleted soft-deletes it.
func (s *importServer) seedTrainee(t *testing.T, name, email, phone, dob string, deleted bool) *api.Trainee {
	t.Helper()
	nt := storetest.NewTrainee(name, email)
	nt.TrainerID = &s.trainerID
	if phone != "" {
		nt.PhoneNumber = &phone
	}
	if dob != "" {
		d, err := api.ParseDate(dob)
		must(t, err)
		nt.DateOfBirth = &d
	}
	tr := storetest.MustCreate(t, s.store, s.companyID, nt)
	if deleted {
		var err error
		tr, err = s.store.UpdateTrainee(context.Background(), s.companyID, tr.ID, api.TraineePatch{Enabled: api.Val(false)})
		must(t, err)
	}
	return tr
}

// writes are the requests that change something (POST, PUT, DELETE).
func (s *importServer) writes() []seenReq {
	var w []seenReq
	for _, r := range s.requests() {
		if r.method != http.MethodGet && r.path != api.PathErasedCheck { // the check is a read
			w = append(w, r)
		}
	}
	return w
}

// snapshot is the company's trainees as text, to compare states.
func (s *importServer) snapshot(t *testing.T) string {
	t.Helper()
	var lines []string
	for _, tr := range s.trainees(t) {
		lines = append(lines, fmt.Sprintf("%d %s %s %s %v %v %v %v %s", tr.ID, tr.Email, tr.Name, strOf(tr.PhoneNumber),
			dateOf(tr.DateOfBirth), dateOf(tr.ExpirationDate), tr.Enabled, tr.ForcePasswordChange, tr.WeightUnit))
	}
	slices.Sort(lines)
	return strings.Join(lines, "\n")
}

func strOf(p *string) string {
	if p == nil {
		return "-"
	}
	return *p
}

func dateOf(d *api.Date) string {
	if d == nil {
		return "-"
	}
	return d.String()
}

// applyFixture is a company and an input that exercise every action: ada
// unchanged, bob updated (name, phone), cy deleted and restored, eve's
// date of birth cleared, new created, dee absent (pruned with --prune),
// and two refused rows.
type applyFixture struct {
	s                      *importServer
	h                      *harness
	in                     string
	ada, bob, cy, dee, eve *api.Trainee
}

const applyCSV = "name,email,phone,dob,password\n" +
	"Ada Park,ada@example.com,+44 7700 900001,,\n" + // 2: unchanged
	"Bobby Stone,BOB@example.com,+44 7700 900002,,\n" + // 3: update
	"Cy Young,cy@example.com,,,\n" + // 4: restore
	"Eve Adams,eve@example.com,,,\n" + // 5: dob cleared
	"New Person,new@example.com,,1991-05-06,S3cret-pass\n" + // 6: create
	"Bad,not-an-email,,,S3cret-pass\n" + // 7: refused (invalid)
	"No Password,nopw@example.com,,,\n" // 8: refused (a create needs a password)

func newApplyFixture(t *testing.T, st *store.Store) *applyFixture {
	s := newImportServerOn(t, st)
	fx := &applyFixture{s: s, h: newHarness(t, s.url, s.key)}
	fx.ada = s.seedTrainee(t, "Ada Park", "ada@example.com", "+447700900001", "", false)
	fx.bob = s.seedTrainee(t, "Bob Stone", "bob@example.com", "", "", false)
	fx.cy = s.seedTrainee(t, "Cy Young", "cy@example.com", "", "", true)
	fx.dee = s.seedTrainee(t, "Dee Absent", "dee@example.com", "", "", false)
	fx.eve = s.seedTrainee(t, "Eve Adams", "eve@example.com", "", "02-03-1990", false)
	fx.in = writeFile(t, "clients.csv", applyCSV)
	return fx
}

func TestApply(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		fx := newApplyFixture(t, st)
		s, h := fx.s, fx.h
		before := s.snapshot(t)
		s.requests()

		// The dry run prints the plan and changes nothing.
		r := h.run("apply", "-f", fx.in, "--dry-run").expect(t, 0)
		want := []string{
			"+ row 6: new@example.com (New Person)",
			fmt.Sprintf("~ row 3: bob@example.com (trainee %d)", fx.bob.ID),
			`    name: "Bob Stone" → "Bobby Stone"`,
			`    phoneNumber: null → "+447700900002"`,
			fmt.Sprintf("~ row 4: cy@example.com (trainee %d, restored)", fx.cy.ID),
			"    enabled: false → true",
			fmt.Sprintf("~ row 5: eve@example.com (trainee %d)", fx.eve.ID),
			`    dateOfBirth: "02-03-1990" → null`,
			"! row 7: 1002 email:",
			"! row 8: 1001 password: a new trainee needs a password",
			"= 1 unchanged",
			"Plan for 7 rows: 1 to create, 2 to update, 1 to restore, 1 unchanged, 2 refused.",
		}
		for _, w := range want {
			if !strings.Contains(r.out, w) {
				t.Errorf("dry run lacks %q:\n%s", w, r.out)
			}
		}
		if strings.Contains(r.out, "dee@example.com") {
			t.Errorf("dry run without --prune deletes:\n%s", r.out)
		}
		if w := s.writes(); len(w) != 0 || s.snapshot(t) != before {
			t.Fatalf("the dry run changed something: %v", w)
		}
		if _, err := os.Stat(fx.in + ".journal"); err == nil {
			t.Error("the dry run wrote a journal")
		}

		// -o json: the plan as data.
		r = h.run("apply", "-f", fx.in, "--dry-run", "--prune", "-o", "json").expect(t, 0)
		plan := decode[bulkimport.Plan](t, r)
		if plan.Create != 1 || plan.Update != 2 || plan.Restore != 1 || plan.Delete != 1 || plan.Unchanged != 1 || plan.Refused != 2 ||
			plan.Steps[0].Action != bulkimport.ActionDelete || *plan.Steps[0].TraineeID != fx.dee.ID {
			t.Errorf("plan: %+v", plan)
		}

		// The apply: everything but the refused rows, which make exit 5.
		r = h.run("apply", "-f", fx.in).expect(t, 5)
		if !strings.Contains(r.err, "Created 1, updated 2, restored 1, deleted 0, unchanged 1, failed 2 (2 refused, not sent) of 7 rows") {
			t.Errorf("summary: %s", r)
		}
		ts := s.trainees(t)
		if b := ts["bob@example.com"]; b.Name != "Bobby Stone" || strOf(b.PhoneNumber) != "+447700900002" {
			t.Errorf("bob: %+v", b)
		}
		if c := ts["cy@example.com"]; !c.Enabled {
			t.Errorf("cy not restored: %+v", c)
		}
		if e := ts["eve@example.com"]; e.DateOfBirth != nil {
			t.Errorf("eve's dob not cleared: %+v", e)
		}
		if n := ts["new@example.com"]; n == nil || dateOf(n.DateOfBirth) != "06-05-1991" {
			t.Errorf("new: %+v", n)
		}
		if d := ts["dee@example.com"]; !d.Enabled || len(ts) != 6 {
			t.Errorf("without --prune: %v", ts)
		}
		var puts []string
		for _, w := range s.writes() {
			puts = append(puts, w.method)
			// Changes carry the ETag read just before and their own key.
			if w.method == http.MethodPut && (w.ifMatch == "" || !strings.HasPrefix(w.idempotencyKey, "apl-")) {
				t.Errorf("PUT %s: If-Match %q, Idempotency-Key %q", w.path, w.ifMatch, w.idempotencyKey)
			}
		}
		slices.Sort(puts)
		if strings.Join(puts, " ") != "POST PUT PUT PUT" {
			t.Errorf("writes: %v", puts)
		}

		// The same file again changes nothing.
		after := s.snapshot(t)
		r = h.run("apply", "-f", fx.in).expect(t, 5)
		if w := s.writes(); len(w) != 0 || s.snapshot(t) != after {
			t.Errorf("the second apply changed something: %v", w)
		}
		if !strings.Contains(r.err, "Created 0, updated 0, restored 0, deleted 0, unchanged 5, failed 2") {
			t.Errorf("second summary: %s", r)
		}

		// --prune needs a confirmation; not on a terminal, --yes.
		r = h.run("apply", "-f", fx.in, "--prune").expect(t, 2)
		if !strings.Contains(r.err, "--prune would delete 1 trainee absent") || len(s.writes()) != 0 {
			t.Errorf("prune without --yes: %s", r)
		}
		r = h.runWith(runOpts{tty: true, stdin: "n\n"}, "apply", "-f", fx.in, "--prune").expect(t, 2)
		if !strings.Contains(r.err, "dee@example.com") || len(s.writes()) != 0 {
			t.Errorf("prune refused on a terminal: %s", r)
		}
		r = h.run("apply", "-f", fx.in, "--prune", "--yes").expect(t, 5)
		if d := s.trainees(t)["dee@example.com"]; d.Enabled || !strings.Contains(r.err, "deleted 1") {
			t.Errorf("prune: %+v\n%s", d, r)
		}
		s.requests()
		r = h.run("apply", "-f", fx.in, "--prune", "--yes").expect(t, 5)
		if w := s.writes(); len(w) != 0 {
			t.Errorf("a second prune sent %v", w)
		}
	})
}

func TestApplyNoRestoreAndMatchPhone(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		s := newImportServerOn(t, st)
		h := newHarness(t, s.url, s.key)
		gone := s.seedTrainee(t, "Gone", "gone@example.com", "+447700900010", "", true)
		moved := s.seedTrainee(t, "Moved", "old@example.com", "+447700900011", "", false)

		in := writeFile(t, "x.csv", "name,email,phone\nGone,gone@example.com,+447700900010\n")
		r := h.run("apply", "-f", in, "--no-restore").expect(t, 5)
		if !strings.Contains(r.err, fmt.Sprintf("row 2: refused: trainee %d is deleted; not restored (--no-restore)", gone.ID)) {
			t.Errorf("--no-restore: %s", r)
		}
		if s.trainees(t)["gone@example.com"].Enabled {
			t.Error("restored despite --no-restore")
		}

		// By phone, the e-mail is a field like the others.
		in = writeFile(t, "y.jsonl", `{"name":"Moved","email":"new@example.com","phoneNumber":"+44 7700 900011"}`+"\n"+
			`{"name":"No phone","email":"x@example.com"}`+"\n")
		r = h.run("apply", "-f", in, "--match", "phone").expect(t, 5)
		if tr := s.trainees(t)["new@example.com"]; tr == nil || tr.ID != moved.ID {
			t.Errorf("match by phone: %s", r)
		}
		if !strings.Contains(r.err, "row 2: refused: phoneNumber: no phone number to match by (--match phone)") {
			t.Errorf("row without a phone: %s", r)
		}
		r = h.run("apply", "-f", in, "--match", "name").expect(t, 2)
	})
}

// TestApplyRoundTrip: what search writes (CSV, YAML, JSON) and what export
// writes (CSV, JSON Lines, YAML), deleted trainees included, is an input
// that apply finds already applied (export's columns are all inputs).
func TestApplyRoundTrip(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		fx := newApplyFixture(t, st)
		s, h := fx.s, fx.h
		exp := s.seedTrainee(t, "Exp Ires", "exp@example.com", "+447700900099", "31-01-1980", false)
		_, err := s.store.UpdateTrainee(context.Background(), s.companyID, exp.ID, api.TraineePatch{
			ExpirationDate: api.Val(api.Date{Year: 2027, Month: 1, Day: 1}), WeightUnit: api.Val("LB"), ForcePasswordChange: api.Val(false)})
		must(t, err)
		before := s.snapshot(t)
		sources := []struct {
			name string
			args []string
			ext  string
		}{
			{"search -o csv", []string{"search", "--status", "all", "-o", "csv"}, "csv"},
			{"search -o yaml", []string{"search", "--status", "all", "-o", "yaml"}, "yaml"},
			{"search -o json", []string{"search", "--status", "all", "-o", "json"}, "json"},
			{"export", []string{"export", "--status", "all"}, "csv"},
			{"export --format jsonl", []string{"export", "--status", "all", "--format", "jsonl"}, "jsonl"},
			{"export --format yaml", []string{"export", "--status", "all", "--format", "yaml"}, "yaml"},
		}
		for _, src := range sources {
			r := h.run(src.args...).expect(t, 0)
			in := writeFile(t, "export."+src.ext, r.out)
			s.requests()
			r = h.run("apply", "-f", in).expect(t, 0)
			if w := s.writes(); len(w) != 0 || s.snapshot(t) != before {
				t.Errorf("%s: → apply changed something: %v\n%s", src.name, w, r)
			}
			if !strings.Contains(r.err, "unchanged 6, failed 0") {
				t.Errorf("%s: %s", src.name, r)
			}
			if search := src.args[0] == "search"; search != strings.Contains(r.err, "not imported: \"id\"") {
				t.Errorf("%s: the note of the columns not imported: %s", src.name, r)
			}
		}
	})
}

// TestApplyRefusesAConcurrentChange: a trainee changed by someone else
// between the plan's read and the change is not overwritten: the row
// fails (1026) and the next run plans from the new state.
func TestApplyRefusesAConcurrentChange(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		s := newImportServerOn(t, st)
		h := newHarness(t, s.url, s.key)
		bob := s.seedTrainee(t, "Bob Stone", "bob@example.com", "", "", false)
		in := writeFile(t, "x.csv", "name,email\nBobby Stone,bob@example.com\n")
		path := fmt.Sprintf("/public-api/trainees/%d", bob.ID)
		s.misbehave = func(w http.ResponseWriter, r *http.Request, _ []byte, next http.Handler) bool {
			if r.Method == http.MethodGet && r.URL.Path == path { // the read before the change
				_, err := st.UpdateTrainee(context.Background(), s.companyID, bob.ID, api.TraineePatch{Name: api.Val("Robert Stone")})
				must(t, err)
			}
			return false
		}
		r := h.run("apply", "-f", in).expect(t, 5)
		if !strings.Contains(r.err, fmt.Sprintf("1026 trainee %d changed since it was read (name)", bob.ID)) {
			t.Errorf("concurrent change: %s", r)
		}
		if n := s.trainees(t)["bob@example.com"].Name; n != "Robert Stone" {
			t.Errorf("the other change was overwritten: %q", n)
		}
		s.misbehave = nil
		h.run("apply", "-f", in).expect(t, 0)
		if n := s.trainees(t)["bob@example.com"].Name; n != "Bobby Stone" {
			t.Errorf("the next run: %q", n)
		}
	})
}
