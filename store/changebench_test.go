package store_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/store"
)

// changeSide is one side of a benchmark that compares what a store
// configuration adds to a trainee change: a store, a company with a
// trainee to rename, and how long each change took.
type changeSide struct {
	s                *store.Store
	company, trainee int64
	took             []time.Duration
}

// change creates a trainee (op "create") or renames the side's trainee to
// a name numbered i (any other op), and records how long it took.
func (x *changeSide) change(b *testing.B, op string, i int) {
	start := time.Now()
	var err error
	if op == "create" {
		_, err = x.s.CreateTrainee(ctx, x.company, benchTrainee())
	} else {
		_, err = x.s.UpdateTrainee(ctx, x.company, x.trainee, api.TraineePatch{Name: api.Val(fmt.Sprintf("Renamed Trainee %d", i))})
	}
	if err != nil {
		b.Fatal(err)
	}
	x.took = append(x.took, time.Since(start))
}

// medianMicros is the median of d in µs; it sorts d.
func medianMicros(d []time.Duration) float64 {
	slices.Sort(d)
	return float64(d[len(d)/2].Nanoseconds()) / 1000
}
