package api

import (
	"testing"
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
