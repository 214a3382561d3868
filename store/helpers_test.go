package store_test

import (
	"context"
	"errors"
	"testing"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/store"
)

var ctx = context.Background()

func ptr[T any](v T) *T { return &v }

func date(t testing.TB, s string) api.Date {
	t.Helper()
	d, err := api.ParseDate(s)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func newTrainee(name, email string) api.NewTrainee {
	return api.NewTrainee{
		Name:          name,
		Email:         email,
		PasswordHash:  "$argon2id$test",
		WeightUnit:    api.UnitKG,
		CreatedByType: api.CreatedByAdmin,
		Enabled:       true,
	}
}

// tenants is two companies with trainers.
type tenants struct {
	A, B                int64
	TrainerA, TrainerA2 int64
	TrainerB            int64
}

func setupTenants(t *testing.T, s *store.Store) tenants {
	t.Helper()
	var tn tenants
	a, err := s.CreateCompany(ctx, "Alpha Gym", "Europe/London")
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.CreateCompany(ctx, "Beta Gym", "")
	if err != nil {
		t.Fatal(err)
	}
	tn.A, tn.B = a.ID, b.ID
	tn.TrainerA = mustTrainer(t, s, a.ID, "Tess Trainer", "tess@alpha.example.com")
	tn.TrainerA2 = mustTrainer(t, s, a.ID, "Tom Trainer", "tom@alpha.example.com")
	tn.TrainerB = mustTrainer(t, s, b.ID, "Bea Trainer", "bea@beta.example.com")
	return tn
}

func mustTrainer(t *testing.T, s *store.Store, company int64, name, email string) int64 {
	t.Helper()
	tr, err := s.CreateTrainer(ctx, company, name, email)
	if err != nil {
		t.Fatal(err)
	}
	return tr.ID
}

func mustCreate(t *testing.T, s *store.Store, company int64, nt api.NewTrainee) *api.Trainee {
	t.Helper()
	tr, err := s.CreateTrainee(ctx, company, nt)
	if err != nil {
		t.Fatalf("create %s: %v", nt.Email, err)
	}
	return tr
}

func mustGet(t *testing.T, s *store.Store, company, id int64) *api.Trainee {
	t.Helper()
	tr, err := s.Trainee(ctx, company, id)
	if err != nil {
		t.Fatalf("get %d: %v", id, err)
	}
	return tr
}

func wantConflict(t *testing.T, err error, field string) {
	t.Helper()
	var c *api.ConflictError
	if !errors.As(err, &c) || c.Field != field {
		t.Fatalf("err = %v, want conflict on %s", err, field)
	}
}

func wantCode(t *testing.T, err error, code int, field string) {
	t.Helper()
	var v *api.ValidationError
	if !errors.As(err, &v) || len(v.Errors) != 1 || v.Errors[0].ErrorCode != code || v.Errors[0].Field != field {
		t.Fatalf("err = %v, want validation error %d on %s", err, code, field)
	}
}

// userColumn reads one column of a trainee's user row directly.
func userColumn(t *testing.T, s *store.Store, userID int64, column string) string {
	t.Helper()
	var v string
	if err := s.DB().NewSelect().Table("users").ColumnExpr(column).Where("id = ?", userID).Scan(ctx, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// countRows counts rows of a table matching where.
func countRows(t *testing.T, s *store.Store, table, where string, args ...any) int {
	t.Helper()
	n, err := s.DB().NewSelect().Table(table).Where(where, args...).Count(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return int(n)
}
