package tui

import (
	"strings"
	"testing"

	"github.com/traineed/traineed/api"
)

// The form reads dates as traineectl's flags do (api.ParseDateInput) and
// shows them dd-MM-yyyy.
func TestFormAcceptsTheCLIsDates(t *testing.T) {
	s := newServer(t)
	d := newDriver(t, s.client(s.Key), Options{Today: func() api.Date { return testToday }})
	d.press("n")
	fill(d, "Iso Date")
	fill(d, "iso.date@example.com")
	fill(d, "Sup3r-secret")
	d.press("tab") // phone
	fill(d, "1990-02-03")
	if got := d.m.form.Field(fDateOfBirth).Input.Value(); got != "03-02-1990" {
		t.Errorf("date of birth shows %q, want 03-02-1990", got)
	}
	fill(d, "today")
	if got := d.m.form.Field(fExpirationDate).Input.Value(); got != testToday.String() {
		t.Errorf("expires shows %q", got)
	}
	s.rec.take()
	d.press("ctrl+s")
	var body string
	for _, r := range s.rec.take() {
		if r.Method == "POST" {
			body = r.Body
		}
	}
	if !strings.Contains(body, `"dateOfBirth":"03-02-1990"`) || !strings.Contains(body, `"expirationDate":"`+testToday.String()+`"`) {
		t.Errorf("sent %s\n%s", body, d.screen())
	}
	d = newDriver(t, s.client(s.Key), Options{Today: func() api.Date { return testToday }})
	d.press("n", "tab", "tab", "tab", "tab")
	d.typeText("31/12/1990")
	if l := lineAfter(t, d, "Date of birth"); !strings.Contains(l, "✗ 1005 invalid date") || !strings.Contains(l, "write it 31-12-1990") {
		t.Errorf("bad date line %q", l)
	}
}

// An invisible character in a name, an e-mail address or a phone number
// (api.PatchField.CheckText) is refused by the form with the API's code
// before anything is sent. A trainee stored with one before the rule can
// still be edited: the untouched field is neither checked nor sent.
func TestFormRefusesInvisibleCharacters(t *testing.T) {
	s := newServer(t)
	d := newDriver(t, s.client(s.Key), Options{})
	d.press("n")
	fill(d, "Tw\u200bin")
	fill(d, "twin\ufeff@alpha.example")
	fill(d, "Sup3r-secret")
	fill(d, "+44\u00ad7700900123")
	for _, c := range []struct{ label, field, shown, err string }{
		{"Name", "name", "✗ 1016 name must not contain", "1016 name must not contain format characters (U+200B)"},
		{"E-mail", fEmail, "✗ 1002 e-mail address must not", "1002 e-mail address must not contain format characters (U+FEFF)"},
		{"Phone", "phoneNumber", "✗ 1006 phone number must not", "1006 phone number must not contain format characters (U+00AD)"},
	} {
		if l := lineAfter(t, d, c.label); !strings.Contains(l, c.shown) {
			t.Errorf("%s: %q, want %q", c.label, l, c.shown)
		}
		if got := d.m.form.Field(c.field).Err; got != c.err {
			t.Errorf("%s: %q, want %q", c.field, got, c.err)
		}
	}
	s.rec.take()
	d.press("ctrl+s")
	if reqs := s.rec.take(); len(reqs) != 0 {
		t.Fatalf("an invalid form was sent: %+v", reqs)
	}

	tr := d.m.list.Selected()
	legacy := api.TraineePatch{Name: api.Val("Leg\u200bacy"), Email: api.Val("leg\u200bacy@alpha.example")}
	if _, err := s.st.UpdateTrainee(t.Context(), tr.CompanyID, tr.ID, legacy); err != nil {
		t.Fatal(err)
	}
	d = newDriver(t, s.client(s.Key), Options{})
	if got := d.m.list.Selected(); got.ID != tr.ID || got.Name != "Leg\u200bacy" {
		t.Fatalf("first trainee %+v", got)
	}
	d.press("e", "tab", "tab", "tab") // the phone
	fill(d, "+1 (202) 555-0199")
	s.rec.take()
	d.press("ctrl+s")
	if puts := sent(s.rec.take(), "PUT"); len(puts) != 1 || puts[0].Body != `{"phoneNumber":"+12025550199"}` {
		t.Fatalf("puts %+v\n%s", puts, d.screen())
	}
	got, err := s.direct().Trainee(t.Context(), tr.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Name != "Leg\u200bacy" || got.Email != "leg\u200bacy@alpha.example" || *got.PhoneNumber != "+12025550199" {
		t.Fatalf("stored %+v", got)
	}
}

// The form reads a phone number as traineectl's --phone does: without +,
// a national number of the company's country (by the key's time zone),
// sent in E.164; one that is no number of it is refused, quoted, before
// anything is sent.
func TestFormReadsNationalPhoneNumbers(t *testing.T) {
	s := newServer(t)
	key := &api.CurrentKey{ID: 1, Name: "demo", Scope: api.KeyScopeAdmin, CompanyName: "Demo Fitness", TimeZone: "Europe/London"}
	d := newDriver(t, s.client(s.Key), Options{Today: func() api.Date { return testToday }, Key: key})
	d.press("n")
	fill(d, "Nat Phone")
	fill(d, "nat.phone@example.com")
	fill(d, "Sup3r-secret")
	d.typeText("0770")
	if l := lineAfter(t, d, "Phone"); !strings.Contains(l, `1006 "0770", read as a national number of GB`) {
		t.Errorf("bad phone line %q", l)
	}
	for range 4 {
		d.press("backspace")
	}
	d.typeText("07700 900123")
	s.rec.take()
	d.press("ctrl+s")
	var body string
	for _, r := range s.rec.take() {
		if r.Method == "POST" {
			body = r.Body
		}
	}
	if !strings.Contains(body, `"phoneNumber":"+447700900123"`) {
		t.Errorf("sent %s\n%s", body, d.screen())
	}
}
