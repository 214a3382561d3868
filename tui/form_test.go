package tui

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/client"
	"github.com/traineed/traineed/tui/internal/common"
)

// lineAfter returns the screen line below the one that starts (after the
// focus marker) with label: where the form puts a field's problem.
func lineAfter(t *testing.T, d *driver, label string) string {
	t.Helper()
	lines := strings.Split(d.screen(), "\n")
	for i, l := range lines {
		if strings.HasPrefix(strings.TrimLeft(l, " ▸"), label) && i+1 < len(lines) {
			return lines[i+1]
		}
	}
	t.Fatalf("no field %q:\n%s", label, d.screen())
	return ""
}

// fill types v into the focused field after clearing it, then moves on.
func fill(d *driver, v string) {
	d.press("ctrl+u") // delete to the start of the line
	d.send(kp("end"))
	d.settle()
	d.press("ctrl+u")
	d.typeText(v)
	d.press("tab")
}

func sent(reqs []request, method string) []request {
	var out []request
	for _, r := range reqs {
		if r.Method == method {
			out = append(out, r)
		}
	}
	return out
}

func TestCreateChecksEachFieldBeforeSending(t *testing.T) {
	s := newServer(t)
	d := newDriver(t, s.client(s.Key), Options{})
	d.press("n")
	d.expect(t, "New trainee", "Name", "E-mail", "Password", "Phone", "Date of birth", "Expires", "Trainer", "Weight unit")
	fill(d, "Grace Hopper")
	fill(d, "not-an-e-mail")
	fill(d, "short")
	fill(d, "12345")
	fill(d, "31-02-1990")
	for _, c := range []struct{ field, want string }{
		{"E-mail", "✗ 1002 e-mail address is not valid"}, {"Password", "✗ 1003 password must be 8 to 128 characters"},
		{"Phone", "✗ 1006"}, {"Date of birth", "✗ 1005"}, {"Name", "✓"},
	} {
		if l := lineAfter(t, d, c.field); !strings.Contains(l, c.want) {
			t.Errorf("%s: %q", c.field, l)
		}
	}
	// Untouched fields show nothing yet.
	if l := lineAfter(t, d, "Weight unit"); strings.TrimSpace(l) != "" {
		t.Errorf("weight unit: %q", l)
	}
	s.rec.take()
	d.press("ctrl+s")
	if reqs := s.rec.take(); len(reqs) != 0 {
		t.Fatalf("an invalid form was sent: %+v", reqs)
	}
	d.expect(t, "4 fields break the API's rules")
	if d.m.form.Fields[d.m.form.Focus].Name != fEmail {
		t.Errorf("focus on %s, want the first invalid field", d.m.form.Fields[d.m.form.Focus].Name)
	}

	// Fix them (the focus is on the e-mail).
	fill(d, "  Grace.Hopper@Example.com ")
	fill(d, "Sup3r-secret")
	fill(d, "+44 7700 900 999")
	fill(d, "09-12-1990")
	fill(d, "31-12-2027")
	d.press("tab") // keep the company's first trainer
	d.typeText("lb")
	d.press("ctrl+s")
	g := expectGraceSentAndStored(t, s)
	// The new trainee's screen is open.
	if d.m.screen != common.ScreenTrainee || d.m.trainee.T.ID != g.ID {
		t.Fatalf("after create:\n%s", d.screen())
	}
	d.expect(t, fmt.Sprintf("Created Grace Hopper (#%d)", g.ID))
}

// expectGraceSentAndStored checks the one POST of Grace Hopper's form
// (normalised as the server normalises) and what is stored, and returns
// the stored trainee.
func expectGraceSentAndStored(t *testing.T, s *testServer) *api.Trainee {
	t.Helper()
	posts := sent(s.rec.take(), "POST")
	if len(posts) != 1 {
		t.Fatalf("posts %+v", posts)
	}
	var body map[string]any
	if err := json.Unmarshal([]byte(posts[0].Body), &body); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"name": "Grace Hopper", "email": "grace.hopper@example.com", "password": "Sup3r-secret",
		"phoneNumber": "+447700900999", "dateOfBirth": "09-12-1990", "expirationDate": "31-12-2027", "weightUnit": "LB"}
	if fmt.Sprint(body) != fmt.Sprint(want) {
		t.Fatalf("sent %v\nwant %v", body, want)
	}
	got := searchAll(t, s.direct(), client.SearchParams{Query: "grace.hopper"})
	if len(got) != 1 {
		t.Fatalf("stored: %v", names(got))
	}
	g := got[0]
	if g.Name != "Grace Hopper" || *g.PhoneNumber != "+447700900999" || g.DateOfBirth.String() != "09-12-1990" ||
		g.ExpirationDate.String() != "31-12-2027" || g.WeightUnit != "LB" || !g.Enabled || g.TrainerID == nil {
		t.Fatalf("stored %+v", g)
	}
	return g
}

