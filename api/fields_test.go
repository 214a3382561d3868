package api

import (
	"reflect"
	"slices"
	"testing"
)

// Every field of Trainee is in the table: a field of TraineePatch (what a
// create or an update writes), or one the server sets (ReadOnlyFields);
// never both, and nothing else. A field added to Trainee alone fails here.
func TestTraineeFieldsAreInTheTable(t *testing.T) {
	for _, name := range TraineeFieldNames {
		pf := PatchFieldNamed(name)
		ro := slices.Contains(ReadOnlyFields, name)
		switch {
		case pf == nil && !ro:
			t.Errorf("Trainee's %s is neither a field of TraineePatch nor in ReadOnlyFields", name)
		case pf != nil && ro:
			t.Errorf("Trainee's %s is both a field of TraineePatch and in ReadOnlyFields", name)
		case pf != nil && pf.WriteOnly:
			t.Errorf("Trainee shows %s, a write-only field", name)
		}
	}
	for _, name := range TraineeFieldNames {
		if TraineeLabels[name] == "" {
			t.Errorf("Trainee's %s has no label tag (how the TUI's profile shows it)", name)
		}
	}
	if len(ProfileFields) != len(TraineeFieldNames) {
		t.Errorf("ProfileFields %v are not Trainee's fields %v", ProfileFields, TraineeFieldNames)
	}
	for _, name := range ReadOnlyFields {
		if !slices.Contains(TraineeFieldNames, name) {
			t.Errorf("ReadOnlyFields names %s, no field of Trainee", name)
		}
	}
	for _, pf := range TraineePatchFields {
		if !pf.WriteOnly && !slices.Contains(TraineeFieldNames, pf.Name) {
			t.Errorf("TraineePatch's %s is no field of Trainee", pf.Name)
		}
	}
}

// The create fields are the fields of CreateRequest and of NewTrainee that
// are not the password's hash or what only the server chooses, and the
// conversions keep every one of them.
func TestCreateFieldsAreTheCreateStructs(t *testing.T) {
	var names []string
	for _, pf := range CreateFields {
		names = append(names, pf.goName)
		if pf.Flag == "" || pf.CreateHelp == "" || pf.Label == "" {
			t.Errorf("create field %s needs a flag, a createHelp and a label", pf.Name)
		}
	}
	goNames := func(typ reflect.Type, except ...string) []string {
		var out []string
		for i := range typ.NumField() {
			if n := typ.Field(i).Name; !slices.Contains(except, n) {
				out = append(out, n)
			}
		}
		return out
	}
	if got := goNames(reflect.TypeFor[CreateRequest]()); !slices.Equal(got, names) {
		t.Errorf("CreateRequest holds %v, the create fields are %v", got, names)
	}
	withoutPassword := slices.DeleteFunc(slices.Clone(names), func(n string) bool { return n == "Password" })
	if got := goNames(reflect.TypeFor[NewTrainee](), "PasswordHash", "CreatedByType", "Enabled", "LastTrained"); !slices.Equal(got, withoutPassword) {
		t.Errorf("NewTrainee holds %v, the create fields are %v", got, withoutPassword)
	}
	phone, dob, trainer := "+447700900123", Date{1990, 3, 2}, int64(7)
	r := CreateRequest{Name: "Ada", Email: "ada@example.com", Password: "S3cret-pass", PhoneNumber: &phone,
		DateOfBirth: &dob, ExpirationDate: &dob, TrainerID: &trainer, WeightUnit: UnitLB}
	p := r.Patch()
	if got := CreateRequestOf(p); !reflect.DeepEqual(got, r) {
		t.Errorf("CreateRequestOf(r.Patch()) = %+v, want %+v", got, r)
	}
	nt := NewTraineeOf(&r, "hash")
	want := NewTrainee{Name: "Ada", Email: "ada@example.com", PhoneNumber: &phone, PasswordHash: "hash", DateOfBirth: &dob,
		ExpirationDate: &dob, TrainerID: &trainer, WeightUnit: UnitLB, CreatedByType: CreatedByAdmin, Enabled: true}
	if !reflect.DeepEqual(nt, want) {
		t.Errorf("NewTraineeOf = %+v, want %+v", nt, want)
	}
	if nt.PhoneNumber == r.PhoneNumber {
		t.Error("NewTraineeOf shares the request's pointers")
	}
}
