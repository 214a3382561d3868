package commands_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/traineed/traineed/store/storetest"
)

// A bulk import's journal belongs to the server and the company it was
// written for: against the same server with another company's key,
// create -f and apply -f refuse it (exit 2) instead of reporting its rows
// "already done", and each one's --dry-run gives the same verdict; against
// another server the dry run refuses it as the run does. Nothing is sent.
func TestJournalOfAnotherCompany(t *testing.T) {
	s := newImportServer(t)
	ctx := context.Background()
	b, err := s.store.CreateCompany(ctx, "Other Gym", "UTC")
	must(t, err)
	storetest.MustTrainer(t, s.store, b.ID, "Coach B", "coach@other.example")
	keyB := s.newKey(t, b.ID)
	var rows strings.Builder
	rows.WriteString("name,email,password\n")
	for i := range 3 {
		fmt.Fprintf(&rows, "Prog %d,prog%d@example.com,S3cret-pass\n", i, i)
	}
	in := writeFile(t, "prog.csv", rows.String())
	ha := newHarness(t, s.url, s.key)
	if r := ha.run("create", "-f", in).expect(t, 0); !strings.Contains(r.err, "Created 3,") {
		t.Fatalf("the first import: %s", r)
	}
	journal, err := os.ReadFile(in + ".journal")
	must(t, err)
	if !strings.Contains(string(journal), fmt.Sprintf(`"companyId":%d`, s.companyID)) {
		t.Fatalf("the journal does not record the company:\n%s", journal)
	}
	s.requests()

	hb := newHarness(t, s.url, keyB)
	want := fmt.Sprintf("belongs to an import into company %d at %s, not into company %d (Other Gym)", s.companyID, s.url, b.ID)
	for _, args := range [][]string{
		{"create", "-f", in, "--dry-run"},
		{"create", "-f", in},
		{"apply", "-f", in, "--dry-run"},
		{"apply", "-f", in, "--generate-passwords", "--results", in + ".results"},
	} {
		r := hb.run(args...)
		if r.code != 2 || !strings.Contains(r.err, want) || strings.Contains(r.err, "already done") {
			t.Errorf("%v with another company's key: %s", args, r)
		}
	}
	if n := storetest.Count(t, s.store, "trainees", "company_id = ?", b.ID); n != 0 {
		t.Errorf("another company's import created %d trainees", n)
	}
	for _, r := range s.requests() {
		if r.method != "GET" {
			t.Errorf("a refused import sent %s %s", r.method, r.path)
		}
	}
	// Another server: the dry run refuses the journal as the run does.
	r := ha.run("--base-url", "http://127.0.0.1:1", "create", "-f", in, "--dry-run")
	if r.code != 2 || !strings.Contains(r.err, "belongs to an import into "+s.url) {
		t.Errorf("dry run against another server: %s", r)
	}
	// The same company again: every row already done.
	if r := ha.run("create", "-f", in, "--dry-run").expect(t, 0); strings.Contains(r.err, "belongs to") {
		t.Errorf("the same company's dry run: %s", r)
	}
	if r := ha.run("create", "-f", in).expect(t, 0); !strings.Contains(r.err, "already done 3") {
		t.Errorf("the same company's run: %s", r)
	}
}
