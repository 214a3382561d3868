package commands_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/traineed/traineed/store"
	"github.com/traineed/traineed/store/storetest"
)

// mapsDir holds the example column maps that docs/traineectl.md documents.
const mapsDir = "../../../../docs/maps"

// copyTestdata copies a sample input into a temporary directory, where its
// journal may go.
func copyTestdata(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "maps", name))
	must(t, err)
	return writeFile(t, name, string(b))
}

// TestColumnMapGenericCRM: the generic CRM export, synced with apply -f and
// docs/maps/generic-crm.map.
func TestColumnMapGenericCRM(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		s := newImportServerOn(t, st)
		h := newHarness(t, s.url, s.key)
		in := copyTestdata(t, "generic-crm.csv")
		mapFile := filepath.Join(mapsDir, "generic-crm.map")
		results := filepath.Join(t.TempDir(), "results.csv")

		r := h.run("apply", "-f", in, "--map-file", mapFile, "--dry-run").expect(t, 0)
		if !strings.Contains(r.out, "Plan for 3 rows: 0 to create") || !strings.Contains(r.out, "a new trainee needs a password") {
			t.Errorf("dry run without passwords: %s", r)
		}
		r = h.run("apply", "-f", in, "--map-file", mapFile, "--generate-passwords", "--results", results).expect(t, 0)
		if n := strings.Count(r.err, `column(s) not imported: "Notes", "Tags"`); n != 1 || strings.Contains(r.err, "Contact ID") {
			t.Errorf("unmapped columns reported %d times (once wanted):\n%s", n, r)
		}
		ts := s.trainees(t)
		ada, bob, cy := ts["ada.park@example.com"], ts["bob.stone@example.com"], ts["cy@example.com"]
		if ada == nil || ada.Name != "Ada Park" || strOf(ada.PhoneNumber) != "+447700900123" ||
			dateOf(ada.DateOfBirth) != "02-03-1990" || dateOf(ada.ExpirationDate) != "31-12-2026" {
			t.Errorf("ada: %+v", ada)
		}
		if bob == nil || dateOf(bob.DateOfBirth) != "30-11-1985" || bob.PhoneNumber != nil || bob.ExpirationDate != nil {
			t.Errorf("bob: %+v", bob)
		}
		if cy == nil || cy.Name != "Cy Young, Jr." || dateOf(cy.ExpirationDate) != "01-06-2027" || len(ts) != 3 {
			t.Errorf("cy: %+v (%d trainees)", cy, len(ts))
		}
		s.requests()
		r = h.run("apply", "-f", in, "--map-file", mapFile).expect(t, 0)
		if w := s.writes(); len(w) != 0 || !strings.Contains(r.err, "unchanged 3, failed 0") {
			t.Errorf("second sync: %v\n%s", w, r)
		}

		// The same map inline, as the issue writes it.
		r = h.run("apply", "-f", in, "--dry-run", "--map",
			"Client Name=name,E-mail Address=email,Mobile=phoneNumber,Birthday=dateOfBirth:YYYY-MM-DD,Membership End=expirationDate:DD.MM.YYYY").expect(t, 0)
		if !strings.Contains(r.out, "= 3 unchanged") || !strings.Contains(r.err, `"Contact ID", "Notes", "Tags"`) {
			t.Errorf("inline map: %s", r)
		}
	})
}

// TestColumnMapUSSpreadsheet: a spreadsheet with US dates, imported with
// create -f and docs/maps/us-spreadsheet.map, then found applied.
func TestColumnMapUSSpreadsheet(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		s := newImportServerOn(t, st)
		h := newHarness(t, s.url, s.key)
		in := copyTestdata(t, "us-spreadsheet.csv")
		mapFile := filepath.Join(mapsDir, "us-spreadsheet.map")
		results := filepath.Join(t.TempDir(), "results.csv")

		r := h.run("create", "-f", in, "--map-file", mapFile, "--generate-passwords", "--results", results).expect(t, 0)
		if n := strings.Count(r.err, `column(s) not imported: "Signed Up"`); n != 1 || !strings.Contains(r.err, "Created 3") {
			t.Errorf("import: %s", r)
		}
		ts := s.trainees(t)
		dana, eli, faye := ts["dana@example.com"], ts["eli@example.com"], ts["faye@example.com"]
		if dana == nil || dateOf(dana.DateOfBirth) != "04-07-1988" || dateOf(dana.ExpirationDate) != "31-12-2026" ||
			dana.WeightUnit != "LB" || strOf(dana.PhoneNumber) != "+15550100101" {
			t.Errorf("dana: %+v", dana)
		}
		if eli == nil || dateOf(eli.DateOfBirth) != "23-11-1979" || dateOf(eli.ExpirationDate) != "01-03-2027" {
			t.Errorf("eli: %+v", eli)
		}
		if faye == nil || dateOf(faye.DateOfBirth) != "29-02-2000" || faye.WeightUnit != "KG" || faye.ExpirationDate != nil {
			t.Errorf("faye: %+v", faye)
		}
		s.requests()
		r = h.run("apply", "-f", in, "--map-file", mapFile).expect(t, 0)
		if w := s.writes(); len(w) != 0 || !strings.Contains(r.err, "unchanged 3, failed 0") {
			t.Errorf("apply after the import: %v\n%s", w, r)
		}
	})
}

func TestColumnMapErrors(t *testing.T) {
	s := newImportServer(t)
	h := newHarness(t, s.url, s.key)
	in := copyTestdata(t, "us-spreadsheet.csv")
	for _, c := range []struct{ m, want string }{
		{"Fax=phoneNumber", `the column map names "Fax", which the header does not have`},
		{"Email=mail", `unknown field "mail"`},
		{"Date of Birth=dateOfBirth:MM/DD", "needs a year, a month and a day"},
		{"Email=email:MM/DD/YYYY", "a date layout is for dateOfBirth and expirationDate"},
		{"Email=email,email=name", `column "email" is mapped twice`},
	} {
		r := h.run("apply", "-f", in, "--dry-run", "--map", c.m).expect(t, 2)
		if !strings.Contains(r.err, c.want) {
			t.Errorf("--map %q: want %q in\n%s", c.m, c.want, r)
		}
	}
	// A date that does not match its layout is the row's problem.
	r := h.run("apply", "-f", in, "--dry-run", "--map", "Full Name=name,Date of Birth=dateOfBirth:DD/MM/YYYY,Signed Up=-").expect(t, 0)
	if !strings.Contains(r.out, `! row 3: 1005 dateOfBirth: dateOfBirth: "11/23/1979" does not match the date layout DD/MM/YYYY of column "Date of Birth"`) {
		t.Errorf("date off its layout: %s", r)
	}
	if r := h.run("create", "-f", in, "--map", "x=name", "--map-file", "y").expect(t, 2); !strings.Contains(r.err, "none of the others can be") && !strings.Contains(r.err, "were all set") {
		t.Errorf("--map and --map-file: %s", r)
	}
}
