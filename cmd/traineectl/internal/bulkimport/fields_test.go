package bulkimport

import (
	"strings"
	"testing"

	"github.com/traineed/traineed/api"
)

// The columns of a bulk import are the create fields of api.TraineePatch:
// each by its API name (any case), and by its create flag when that is one
// word. The columns there always were stay, in their order (a new field
// comes before requestId).
func TestColumnsComeFromTheTable(t *testing.T) {
	want := "name, email, password, phoneNumber (phone), dateOfBirth (dob), expirationDate (expires), trainerId (trainer), weightUnit, "
	if !strings.HasPrefix(ColumnNames, want) || !strings.HasSuffix(ColumnNames, ", requestId") {
		t.Errorf("ColumnNames = %q, want %q..., requestId", ColumnNames, want)
	}
	for _, pf := range api.CreateFields {
		for _, h := range []string{pf.Name, strings.ToUpper(pf.Name)} {
			if columns[strings.ToLower(h)] != pf.Name {
				t.Errorf("column %q does not fill %s", h, pf.Name)
			}
		}
		if !strings.Contains(pf.Flag, "-") && columns[pf.Flag] != pf.Name {
			t.Errorf("column %q (the flag) does not fill %s", pf.Flag, pf.Name)
		}
	}
	if len(columns) < 13 {
		t.Errorf("%d column names, want at least 13 (8 fields, 4 aliases, requestId)", len(columns))
	}
}
