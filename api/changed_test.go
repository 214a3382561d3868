package api_test

import (
	"slices"
	"testing"

	"github.com/traineed/traineed/api"
)

func TestChangedFields(t *testing.T) {
	d1, d2 := api.Date{Year: 1990, Month: 3, Day: 2}, api.Date{Year: 1991, Month: 3, Day: 2}
	p1, p2 := "+447700900123", "+447700900124"
	var t1, t2 int64 = 1, 2
	base := func() *api.Trainee {
		return &api.Trainee{
			ID: 1, UserID: 2, Name: "Ada", Email: "ada@example.com", Username: "ada@example.com",
			PhoneNumber: &p1, DateOfBirth: &d1, ExpirationDate: &d1, Enabled: true, CompanyID: 3,
			TrainerID: &t1, CreatedByType: "ADMIN", ForcePasswordChange: true, WeightUnit: "KG",
			Authorities: []string{"TRAINEE", "USER"},
		}
	}
	for _, c := range []struct {
		change func(*api.Trainee)
		want   []string
	}{
		{func(*api.Trainee) {}, nil},
		{func(x *api.Trainee) { x.PhoneNumber = &[]string{p1}[0]; x.DateOfBirth = &[]api.Date{d1}[0] }, nil}, // equal values, new pointers
		{func(x *api.Trainee) { x.Name = "Ada L" }, []string{"name"}},
		{func(x *api.Trainee) { x.Email, x.Username = "l@example.com", "l@example.com" }, []string{"email"}},
		{func(x *api.Trainee) { x.PhoneNumber = &p2 }, []string{"phoneNumber"}},
		{func(x *api.Trainee) { x.PhoneNumber = nil }, []string{"phoneNumber"}},
		{func(x *api.Trainee) { x.DateOfBirth = nil }, []string{"dateOfBirth"}},
		{func(x *api.Trainee) { x.ExpirationDate = &d2 }, []string{"expirationDate"}},
		{func(x *api.Trainee) { x.Enabled = false }, []string{"enabled"}},
		{func(x *api.Trainee) { x.TrainerID = &t2 }, []string{"trainerId"}},
		{func(x *api.Trainee) { x.ForcePasswordChange = false }, []string{"forcePasswordChange"}},
		{func(x *api.Trainee) { x.WeightUnit = "LB" }, []string{"weightUnit"}},
		{func(x *api.Trainee) { x.Name = "B"; x.WeightUnit = "LB"; x.ExpirationDate = nil },
			[]string{"name", "expirationDate", "weightUnit"}},
	} {
		after := base()
		c.change(after)
		if got := api.ChangedFields(base(), after); !slices.Equal(got, c.want) {
			t.Errorf("ChangedFields = %q, want %q", got, c.want)
		}
	}
}