// A 400 from the server is shown by the field it names.
func TestCreateRejectedByTheServerShowsTheErrorByItsField(t *testing.T) {
	s := newServer(t)
	d := newDriver(t, s.client(s.Key), Options{})
	taken := d.m.list.Items[0]
	d.press("n")
	fill(d, "Ada Again")
	fill(d, taken.Email)
	fill(d, "Sup3r-secret")
	d.press("ctrl+s")
	if d.m.screen != common.ScreenForm {
		t.Fatalf("the form closed:\n%s", d.screen())
	}
	if l := lineAfter(t, d, "E-mail"); !strings.Contains(l, "✗ 1008 e-mail address is already in use (server)") {
		t.Fatalf("e-mail line %q\n%s", l, d.screen())
	}
	d.expect(t, "Rejected: 1008 email: e-mail address is already in use")
	if f := d.m.form.Fields[d.m.form.Focus]; f.Name != fEmail {
		t.Errorf("focus on %s", f.Name)
	}
	// Editing the field clears the server's word.
	d.typeText("x")
	if l := lineAfter(t, d, "E-mail"); strings.Contains(l, "1008") {
		t.Errorf("still %q", l)
	}
	// esc on a filled form asks first; y discards without sending.
	s.rec.take()
	d.press("esc")
	if d.m.screen != common.ScreenForm {
		t.Fatal("esc discarded a filled form without asking")
	}
	d.expect(t, "Discard your changes? y discards them, n keeps editing.", "y yes", "n/esc no")
	d.press("y")
	if d.m.screen != common.ScreenList || len(s.rec.take()) != 0 {
		t.Fatal("y did not just close the form")
	}
}

// selectWhere moves the list's cursor to the first loaded trainee for
// which ok holds and returns it (nil: none, the cursor stays).
func selectWhere(d *driver, ok func(*api.Trainee) bool) *api.Trainee {
	for i, it := range d.m.list.Items {
		if ok(it) {
			d.m.list.Cursor = i
			return it
		}
	}
	return nil
}

func TestEditSendsOnlyTheChangedFields(t *testing.T) {
	s := newServer(t)
	d := newDriver(t, s.client(s.Key), Options{})
	tr := selectWhere(d, func(it *api.Trainee) bool { return it.PhoneNumber != nil && it.ExpirationDate != nil })
	if tr == nil {
		t.Fatal("no demo trainee with a phone and an expiry")
	}
	d.press("e")
	d.expect(t, "Edit "+tr.Name, tr.Email, *tr.PhoneNumber, tr.ExpirationDate.String(), "unchanged")
	// Saving untouched sends nothing.
	s.rec.take()
	d.press("ctrl+s")
	if reqs := s.rec.take(); len(reqs) != 0 {
		t.Fatalf("sent %+v", reqs)
	}
	d.expect(t, "Nothing changed")
	if d.m.screen != common.ScreenList {
		t.Fatal("the form is still open")
	}

	d.press("e", "tab", "tab", "tab") // the phone
	fill(d, "+1 (202) 555-0199")
	d.press("tab")
	d.press("ctrl+u") // clear the expiry
	d.press("ctrl+s")
	puts := sent(s.rec.take(), "PUT")
	if len(puts) != 1 || puts[0].Body != `{"phoneNumber":"+12025550199","expirationDate":null}` {
		t.Fatalf("puts %+v", puts)
	}
	got, err := s.direct().Trainee(t.Context(), tr.ID)
	if err != nil {
		t.Fatal(err)
	}
	if *got.PhoneNumber != "+12025550199" || got.ExpirationDate != nil || got.Name != tr.Name || got.Email != tr.Email {
		t.Fatalf("stored %+v", got)
	}
	d.expect(t, "Saved "+tr.Name+": phoneNumber, expirationDate.")
	if it := d.m.list.Selected(); it.ID != tr.ID || *it.PhoneNumber != "+12025550199" {
		t.Fatalf("the list shows %+v", it)
	}
}

