package table

import (
	"slices"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/traineed/traineed/tui/components/layout"
)

// ColSpec is one column of a table that fits its width: it shrinks down
// to min cells (cut with "…") and grows up to max (0: the column takes
// what is left); when even the minimums do not fit, the columns with the
// highest drop go first (0: never dropped).
type ColSpec struct {
	title    string
	Min, Max int
	drop     int
}

// Col is a column: its title, its minimum and maximum widths and when it
// drops (colSpec).
func Col(title string, min, max, drop int) ColSpec {
	return ColSpec{title: title, Min: min, Max: max, drop: drop}
}

// table lays out rows of cells in columns fitted to a width (fitCols).
type table struct {
	specs  []ColSpec
	widths []int // 0: dropped
}

// FitCols fits specs to w cells (a space between columns).
func FitCols(w int, specs []ColSpec) table {
	t := table{specs: specs, widths: make([]int, len(specs))}
	shown := shownCols(w, specs)
	spare := max(w-colsNeed(specs, shown), 0)
	last := -1
	for i, s := range specs {
		if shown[i] {
			t.widths[i] = s.Min
			last = i
		}
	}
	spare = t.grow(shown, spare)
	if last >= 0 && specs[last].Max == 0 {
		t.widths[last] += spare
	}
	return t
}

// colsNeed is the width the shown columns need at their minimums.
func colsNeed(specs []ColSpec, shown []bool) int {
	n := 0
	for i, s := range specs {
		if shown[i] {
			n += s.Min + 1
		}
	}
	return n
}

// shownCols drops the columns of highest drop until the minimums fit w
// (or none is left to drop).
func shownCols(w int, specs []ColSpec) []bool {
	shown := make([]bool, len(specs))
	for i := range shown {
		shown[i] = true
	}
	for colsNeed(specs, shown) > w {
		worst := -1
		for i, s := range specs {
			if shown[i] && s.drop > 0 && (worst < 0 || s.drop > specs[worst].drop) {
				worst = i
			}
		}
		if worst < 0 {
			break
		}
		shown[worst] = false
	}
	return shown
}

// grow widens the shown columns that have a maximum one cell at a time,
// in turn, while spare lasts; it returns what is left.
func (t table) grow(shown []bool, spare int) int {
	for grew := true; spare > 0 && grew; {
		grew = false
		for i, s := range t.specs {
			if spare > 0 && shown[i] && s.Max > 0 && t.widths[i] < s.Max {
				t.widths[i]++
				spare--
				grew = true
			}
		}
	}
	return spare
}

// ContentCols narrows specs to the rows' content: a column that grows to
// a maximum grows no wider than its widest cell (or its title), so that
// the column taking what is left (max 0) gets the rest.
func ContentCols(specs []ColSpec, rows [][]string) []ColSpec {
	out := slices.Clone(specs)
	for i := range out {
		if out[i].Max == 0 {
			continue
		}
		widest := ansi.StringWidth(out[i].title)
		for _, r := range rows {
			if i < len(r) {
				widest = max(widest, ansi.StringWidth(r[i]))
			}
		}
		out[i].Min = min(out[i].Min, widest)
		out[i].Max = min(out[i].Max, widest)
	}
	return out
}

// Header is the line of the columns' titles.
func (t table) Header() string {
	cells := make([]string, len(t.specs))
	for i, s := range t.specs {
		cells[i] = s.title
	}
	return t.Row(cells...)
}

// Row lays cells out in the shown columns, each cut with "…" and padded.
func (t table) Row(cells ...string) string {
	var b strings.Builder
	first := true
	for i, c := range cells {
		if i >= len(t.widths) || t.widths[i] == 0 {
			continue
		}
		if !first {
			b.WriteString(" ")
		}
		first = false
		b.WriteString(layout.PadRight(ansi.Truncate(c, t.widths[i], "…"), t.widths[i]))
	}
	return b.String()
}
