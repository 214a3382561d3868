package tui

import (
	"testing"

	"github.com/traineed/traineed/api"
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
	if len(d.m.form.fields) != len(want) || len(want) < 8 {
		t.Fatalf("%d inputs, want %d (at least 8)", len(d.m.form.fields), len(want))
	}
	for i, fl := range d.m.form.fields {
		pf := api.PatchFieldNamed(want[i])
		label, hint := pf.Label, pf.Hint
		if pf.Name == fTrainerID { // typed and shown by name
			label, hint = "Trainer", "name or id (empty: the first trainer)"
		}
		if fl.name != pf.Name || fl.label != label || fl.input.Placeholder != hint {
			t.Errorf("input %d is %s %q %q, want %s %q %q", i, fl.name, fl.label, fl.input.Placeholder, pf.Name, pf.Label, pf.Hint)
		}
	}
}
