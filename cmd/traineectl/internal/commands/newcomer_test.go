package commands_test

import (
	"strings"
	"testing"
)

// Where a saved profile stands is said when it is saved: set-profile makes
// the first profile the current one (and says so); a later one leaves the
// current profile as it is and says how to switch; a key saved by keys
// create --save-profile never becomes current by itself, and the note says
// how to use it, or make it current, whether or not a profile is current.
func TestSavedProfilesSayHowToUseThem(t *testing.T) {
	srv := newAdminServer(t)
	h := newHarness(t, srv.url, srv.admin)

	r := h.run("keys", "create", "--name", "Sam's phone", "--scope", "read", "--save-profile", "sam").expect(t, 0)
	if !strings.Contains(r.err, "Use it with --profile sam, or make it the current profile with `traineectl config use sam` (no profile is current") {
		t.Errorf("no current profile: %s", r)
	}
	if cfg := readConfig(t, h); cfg.Current != "" {
		t.Errorf("the saved key became the current profile: %q", cfg.Current)
	}

	r = h.run("config", "set-profile", "prod", "--base-url", srv.url, "--api-key", srv.admin).expect(t, 0)
	if !strings.Contains(r.err, "Saved profile prod (current)") || strings.Contains(r.err, "still") {
		t.Errorf("the first set-profile with none current: %s", r)
	}
	r = h.run("config", "set-profile", "staging", "--base-url", "http://127.0.0.1:9").expect(t, 0)
	if !strings.Contains(r.err, "The current profile is still prod: use this one with --profile staging, or switch with `traineectl config use staging`") {
		t.Errorf("a second profile: %s", r)
	}
	r = h.run("keys", "create", "--name", "Sam's tablet", "--scope", "read", "--save-profile", "sam-tab").expect(t, 0)
	if !strings.Contains(r.err, "Use it with --profile sam-tab (the current profile stays prod; `traineectl config use sam-tab` switches)") {
		t.Errorf("with prod current: %s", r)
	}
	h.run("config", "use", "sam-tab").expect(t, 0)
	if cfg := readConfig(t, h); cfg.Current != "sam-tab" {
		t.Errorf("config use: current %q", cfg.Current)
	}
}

// A date written 31/12/2026 is refused with the forms taken and the date
// to write, on a flag and in a bulk cell alike; 01/02/2026 is not guessed.
func TestSlashDatesSayWhatToWrite(t *testing.T) {
	s := newImportServer(t)
	h := newHarness(t, s.url, s.key)
	r := h.run("create", "--name", "Ada", "--email", "ada@example.com", "--password", "S3cret-pass", "--expires", "31/12/2026").expect(t, 2)
	if !strings.Contains(r.err, `invalid date "31/12/2026": use dd-MM-yyyy (31-12-2026), yyyy-MM-dd (2026-12-31), today or yesterday; write it 31-12-2026`) {
		t.Errorf("--expires 31/12/2026: %s", r)
	}
	in := writeFile(t, "dates.csv", "name,email,password,expires\nAda,ada@example.com,S3cret-pass,31/12/2026\nBob,bob@example.com,S3cret-pass,01/02/2026\n")
	r = h.run("create", "-f", in, "--dry-run")
	if r.code != 5 || !strings.Contains(r.out, "write it 31-12-2026") ||
		!strings.Contains(r.out, "01/02/2026 could be day first or month first: write 01-02-2026 or 02-01-2026") {
		t.Errorf("cells: %s", r)
	}
}
