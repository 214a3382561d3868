package commands

import (
	"bytes"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/cmd/internal/textout"
)

// TestDeliveriesKeepWhyAtEightyColumns: a failed delivery at 80 columns
// still shows its status, its error and its state (the latency, the
// time, the attempt's number and the type go first); a newcomer saw
// only EVENT TYPE TRAINEE ATTEMPT LATENCY, the reasons cut off.
func TestDeliveriesKeepWhyAtEightyColumns(t *testing.T) {
	status, latency := 503, 212.5
	errText := "503 Service Unavailable from https://crm.example/hooks/traineed"
	name, id := "Ada Parkinson-Whitfield", int64(12)
	a := &api.WebhookAttempt{EventID: "evt_2OSGZOFJo1wlIPcXsiWfnFyx", Type: "trainee.updated",
		TraineeID: &id, TraineeName: &name, Attempt: 2, StatusCode: &status, LatencyMs: &latency,
		Error: &errText, Time: time.Date(2026, 11, 28, 23, 0, 0, 0, time.UTC), State: "pending"}
	rows := [][]string{deliveryRows.Row(a), deliveryRows.Row(a)}
	var b bytes.Buffer
	if err := textout.WriteTable(&b, 80, deliveryRows.Columns, rows); err != nil {
		t.Fatal(err)
	}
	header := strings.Fields(strings.SplitN(b.String(), "\n", 2)[0])
	for _, want := range []string{"EVENT", "STATUS", "ERROR", "STATE"} {
		if !strings.Contains(strings.Join(header, " "), want) {
			t.Errorf("at 80 columns the deliveries lost %s:\n%s", want, b.String())
		}
	}
	if !strings.Contains(b.String(), "retrying") {
		t.Errorf("an attempted, pending delivery reads %q, not retrying as in the TUI:\n%s", a.State, b.String())
	}
	unanswered := *a
	unanswered.StatusCode = nil
	if r := deliveryRows.Row(&unanswered); r[4] != "-" || r[5] != "-" {
		t.Errorf("a request nobody answered shows status %q, latency %q; want - and -", r[4], r[5])
	}
	for _, line := range strings.Split(strings.TrimRight(b.String(), "\n"), "\n") {
		if w := utf8.RuneCountInString(line); w > 80 {
			t.Errorf("line %d wide: %q", w, line)
		}
	}
}
