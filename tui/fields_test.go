package tui

import (
	"testing"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/tui/pages/form"
)

// Names of the form's inputs the tests look at (the API's names).
const (
	fEmail          = "email"
	fDateOfBirth    = "dateOfBirth"
	fExpirationDate = "expirationDate"
)

// The form's inputs are the fields of api.TraineePatch that have a label,
// in order, with the table's labels and placeholders (the trainer's
// are the TUI's: a name or an id).
func TestFormFieldsComeFromTheTable(t *testing.T) {
	s := newServer(t)
	d := newDriver(t, s.client(s.Key), Options{})
	d.press("n")
	var want []string
	for _, pf := range api.TraineePatchFields {
		if pf.Label != "" {
			want = append(want, pf.Name)
		}
	}
	if len(d.m.form.Fields) != len(want) || len(want) < 8 {
		t.Fatalf("%d inputs, want %d (at least 8)", len(d.m.form.Fields), len(want))
	}
	for i, fl := range d.m.form.Fields {
		pf := api.PatchFieldNamed(want[i])
		label, hint := pf.Label, pf.Hint
		if pf.Name == form.FTrainerID { // typed and shown by name
			label, hint = "Trainer", "name or id (empty: the first trainer)"
		}
		if fl.Name != pf.Name || fl.Label != label || fl.Input.Placeholder != hint {
			t.Errorf("input %d is %s %q %q, want %s %q %q", i, fl.Name, fl.Label, fl.Input.Placeholder, pf.Name, pf.Label, pf.Hint)
		}
	}
}
