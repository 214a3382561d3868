package commands_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/store/storetest"
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
	if !strings.Contains(r.err, `invalid date "31/12/2026": write it 31-12-2026 (dates are dd-MM-yyyy, yyyy-MM-dd, today or yesterday)`) {
		t.Errorf("--expires 31/12/2026: %s", r)
	}
	in := writeFile(t, "dates.csv", "name,email,password,expires\nAda,ada@example.com,S3cret-pass,31/12/2026\nBob,bob@example.com,S3cret-pass,01/02/2026\n")
	r = h.run("create", "-f", in, "--dry-run")
	if r.code != 5 || !strings.Contains(r.out, "write it 31-12-2026") ||
		!strings.Contains(r.out, "day or month first? write 01-02-2026 or 02-01-2026") {
		t.Errorf("cells: %s", r)
	}
}

// webhooks deliveries names the trainee each event was about, as the
// runs do ("Ada Park #12"), at 80 columns too; CSV adds traineeId and
// traineeName last.
func TestWebhookDeliveriesNameTheTrainee(t *testing.T) {
	h, _ := demoServer(t)
	rc := storetest.NewReceiver(t, nil)
	wh := decode[api.Webhook](t, h.run("webhooks", "add", "--url", rc.URL, "-o", "json").expect(t, 0))
	ada := decode[api.Trainee](t, h.run("create", "--name", "Ada Lovelace", "--email", "ada.lovelace@example.com", "--password", "S3cret-pass", "-o", "json").expect(t, 0))
	who := fmt.Sprintf("Ada Lovelace #%d", ada.ID)
	if r := h.runWith(atWidth(80), "webhooks", "deliveries", fmt.Sprint(wh.ID)).expect(t, 0); !strings.Contains(r.out, who) {
		t.Errorf("deliveries at 80 columns:\n%s", r.out)
	}
	rows := readCSV(t, h.run("webhooks", "deliveries", fmt.Sprint(wh.ID), "-o", "csv").expect(t, 0))
	if n := len(rows[0]); rows[0][n-2] != "traineeId" || rows[0][n-1] != "traineeName" || rows[1][n-2] != fmt.Sprint(ada.ID) || rows[1][n-1] != "Ada Lovelace" {
		t.Errorf("deliveries csv: %v", rows)
	}
}
