package chart

import (
	"fmt"
	"math"
	"time"

	"github.com/NimbleMarkets/ntcharts/v2/linechart/timeserieslinechart"
	"github.com/NimbleMarkets/ntcharts/v2/sparkline"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/tui/components/layout"
	"github.com/traineed/traineed/tui/components/theme"
)

// WeightChart draws the weight history over its whole range with
// ntcharts' time-series line chart (arc line runes, one averaged value per
// column: they read better than braille dots and need no braille font).
func WeightChart(wh *api.WeightHistory, w, h int, th theme.Theme) string {
	lo, hi := wh.Entries[0].Weight, wh.Entries[0].Weight
	for _, e := range wh.Entries {
		lo, hi = math.Min(lo, e.Weight), math.Max(hi, e.Weight)
	}
	yLo, yHi, every := YTicks(lo, hi, h-2)
	from, to := wh.From.Time(), wh.To.Time()
	if !to.After(from) {
		to = from.Add(24 * time.Hour)
	}
	c := timeserieslinechart.New(w, h,
		timeserieslinechart.WithTimeRange(from, to),
		timeserieslinechart.WithYRange(yLo, yHi),
		timeserieslinechart.WithXLabelFormatter(func(_ int, v float64) string {
			return time.Unix(int64(math.Round(v)), 0).UTC().Format("02 Jan")
		}),
		timeserieslinechart.WithYLabelFormatter(func(i int, v float64) string {
			if i%every != 0 { // ntcharts labels the top row too: a tick only
				return ""
			}
			return fmt.Sprintf("%.1f", v)
		}),
		timeserieslinechart.WithAxesStyles(th.Dim, th.Dim),
		timeserieslinechart.WithStyle(th.ChartLine),
		timeserieslinechart.WithXYSteps(2, every),
	)
	for _, e := range wh.Entries {
		c.Push(timeserieslinechart.TimePoint{Time: e.Date.Time(), Value: e.Weight})
	}
	c.Draw()
	return c.View()
}

// tickSteps are the round steps of the weight axis, smallest first.
var TickSteps = []float64{0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50, 100, 200, 500}

// YTicks chooses the weight axis of a chart whose plot has rows rows
// for values from lo to hi: its range [yLo, yHi] and a label every
// `every` rows, such that the labels are even, round values (multiples
// of a step of tickSteps: 64.0, 64.5, 65.0) and the axis does not run
// past the data by more than one step at either end. The chart labels
// row i with yLo + i*(yHi-yLo)/rows.
func YTicks(lo, hi float64, rows int) (yLo, yHi float64, every int) {
	rows = max(rows, 1)
	for _, s := range TickSteps {
		base := math.Floor(lo/s+1e-9) * s
		// Fewest rows per label first is the densest axis; one label
		// every row is crowded, so it comes last.
		for _, k := range append(rangeInts(2, rows), 1) {
			top := base + s*float64(rows)/float64(k)
			if top+1e-9 >= hi && top-hi <= s+1e-9 {
				return base, top, k
			}
		}
	}
	return lo, hi + 1, 2 // beyond every step: not reached for weights
}

// rangeInts is from, from+1, ..., to.
func rangeInts(from, to int) []int {
	var out []int
	for i := from; i <= to; i++ {
		out = append(out, i)
	}
	return out
}

// Spark draws values as a one-line sparkline of at most w cells (the
// latest values), scaled between their minimum and maximum so that small
// changes show, padded to w.
func Spark(values []float64, w int, th theme.Theme) string {
	pad := w
	w = min(max(len(values), 1), w)
	lo, hi := values[0], values[0]
	for _, v := range values {
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	sl := sparkline.New(w, 1, sparkline.WithStyle(th.ChartLine))
	span := hi - lo
	for _, v := range values {
		if span == 0 {
			sl.Push(1)
		} else {
			sl.Push((v-lo)/span + 0.15)
		}
	}
	sl.Draw()
	return layout.PadRight(sl.View(), pad)
}
