package chart

import (
	"math"
	"testing"
)

// The weight axis: every label is a multiple of one round step (0.1,
// 0.2, 0.5, 1, 2, 5...), the lowest at or under the data and the axis's
// top at or over it, neither further than one step from the data.
func TestWeightAxisTicksAreEvenAndRound(t *testing.T) {
	for _, c := range []struct{ lo, hi float64 }{
		{63.0, 65.0}, {63.3, 63.3}, {50, 90}, {63.05, 64.95}, {100.2, 100.9}, {48.7, 112.4}, {70.04, 70.06},
	} {
		for _, rows := range []int{6, 9, 14, 20, 31} {
			lo, hi, every := YTicks(c.lo, c.hi, rows)
			step := (hi - lo) / float64(rows) * float64(every)
			round := false
			for _, s := range TickSteps {
				round = round || math.Abs(step-s) < 1e-9
			}
			if !round {
				t.Errorf("%v over %d rows: step %g is not round", c, rows, step)
			}
			if r := math.Mod(lo/step, 1); r > 1e-6 && r < 1-1e-6 {
				t.Errorf("%v over %d rows: the lowest label %g is not a multiple of %g", c, rows, lo, step)
			}
			if lo > c.lo+1e-9 || c.lo-lo >= step+1e-9 || hi < c.hi-1e-9 || hi-c.hi > step+1e-9 {
				t.Errorf("%v over %d rows: axis %g..%g, step %g", c, rows, lo, hi, step)
			}
		}
	}
}
