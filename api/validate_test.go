package api

import (
	"encoding/json"
	"errors"
	"net/url"
	"strings"
	"testing"
	"time"
)

func TestParseDate(t *testing.T) {
	for _, s := range []string{"29-02-2024", "01-01-1900", "31-12-2026"} {
		if d, err := ParseDate(s); err != nil || d.String() != s {
			t.Errorf("%s: %v %v", s, d, err)
		}
	}
	for _, s := range []string{"29-02-2026", "31-02-2026", "2026-11-21", "1-2-2026", "01/02/2026", "", "00-01-2026"} {
		if _, err := ParseDate(s); err == nil {
			t.Errorf("%q accepted", s)
		}
	}
	d := Date{2024, 2, 29}
	if d.AddYears(1).String() != "01-03-2025" || d.AddDays(-29).String() != "31-01-2024" || DateFromInt(d.Int()) != d {
		t.Error("date arithmetic")
	}
}

// MarshalJSON writes what quoting String would, for every day of four
// centuries and for values out of any date's range.
func TestDateMarshalJSON(t *testing.T) {
	check := func(d Date) {
		t.Helper()
		got, err := d.MarshalJSON()
		want, _ := json.Marshal(d.String())
		if err != nil || string(got) != string(want) {
			t.Fatalf("%#v: %s %v, want %s", d, got, err, want)
		}
	}
	for d := (Date{1800, 1, 1}); d.Year < 2200; d = d.AddDays(1) {
		check(d)
	}
	for _, d := range []Date{{}, {9999, 12, 31}, {10000, 1, 1}, {-1, 1, 1}, {5, 1, 2}, {2026, 13, 40}, {2026, 100, 1}, {2026, 1, -3}} {
		check(d)
	}
}

func TestPhoneDigits(t *testing.T) {
	cases := map[string]string{"7700 900": "7700900", "+44 (7700)": "447700", "12": "", "ab123": "", "1-2-3": "123", "": ""}
	for q, want := range cases {
		if got := PhoneDigits(q); got != want {
			t.Errorf("PhoneDigits(%q) = %q, want %q", q, got, want)
		}
	}
}

func TestValidateCreateNormalises(t *testing.T) {
	phone := " +1 (555) 010-9999 "
	r := &CreateRequest{Name: " Ada ", Email: " ADA@Example.com ", Password: "12345678", PhoneNumber: &phone}
	if err := ValidateCreate(r, Date{2026, 11, 21}); err != nil {
		t.Fatal(err)
	}
	if r.Name != "Ada" || r.Email != "ada@example.com" || *r.PhoneNumber != "+15550109999" || r.WeightUnit != "KG" {
		t.Fatalf("%+v", r)
	}
	bad := &CreateRequest{Name: "", Email: "x", Password: "1"}
	err := ValidateCreate(bad, Date{2026, 11, 21})
	v, ok := err.(*ValidationError)
	if !ok || len(v.Errors) != 3 || v.Errors[0].ErrorCode != CodeTextLength || v.Errors[1].ErrorCode != CodeInvalidEmail || v.Errors[2].ErrorCode != CodePasswordLength {
		t.Fatalf("%v", err)
	}
}