func TestEditFromTheTraineeScreen(t *testing.T) {
	s := newServer(t)
	d := newDriver(t, s.client(s.Key), Options{})
	tr := openFirst(t, d)
	d.press("e")
	fill(d, tr.Name+" Jr")
	d.press("ctrl+s")
	if d.m.screen != common.ScreenTrainee {
		t.Fatalf("not back on the trainee:\n%s", d.screen())
	}
	d.expect(t, tr.Name+" Jr")
	got, _ := s.direct().Trainee(t.Context(), tr.ID)
	if got.Name != tr.Name+" Jr" {
		t.Fatalf("stored name %q", got.Name)
	}
}

func TestDeleteAsksThenRestore(t *testing.T) {
	s := newServer(t)
	d := newDriver(t, s.client(s.Key), Options{})
	tr := d.m.list.Selected()
	total := d.m.list.Total
	s.rec.take()
	d.press("d")
	d.expect(t, fmt.Sprintf("Delete %s (#%d)?", tr.Name, tr.ID), "y delete", "n keep")
	d.press("n")
	if reqs := s.rec.take(); len(reqs) != 0 {
		t.Fatalf("sent %+v", reqs)
	}
	d.expect(t, "Not deleted.")
	d.press("d", "y")
	if reqs := s.rec.take(); len(reqs) != 1 || reqs[0].Method != "DELETE" || reqs[0].Path != fmt.Sprintf("%s/%d", api.PathTrainees, tr.ID) {
		t.Fatalf("sent %+v", reqs)
	}
	got, _ := s.direct().Trainee(t.Context(), tr.ID)
	if got.Enabled {
		t.Fatal("still enabled")
	}
	d.expect(t, fmt.Sprintf("Deleted %s (#%d): u restores.", tr.Name, tr.ID))
	if d.m.list.Total != total-1 || d.m.list.Items[0].ID == tr.ID {
		t.Fatalf("the live list still has %s", tr.Name)
	}
	// In the deleted tab, u restores it.
	d.press("4")
	selectWhere(d, func(it *api.Trainee) bool { return it.ID == tr.ID })
	if d.m.list.Selected().ID != tr.ID {
		t.Fatal("not in the deleted tab")
	}
	d.press("u")
	if reqs := s.rec.take(); len(reqs) != 2 || reqs[1].Method != "PUT" || reqs[1].Body != `{"enabled":true}` {
		t.Fatalf("sent %+v", reqs)
	}
	got, _ = s.direct().Trainee(t.Context(), tr.ID)
	if !got.Enabled {
		t.Fatal("not restored")
	}
	d.expect(t, fmt.Sprintf("Restored %s", tr.Name))
	if selectWhere(d, func(it *api.Trainee) bool { return it.ID == tr.ID }) != nil {
		t.Fatal("the deleted tab still lists it")
	}
	// u on a live trainee sends nothing.
	d.press("1", "u")
	d.expect(t, "is not deleted")
}

func TestDeleteFromTheTraineeScreen(t *testing.T) {
	s := newServer(t)
	d := newDriver(t, s.client(s.Key), Options{})
	tr := openFirst(t, d)
	d.press("d", "y")
	d.expect(t, "deleted", fmt.Sprintf("Deleted %s", tr.Name))
	if d.m.trainee.T.Enabled {
		t.Fatal("the screen still shows it enabled")
	}
	d.press("u")
	d.expect(t, "active", fmt.Sprintf("Restored %s", tr.Name))
}

func TestRefusedKeyIsSaidInTheStatusLine(t *testing.T) {
	s := newServer(t)
	d := newDriver(t, s.client("pk_"+strings.Repeat("x", 40)), Options{})
	d.expect(t, "The API key was refused (401)")
	if d.quit {
		t.Fatal("an error quit the program")
	}
}

// A connection failure says its cause first and the URL last, wrapped to
// two lines on a narrow screen, and the screen keeps its height.
func TestServerDownIsSaidInTheStatusLine(t *testing.T) {
	c := client.New("http://127.0.0.1:1", "pk_"+strings.Repeat("x", 40), client.WithRetryDelays())
	d := newDriver(t, c, Options{})
	d.send(tea.WindowSizeMsg{Width: 80, Height: 24})
	d.settle()
	lines := strings.Split(d.screen(), "\n")
	if len(lines) != 24 {
		t.Fatalf("%d lines:\n%s", len(lines), d.screen())
	}
	cause, url := lines[21], lines[22]
	if !strings.HasPrefix(cause, "✗ Cannot reach the server: connect: connection refused") {
		t.Errorf("the cause is not first: %q\n%s", cause, d.screen())
	}
	if !strings.Contains(url, "http://127.0.0.1:1/public-api/trainees/search") {
		t.Errorf("the URL is not on the second line: %q\n%s", url, d.screen())
	}
	d.send(tea.WindowSizeMsg{Width: 200, Height: 24})
	d.settle()
	if lines := strings.Split(d.screen(), "\n"); len(lines) != 24 || !strings.Contains(lines[22], "connection refused") || !strings.Contains(lines[22], "GET http://127.0.0.1:1/") {
		t.Errorf("on a wide screen, one line:\n%s", d.screen())
	}
}

