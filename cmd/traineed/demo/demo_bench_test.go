package demo_test

import (
	"testing"
	"time"

	"github.com/traineed/traineed/cmd/traineed/demo"
	"github.com/traineed/traineed/store"
	"github.com/traineed/traineed/store/storetest"
)

// BenchmarkLoadDemo loads the demo data set (60 trainees with a year of
// tracked data) into a fresh database per iteration; `serve --demo` and
// the tests pay this once per empty database:
//
//	go test -run '^$' -bench LoadDemo -benchtime 5x ./store/
func BenchmarkLoadDemo(b *testing.B) {
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		name string
		open func(testing.TB) *store.Store
	}{{"sqlite", storetest.SQLite}, {"postgres", storetest.Postgres}} {
		b.Run(c.name, func(b *testing.B) {
			for range b.N {
				b.StopTimer()
				s := c.open(b)
				b.StartTimer()
				if _, _, err := demo.Load(ctx, s, "$argon2id$bench", now); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