func TestWellFormedKey(t *testing.T) {
	k := GenerateKey()
	if !WellFormedKey(k) || len(k) != 43 {
		t.Fatalf("generated %q", k)
	}
	if GenerateKey() == k {
		t.Fatal("two equal keys")
	}
	for _, bad := range []string{"", "pk_", k[:42], k + "a", "pk-" + k[3:], k[:42] + "é"} {
		if WellFormedKey(bad) {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestParseID(t *testing.T) {
	for s, want := range map[string]int64{"1": 1, "41": 41, "9223372036854775807": 1<<63 - 1} {
		if got, ok := ParseID(s); !ok || got != want {
			t.Errorf("ParseID(%q) = %d, %v", s, got, ok)
		}
	}
	for _, s := range []string{"", "0", "04", "+4", "-4", " 4", "4 ", "4.0", "1e3", "0x1", "9223372036854775808", "٤"} {
		if got, ok := ParseID(s); ok {
			t.Errorf("ParseID(%q) = %d, accepted", s, got)
		}
	}
}

// createWith is a valid create request with field set to s.
func createWith(field, s string) *CreateRequest {
	r := &CreateRequest{Name: "Ada", Email: "ada@example.com", Password: "12345678"}
	switch field {
	case "name":
		r.Name = s
	case "email":
		r.Email = s
	case "password":
		r.Password = s
	case "phoneNumber":
		r.PhoneNumber = &s
	case "weightUnit":
		r.WeightUnit = s
	}
	return r
}

func TestControlCharacters(t *testing.T) {
	today := Date{2026, 11, 21}
	// ValidateCreate (bulk import, TUI) and ParseCreate (server) agree.
	for _, bad := range []string{"a\x00b", "a\nb", "\x1b[0m", "\x7f\x01"} {
		for _, field := range []string{"name", "email", "password", "phoneNumber", "weightUnit"} {
			r := createWith(field, bad)
			err := ValidateCreate(r, today)
			v, ok := err.(*ValidationError)
			if !ok || len(v.Errors) != 1 || v.Errors[0].ErrorCode != CodeControlChar || v.Errors[0].Field != field {
				t.Errorf("ValidateCreate %s=%q: %v", field, bad, err)
			}
		}
	}
	if err := ValidateCreate(&CreateRequest{Name: "Ada\tPark", Email: "ada@example.com", Password: "pass\tword"}, today); err != nil {
		t.Errorf("tab refused: %v", err)
	}
	// The patch's text path (traineectl update, the TUI form).
	name := PatchFieldNamed("name")
	if _, err := name.ParseText("a\x00b", time.Now()); err == nil || err.(*ValidationError).Errors[0].ErrorCode != CodeControlChar {
		t.Errorf("ParseText NUL: %v", err)
	}
	if v, err := name.ParseText("a\tb", time.Now()); err != nil || v != "a\tb" {
		t.Errorf("ParseText tab: %v %v", v, err)
	}
	// Query parameters.
	for q, code := range map[string]int{"q=%00": CodeControlChar, "q=12%003": CodeControlChar, "q=%ff": CodeInvalidParameter, "sort=id%0a": CodeControlChar} {
		vals, _ := url.ParseQuery(q)
		_, err := ParseSearch(vals, today)
		if v, ok := err.(*ValidationError); !ok || v.Errors[0].ErrorCode != code || len(v.Errors) != 1 {
			t.Errorf("ParseSearch %s: %v, want only %d", q, err, code)
		}
	}
}

// A phone number is read with libphonenumber's metadata: accepted when its
// country's plan uses its length for full numbers (fictional ranges such
// as Ofcom's 07700 900xxx included), stored in E.164; refused with a 1006
// that says why for an unknown country code, a local-only or otherwise
// impossible length, and the national form.
func TestPhoneNumbersByTheirCountrysPlan(t *testing.T) {
	for _, c := range []struct {
		in, want, problem string
	}{
		{"+447700900123", "+447700900123", ""},
		{"+44 7700 900123", "+447700900123", ""},
		{"+44 (0)7700 900123", "+447700900123", ""},
		{"+44-7700-900.123", "+447700900123", ""},
		{"+1 (202) 555-0123", "+12025550123", ""},
		{"+49 151 12345678", "+4915112345678", ""},
		{"+800 1234 5678", "+80012345678", ""},
		{"+99912345678", "", "no known country code"},
		{"+15550100", "", "not a full number of its country code +1"},
		{"+4477009001", "", "not a full number of its country code +44"},
		{"+44770090012345", "", "too long for its country code +44"},
		{"+44077009001", "", "not a full number of its country code +44"}, // 07700 9001 with its 0: no UK number
		{"+39 06 1234 5678", "+390612345678", ""},                         // Rome: Italy's numbers keep their 0
		{"07700 900123", "", "international format"},
		{"447700900123", "", "international format"},
		{"+44 7700 9OO123", "", "international format"},
		{"+1-800-FLOWERS", "", "international format"},
	} {
		got, problem := PhoneE164(c.in)
		switch {
		case c.problem == "" && (problem != "" || got != c.want):
			t.Errorf("PhoneE164(%q) = %q, %q; want %q", c.in, got, problem, c.want)
		case c.problem != "" && !strings.Contains(problem, c.problem):
			t.Errorf("PhoneE164(%q) problem %q, want one saying %q", c.in, problem, c.problem)
		}
		phone := c.in
		r := &CreateRequest{Name: "Ada", Email: "ada@example.com", Password: "12345678", PhoneNumber: &phone}
		err := ValidateCreate(r, Date{2026, 11, 28})
		var ve *ValidationError
		if c.problem == "" {
			if err != nil || *r.PhoneNumber != c.want {
				t.Errorf("create with %q: %v, stored %q", c.in, err, *r.PhoneNumber)
			}
		} else if !errors.As(err, &ve) || ve.Errors[0].ErrorCode != CodeInvalidPhone || ve.Errors[0].Field != "phoneNumber" {
			t.Errorf("create with %q: %v, want a 1006", c.in, err)
		}
	}
}
