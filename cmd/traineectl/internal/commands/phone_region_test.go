package commands_test

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/store/storetest"
)

// create -f and apply -f read a phone number without + as a national
// number of --phone-region, else of the company's country by its time
// zone: "07700 900123" is created as +447700900123, and the dry run says
// so; a company whose zone names no one country asks for the flag; a
// number that is no full number of the region is the row's 1006.
func TestBulkPhoneRegion(t *testing.T) {
	s := newImportServer(t)
	h := newHarness(t, s.url, s.key)
	in := writeFile(t, "uk.csv", "name,email,password,phone\n"+
		"Ada,ada@example.com,S3cret-pass,07700 900123\n"+
		"Bob,bob@example.com,S3cret-pass,+1 202 555 0123\n"+
		"Cy,cy@example.com,S3cret-pass,0770\n")
	// The company is in UTC: no one country.
	r := h.run("create", "-f", in, "--dry-run")
	if r.code != 5 || !strings.Contains(r.out, "needs --phone-region: the company's time zone UTC names no one country") {
		t.Errorf("without a region: %s", r)
	}
	r = h.run("create", "-f", in, "--dry-run", "--phone-region", "gb")
	if r.code != 5 || !strings.Contains(r.err, "note: "+in+": phone number 07700 900123 → +447700900123") ||
		!strings.Contains(r.out, "1006 phoneNumber") || !strings.Contains(r.out, "2 valid, 1 invalid") {
		t.Errorf("--phone-region gb: %s", r)
	}
	if r := h.run("create", "-f", in, "--phone-region", "XX"); r.code != 2 || !strings.Contains(r.err, `--phone-region "XX" is not a country code`) {
		t.Errorf("--phone-region XX: %s", r)
	}
	zone := "Europe/London"
	_, err := s.store.UpdateCompany(context.Background(), s.companyID, api.CompanyPatch{TimeZone: &zone})
	must(t, err)
	in2 := writeFile(t, "uk2.csv", "name,email,password,phone\nAda,ada@example.com,S3cret-pass,07700 900123\n")
	r = h.run("create", "-f", in2)
	if r.code != 0 || !strings.Contains(r.err, "Created 1,") {
		t.Fatalf("the company's region: %s", r)
	}
	if n := storetest.Count(t, s.store, "users", "phone = ?", "+447700900123"); n != 1 {
		t.Errorf("+447700900123 stored %d times", n)
	}
}

// The README's sample import, docs/clients.csv, is valid as shipped for a
// company in Europe/London with a trainer Maya Brooks (the demo's).
func TestSampleClientsCSV(t *testing.T) {
	s := newImportServer(t)
	storetest.MustTrainer(t, s.store, s.companyID, "Maya Brooks", "maya@acme.example")
	zone := "Europe/London"
	_, err := s.store.UpdateCompany(context.Background(), s.companyID, api.CompanyPatch{TimeZone: &zone})
	must(t, err)
	h := newHarness(t, s.url, s.key)
	if r := h.run("create", "-f", "../../../../docs/clients.csv", "--dry-run").expect(t, 0); !strings.Contains(r.out, "3 rows: 3 valid, 0 invalid") {
		t.Errorf("docs/clients.csv: %s", r)
	}
}

// --phone reads a number as a bulk cell does (api.PhoneInput, the one
// parser of both): without + it is a national number of --phone-region,
// else of the company's country by its time zone, stored in E.164; a
// number that is none of the region is a usage error quoting it, and
// nothing is sent; a company whose zone names no one country asks for
// --phone-region.
func TestPhoneFlagsReadNationalNumbers(t *testing.T) {
	s := newImportServer(t) // a real server over SQLite; the company is in UTC
	h := newHarness(t, s.url, s.key)
	r := h.run("create", "--name", "Ada Park", "--email", "ada@example.com", "--password", "S3cret-pass",
		"--phone", "07700 900123", "--phone-region", "GB", "-o", "json").expect(t, 0)
	ada := decode[api.Trainee](t, r)
	if ada.PhoneNumber == nil || *ada.PhoneNumber != "+447700900123" || !strings.Contains(r.err, "note: --phone 07700 900123 read as +447700900123") {
		t.Errorf("create --phone-region GB: %s", r)
	}
	if n := storetest.Count(t, s.store, "users", "phone = ?", "+447700900123"); n != 1 {
		t.Errorf("+447700900123 stored %d times", n)
	}

	// The company's zone names no country: the flag is needed, said so.
	r = h.run("create", "--name", "Bob", "--email", "bob@example.com", "--password", "S3cret-pass", "--phone", "07700 900456")
	if r.code != 2 || !strings.Contains(r.err, `--phone "07700 900456": a number without + needs --phone-region: the company's time zone UTC names no one country`) {
		t.Errorf("no region: %s", r)
	}
	// Unparseable: quoted, nothing sent.
	r = h.run("create", "--name", "Cy", "--email", "cy@example.com", "--password", "S3cret-pass", "--phone", "0770", "--phone-region", "gb")
	if r.code != 2 || !strings.Contains(r.err, `--phone "0770", read as a national number of GB:`) {
		t.Errorf("0770: %s", r)
	}
	if n := storetest.Count(t, s.store, "users", "email = ?", "cy@example.com"); n != 0 {
		t.Errorf("a refused --phone created the trainee")
	}
	if r := h.run("create", "--name", "Cy", "--email", "cy@example.com", "--password", "S3cret-pass", "--phone-region", "GB"); r.code != 2 ||
		!strings.Contains(r.err, "--phone-region needs --phone or -f FILE") {
		t.Errorf("--phone-region alone: %s", r)
	}
	if r := h.run("create", "--name", "Cy", "--email", "cy@example.com", "--password", "S3cret-pass", "--phone", "07700 900789", "--phone-region", "XX"); r.code != 2 ||
		!strings.Contains(r.err, `--phone-region "XX" is not a country code`) {
		t.Errorf("--phone-region XX: %s", r)
	}
	// International numbers go as written (the server normalises them).
	if r := h.run("create", "--name", "Dee", "--email", "dee@example.com", "--password", "S3cret-pass", "--phone", "+1 202 555 0123", "-o", "json").expect(t, 0); decode[api.Trainee](t, r).PhoneNumber == nil {
		t.Errorf("+1 202 555 0123: %s", r)
	}

	// update, in the company's country once it has one.
	zone := "Europe/London"
	_, err := s.store.UpdateCompany(context.Background(), s.companyID, api.CompanyPatch{TimeZone: &zone})
	must(t, err)
	id := strconv.FormatInt(ada.ID, 10)
	r = h.run("update", id, "--phone", "07700 900456", "-o", "json").expect(t, 0)
	if got := decode[api.Trainee](t, r).PhoneNumber; got == nil || *got != "+447700900456" {
		t.Errorf("update in the company's region: %s", r)
	}
	r = h.run("update", id, "--phone", "(202) 555-0199", "--phone-region", "US", "-o", "json").expect(t, 0)
	if got := decode[api.Trainee](t, r).PhoneNumber; got == nil || *got != "+12025550199" {
		t.Errorf("update --phone-region US: %s", r)
	}
	if r := h.run("update", id, "--phone", "12"); r.code != 2 || !strings.Contains(r.err, `--phone "12", read as a national number of GB:`) {
		t.Errorf("update --phone 12: %s", r)
	}
	if r := h.run("update", id, "--phone", "none").expect(t, 0); strings.Contains(r.err, "read as") {
		t.Errorf("--phone none was read as a number: %s", r)
	}
}
