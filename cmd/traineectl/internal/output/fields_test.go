package output

import (
	"slices"
	"testing"

	"github.com/traineed/traineed/api"
)

// Every field of api.Trainee is a CSV column, named by its JSON name, in
// the order the header always had (a new field comes last); the table's columns are fields of
// api.Trainee (or the derived status), and their cells follow them.
func TestTraineeColumnsComeFromTheTable(t *testing.T) {
	want := []string{
		"id", "name", "email", "phoneNumber", "status", "expirationDate", "trainerId", "dateOfBirth",
		"weightUnit", "lastTrained", "enabled", "userId", "username", "companyId", "createdByType",
		"forcePasswordChange", "authorities",
	}
	if len(TraineeCSVHeader) != len(api.TraineeFieldNames)+1 || !slices.Equal(TraineeCSVHeader[:len(want)], want) {
		t.Errorf("CSV header %v, want %v", TraineeCSVHeader, want)
	}
	for _, name := range api.TraineeFieldNames {
		if !slices.Contains(TraineeCSVHeader, name) {
			t.Errorf("api.Trainee's %s is no CSV column", name)
		}
	}
	for _, c := range TraineeColumns(false) {
		if c.Field != "status" && !slices.Contains(api.TraineeFieldNames, c.Field) {
			t.Errorf("table column %s is no field of api.Trainee", c.Field)
		}
	}
	phone, trainer, exp := "+447700900123", int64(7), api.Date{Year: 2026, Month: 12, Day: 31}
	tr := &api.Trainee{ID: 41, UserID: 3, Name: "Ada", Email: "ada@example.com", Username: "ada@example.com",
		PhoneNumber: &phone, ExpirationDate: &exp, Enabled: true, CompanyID: 2, TrainerID: &trainer,
		CreatedByType: api.CreatedByAdmin, WeightUnit: api.UnitKG, Authorities: api.TraineeAuthorities}
	today := api.Date{Year: 2026, Month: 1, Day: 1}
	gotCSV := TraineeCSVRow(tr, today)
	wantCSV := []string{"41", "Ada", "ada@example.com", "+447700900123", "active", "31-12-2026", "7", "",
		"KG", "", "true", "3", "ada@example.com", "2", "ADMIN", "false", "TRAINEE;USER"}
	if !slices.Equal(gotCSV[:len(wantCSV)], wantCSV) {
		t.Errorf("CSV row %q, want %q", gotCSV, wantCSV)
	}
	if got := TraineeRow(tr, today, map[int64]string{7: "Sam"}); !slices.Equal(got, []string{"41", "Ada", "ada@example.com", "+447700900123", "active", "31-12-2026", "Sam"}) {
		t.Errorf("table row %q", got)
	}
	tr.PhoneNumber, tr.TrainerID = nil, nil
	if got := TraineeRow(tr, today, nil); got[3] != "-" || got[6] != "-" {
		t.Errorf("table row %q: unset values are -", got)
	}
}
