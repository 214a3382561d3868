package store_test

import (
	"context"
	"errors"
	"testing"

	"github.com/traineed/traineed/api"
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

// errorCode is the first errorCode of a validation or state error, 0 for
// any other error or none.
func errorCode(err error) int {
	var v *api.ValidationError
	var cs *api.ConflictStateError
	switch {
	case errors.As(err, &v) && len(v.Errors) > 0:
		return v.Errors[0].ErrorCode
	case errors.As(err, &cs):
		return cs.Code
	}
	return 0
}
