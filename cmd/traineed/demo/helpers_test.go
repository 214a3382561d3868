package demo_test

import (
	"context"
	"testing"

	"github.com/traineed/traineed/api"
)

var ctx = context.Background()

func date(t testing.TB, s string) api.Date {
	t.Helper()
	d, err := api.ParseDate(s)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func names(ts []*api.Trainee) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.Name
	}
	return out
}
