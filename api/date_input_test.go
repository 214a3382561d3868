package api_test

import (
	"strings"
	"testing"
	"time"

	"github.com/traineed/traineed/api"
)

// A date written with / or . is refused, and the error names the forms
// taken; when one number is over 12 it is the day and the error gives the
// date to write; when both could be the day nothing is guessed.
func TestDateInputErrorsNameTheForms(t *testing.T) {
	now := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	for in, want := range map[string]string{
		"31/12/2026": `invalid date "31/12/2026": write it 31-12-2026 (dates are dd-MM-yyyy, yyyy-MM-dd, today or yesterday)`,
		"12/31/2026": `invalid date "12/31/2026": write it 31-12-2026 (`,
		"31.12.2026": `invalid date "31.12.2026": write it 31-12-2026 (`,
		"01/02/2026": `invalid date "01/02/2026": day or month first? write 01-02-2026 or 02-01-2026 (dates are dd-MM-yyyy, yyyy-MM-dd, today or yesterday)`,
		"31/02/2026": `invalid date "31/02/2026": use dd-MM-yyyy, yyyy-MM-dd, today or yesterday`,
		"tomorrow":   `invalid date "tomorrow": use dd-MM-yyyy, yyyy-MM-dd, today or yesterday`,
	} {
		_, err := api.ParseDateInput(in, now)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", in, err, want)
		}
		if in == "31/02/2026" && strings.Contains(err.Error(), "write") {
			t.Errorf("31/02/2026 is no date, yet: %v", err)
		}
	}
	if d, err := api.ParseDateInput("31-12-2026", now); err != nil || d.String() != "31-12-2026" {
		t.Errorf("31-12-2026: %v %v", d, err)
	}
}
