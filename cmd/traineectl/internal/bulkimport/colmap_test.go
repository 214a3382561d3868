package bulkimport

import (
	"strings"
	"testing"

	"github.com/traineed/traineed/api"
)

func TestGoDateLayout(t *testing.T) {
	for in, want := range map[string]string{
		"MM/DD/YYYY": "01/02/2006", "M/D/YY": "1/2/06", "DD.MM.YYYY": "02.01.2006",
		"yyyy-mm-dd": "2006-01-02", "2006-01-02": "2006-01-02",
	} {
		if got, err := goDateLayout(in); err != nil || got != want {
			t.Errorf("%s: %q %v, want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "MM/DD", "MM/DD/YYYY hh", "Q/MM/DD/YYYY"} {
		if _, err := goDateLayout(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestReadMapFile(t *testing.T) {
	m, err := ReadMap(strings.NewReader("\ufeff# comment\n\nClient Name=name\nA=B, C=email\nBirthday = dob : MM/DD/YYYY\nNotes=-\n"), "x.map")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range m.Entries() {
		got = append(got, e.Column+">"+e.Field+">"+e.Layout)
	}
	if want := "Client Name>name>|A=B, C>email>|Birthday>dateOfBirth>MM/DD/YYYY|Notes>>"; strings.Join(got, "|") != want {
		t.Errorf("entries %q, want %q", strings.Join(got, "|"), want)
	}
	if _, err := ReadMap(strings.NewReader("Name\n"), "x.map"); err == nil || !strings.Contains(err.Error(), "x.map line 1") {
		t.Errorf("bad line: %v", err)
	}
}

// TestReadYAML: a sequence or a stream of documents; YAML nulls clear for
// apply; numbers-looking phone numbers stay text; rows numbered by line.
func TestReadYAML(t *testing.T) {
	in := `- name: Ada
  email: ADA@example.com
  phoneNumber: null
  dateOfBirth: 1990-03-02
  trainerId: 7
  enabled: true
  id: 12
  authorities: [TRAINEE, USER]
- name: Bob
  email: bob@example.com
  phone: "+44 7700 900123"
---
name: Cy
email: cy@example.com
weightUnit: LB
`
	got, err := ReadInput(strings.NewReader(in), ReadOptions{Format: YAML, Today: today, Apply: true})
	if err != nil {
		t.Fatal(err)
	}
	if s := summary(got.Rows); s != "1 ada@example.com\n9 bob@example.com\n13 cy@example.com\n" {
		t.Errorf("rows:\n%s", s)
	}
	if strings.Join(got.Ignored, ",") != "id,authorities" {
		t.Errorf("ignored %v", got.Ignored)
	}
	ada := got.Rows[0].Patch
	if !ada.PhoneNumber.Null || ada.DateOfBirth.Value != (api.Date{Year: 1990, Month: 3, Day: 2}) || ada.TrainerID.Value != 7 ||
		!ada.Enabled.Value || ada.Password.Set || ada.WeightUnit.Set {
		t.Errorf("ada's patch: %+v", ada)
	}
	if p := got.Rows[1].Patch.PhoneNumber; p.Value != "+447700900123" {
		t.Errorf("bob's phone: %+v", p)
	}
	if _, err := ReadInput(strings.NewReader("- nom: x\n"), ReadOptions{Format: YAML, Today: today}); err == nil ||
		!strings.Contains(err.Error(), `YAML line 1: unknown field "nom"`) {
		t.Errorf("unknown field: %v", err)
	}
}

// With a map, an unmapped column named like a free-text field in another
// case ("Name", "Password") is not imported and is reported; one named
// exactly like it ("password") or like a field of a format ("Email",
// "Phone") fills it; without a map every field's column is taken in any
// case. The free-text column never fills or clears the field.
func TestMappedFileColumnsNamedLikeFields(t *testing.T) {
	m, err := ParseMap("Full Name=name")
	if err != nil {
		t.Fatal(err)
	}
	csv := "Full Name,Name,Email,Phone,Password,Notes\n" +
		"Ada Park,Ada the nickname,ada@example.com,+44 7700 900123,S3cret-pass,likes mornings\n"
	in, err := ReadInput(strings.NewReader(csv), ReadOptions{Format: CSV, Map: m, GeneratePasswords: true, Today: api.Date{Year: 2026, Month: 11, Day: 28}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range in.Collisions {
		got = append(got, c.Column+">"+c.Field)
	}
	if strings.Join(got, ",") != "Name>name,Password>password" {
		t.Errorf("collisions %q", got)
	}
	if !strings.Contains(in.Collisions[0].String(), `column "Name" is named like the field name but the map does not map it: not imported (map it, "Name=name"`) {
		t.Errorf("collision says %q", in.Collisions[0])
	}
	if want := "Notes"; strings.Join(in.Ignored, ",") != want {
		t.Errorf("ignored %q, want %q", in.Ignored, want)
	}
	r := in.Rows[0]
	if r.Req.Name != "Ada Park" || r.Req.Email != "ada@example.com" || r.Req.PhoneNumber == nil || *r.Req.PhoneNumber != "+447700900123" {
		t.Errorf("row %+v", r.Req)
	}
	if r.Req.Password == "S3cret-pass" {
		t.Errorf("the row took the unmapped Password column: %+v", r.Req)
	}

	exact := strings.Replace(csv, "Password,", "password,", 1)
	in, err = ReadInput(strings.NewReader(exact), ReadOptions{Format: CSV, Map: m, Today: api.Date{Year: 2026, Month: 11, Day: 28}})
	if err != nil || len(in.Rows[0].Errors) != 0 || in.Rows[0].Req.Password != "S3cret-pass" {
		t.Fatalf("an exact password column: %v %+v", err, in.Rows)
	}
	plain := "NAME,EMAIL,PASSWORD\nAda Park,ada@example.com,S3cret-pass\n"
	in, err = ReadInput(strings.NewReader(plain), ReadOptions{Format: CSV, Today: api.Date{Year: 2026, Month: 11, Day: 28}})
	if err != nil || len(in.Collisions) != 0 || len(in.Rows[0].Errors) != 0 || in.Rows[0].Req.Name != "Ada Park" {
		t.Fatalf("without a map: %v %+v", err, in)
	}
}
