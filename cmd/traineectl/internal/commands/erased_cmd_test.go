package commands_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/store/storetest"
)

// emails lists the company's trainees' e-mails, deleted ones included.
func (s *testServer) emails(t *testing.T) []string {
	t.Helper()
	ts, _, err := s.store.SearchTrainees(context.Background(), s.companyID, api.Search{Status: api.StatusAll, Size: 100, Sort: "id"})
	must(t, err)
	var out []string
	for _, tr := range ts {
		out = append(out, tr.Email)
	}
	slices.Sort(out)
	return out
}

// TestImportSkipsErased: against a real server, a file naming a trainee
// erased from the company (by e-mail in another case, or by phone number
// in another spelling) has those rows skipped by apply -f and create -f,
// listed as "! erased on DATE", counted in the summary, exit 0; the dry
// runs give the same verdict as the runs (apply's plan from the check,
// create -f's run from the server's 409 1038); --allow-erased imports
// them.
func TestImportSkipsErased(t *testing.T) {
	srv := newServer(t)
	h := newHarness(t, srv.url, srv.key)
	nt := storetest.NewTrainee("Ada Park", "ada@example.com")
	phone := "+447700900111"
	nt.PhoneNumber = &phone
	ada := storetest.MustCreate(t, srv.store, srv.companyID, nt)
	erased, err := srv.store.EraseTrainee(context.Background(), srv.companyID, ada.ID, ada.Email)
	must(t, err)
	on := "erased on " + erased.ErasedAt.UTC().Format(time.DateOnly)

	dir := t.TempDir()
	file := filepath.Join(dir, "crm.csv")
	must(t, os.WriteFile(file, []byte("name,email,password,phoneNumber\n"+
		"Ada Park,ADA@example.com,correct horse,\n"+
		"Bo Lund,bo@example.com,correct horse,\n"+
		"Cy Moor,cy@example.com,correct horse,+44 7700 900111\n"), 0o600))

	dry := h.run("apply", "-f", file, "--dry-run").expect(t, 0)
	for _, want := range []string{
		"! " + on + " (e-mail): row 2: ada@example.com (Ada Park)",
		"+ row 3: bo@example.com (Bo Lund)",
		"! " + on + " (phone number): row 4: cy@example.com (Cy Moor)",
		"1 to create", "2 erased, skipped",
	} {
		if !strings.Contains(dry.out, want) {
			t.Errorf("apply --dry-run lacks %q:\n%s", want, dry)
		}
	}
	if got := srv.emails(t); len(got) != 0 {
		t.Fatalf("the dry run created %v", got)
	}
	run := h.run("apply", "-f", file).expect(t, 0)
	for _, want := range []string{"! " + on + " (e-mail): row 2: ada@example.com: skipped", "! " + on + " (phone number): row 4: cy@example.com: skipped",
		"Created 1,", "failed 0", "erased (skipped) 2"} {
		if !strings.Contains(run.err, want) {
			t.Errorf("apply lacks %q:\n%s", want, run)
		}
	}
	if got := srv.emails(t); !slices.Equal(got, []string{"bo@example.com"}) {
		t.Fatalf("after apply the company holds %v, want bo alone", got)
	}

	// create -f: its dry run asks the check; its run sends every row with
	// Traineed-Refuse-Erased and skips the 409s.
	file2 := filepath.Join(dir, "more.jsonl")
	must(t, os.WriteFile(file2, []byte(`{"name":"Ada Park","email":"Ada@Example.com","password":"correct horse"}`+"\n"+
		`{"name":"Di Vance","email":"di@example.com","password":"correct horse"}`+"\n"), 0o600))
	dry = h.run("create", "-f", file2, "--dry-run").expect(t, 0)
	for _, want := range []string{"! " + on + " (e-mail): row 1: ada@example.com: skipped", "1 to create, 1 erased, skipped"} {
		if !strings.Contains(dry.out, want) {
			t.Errorf("create -f --dry-run lacks %q:\n%s", want, dry)
		}
	}
	run = h.run("create", "-f", file2).expect(t, 0)
	for _, want := range []string{"! " + on + " (e-mail): row 1: ada@example.com: skipped", "Created 1, already done 0, failed 0, erased (skipped) 1"} {
		if !strings.Contains(run.err, want) {
			t.Errorf("create -f lacks %q:\n%s", want, run)
		}
	}
	if got := srv.emails(t); !slices.Equal(got, []string{"bo@example.com", "di@example.com"}) {
		t.Fatalf("after create -f the company holds %v", got)
	}

	// --allow-erased brings them back: create -f sends the skipped row
	// again (its journal has it refused, not created), apply creates Cy.
	// Its dry run still tells the returning person, as created again.
	dry = h.run("create", "-f", file2, "--dry-run", "--allow-erased").expect(t, 0)
	if strings.Contains(dry.out, "skipped") || !strings.Contains(dry.out, ": created again (--allow-erased)") ||
		!strings.Contains(dry.out, "1 to create, 1 of them erased before, created again.") {
		t.Errorf("create -f --dry-run --allow-erased does not say it creates an erased person again:\n%s", dry)
	}
	run = h.run("create", "-f", file2, "--allow-erased").expect(t, 0)
	if !strings.Contains(run.err, "Created 1, already done 1, failed 0") || strings.Contains(run.err, "erased") {
		t.Errorf("create -f --allow-erased:\n%s", run)
	}
	dry = h.run("apply", "-f", file, "--dry-run", "--allow-erased").expect(t, 0)
	if !strings.Contains(dry.out, "+ row 4: cy@example.com (Cy Moor): erased on ") || !strings.Contains(dry.out, ", created again (--allow-erased)") ||
		strings.Contains(dry.out, "skipped") || !strings.Contains(dry.out, "1 of the creates erased before") {
		t.Errorf("apply --dry-run --allow-erased:\n%s", dry)
	}
	h.run("apply", "-f", file, "--allow-erased").expect(t, 0)
	if got := srv.emails(t); !slices.Equal(got, []string{"ada@example.com", "bo@example.com", "cy@example.com", "di@example.com"}) {
		t.Fatalf("after --allow-erased the company holds %v", got)
	}
}

// One trainee's create is refused for an erased person's e-mail or phone
// number (409 1038, exit 5, nothing created), and made with --allow-erased.
func TestCreateRefusesErased(t *testing.T) {
	srv := newServer(t)
	h := newHarness(t, srv.url, srv.key)
	ada := storetest.MustCreate(t, srv.store, srv.companyID, storetest.NewTrainee("Ada Park", "ada@example.com"))
	erased, err := srv.store.EraseTrainee(context.Background(), srv.companyID, ada.ID, ada.Email)
	must(t, err)
	on := "erased on " + erased.ErasedAt.UTC().Format(time.DateOnly)

	args := []string{"create", "--name", "Ada Park", "--email", "Ada@Example.com", "--password", "correct horse"}
	r := h.run(args...).expect(t, 5)
	if !strings.Contains(r.err, on+" (e-mail): not created: --allow-erased creates them anyway") {
		t.Errorf("create of an erased person:\n%s", r)
	}
	if got := srv.emails(t); len(got) != 0 {
		t.Fatalf("a refused create left %v", got)
	}
	h.run(append(args, "--allow-erased")...).expect(t, 0)
	if got := srv.emails(t); !slices.Equal(got, []string{"ada@example.com"}) {
		t.Fatalf("after create --allow-erased the company holds %v", got)
	}
}