// A transient status message belongs to the screen and trainee it was
// said about: moving to another trainee or screen clears it; an error
// stays while the screen does.
func TestStatusClearsWhenTheScreenOrTraineeChanges(t *testing.T) {
	s := newServer(t)
	d := newDriver(t, s.client(s.Key), Options{})
	first := d.m.list.Selected()
	d.press("d", "n")
	d.expect(t, "Not deleted.")
	d.press("j") // another trainee selected
	if d.m.list.Selected().ID == first.ID {
		t.Fatal("the cursor did not move")
	}
	d.expectNot(t, "Not deleted.")

	d.press("d", "n")
	d.expect(t, "Not deleted.")
	d.press("enter") // the trainee's screen
	d.expectNot(t, "Not deleted.")
	d.press("d", "n")
	d.expect(t, "Not deleted.")
	d.press("tab") // same trainee, next tab: navigation, the note goes
	d.expectNot(t, "Not deleted.")
	d.press("d", "n")
	d.expect(t, "Not deleted.")
	d.press("esc", "j", "enter", "tab") // another trainee's Weight tab
	d.expectNot(t, "Not deleted.")
	if d.m.Status != "" {
		t.Errorf("status %q", d.m.Status)
	}

	// An error stays while the screen does, even on another trainee...
	d.press("esc")
	d.m.SetError(errors.New("boom"))
	d.press("j")
	d.expect(t, "boom")
	// ...and goes with the screen.
	d.press("enter")
	d.expectNot(t, "boom")
}

// esc on a changed form asks before discarding; n keeps every input; an
// untouched form closes at once. The note left behind goes with the next
// navigation.
func TestEscAsksBeforeDiscarding(t *testing.T) {
	s := newServer(t)
	d := newDriver(t, s.client(s.Key), Options{})
	d.press("enter", "e")
	d.press("esc") // nothing changed: closes at once
	if d.m.screen != common.ScreenTrainee {
		t.Fatalf("an untouched form did not close:\n%s", d.screen())
	}
	d.expect(t, "Cancelled: nothing was sent.")
	d.press("tab")
	d.expectNot(t, "Cancelled")

	d.press("e")
	d.typeText(" Jr")
	d.press("esc")
	d.expect(t, "Discard your changes?")
	d.press("n")
	if d.m.screen != common.ScreenForm || !strings.HasSuffix(d.m.form.Fields[0].Input.Value(), " Jr") {
		t.Fatalf("n lost the input:\n%s", d.screen())
	}
	d.press("esc", "esc") // asked, then esc answers no
	if d.m.screen != common.ScreenForm {
		t.Fatalf("esc at the question discarded:\n%s", d.screen())
	}
	s.rec.take()
	d.press("esc", "y")
	if d.m.screen != common.ScreenTrainee || len(s.rec.take()) != 0 {
		t.Fatalf("y did not discard without sending:\n%s", d.screen())
	}
	d.expect(t, "Changes discarded: nothing was sent.")
	d.press("esc") // back to the list: the note stays behind
	d.expectNot(t, "discarded")
}

// A create with an erased person's e-mail is refused (the form sends
// Traineed-Refuse-Erased, as traineectl does) and says how to go on: the
// next save creates them anyway.
func TestCreateOfAnErasedPersonAsksTwice(t *testing.T) {
	s := newServer(t)
	d := newDriver(t, s.client(s.Key), Options{})
	gone := d.m.list.Items[0]
	erased, err := s.st.EraseTrainee(context.Background(), gone.CompanyID, gone.ID, gone.Email)
	if err != nil {
		t.Fatal(err)
	}
	d.press("n")
	fill(d, "Back Again")
	fill(d, gone.Email)
	fill(d, "Sup3r-secret")
	s.rec.take()
	d.press("ctrl+s")
	if d.m.screen != common.ScreenForm {
		t.Fatalf("the form closed:\n%s", d.screen())
	}
	d.expect(t, api.ErasedReason("email", erased.ErasedAt)+": not created. ctrl+s again creates them anyway.")
	if posts := sent(s.rec.take(), "POST"); len(posts) != 1 {
		t.Fatalf("sent %+v", posts)
	}
	d.press("ctrl+s")
	d.expect(t, "Created Back Again")
}
