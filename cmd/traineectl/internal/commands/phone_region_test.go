package commands_test

import (
	"context"
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
