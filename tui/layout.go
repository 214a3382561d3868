package tui

import (
	"slices"
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/traineed/traineed/api"
)

// The layout component: how the pages lay text out in cells (columns,
// padding, cutting, centring, tabs), the same on every page.

// titleBar lays out left and right on one line of width w.
func titleBar(w int, left, right string) string {
	gap := w - ansi.StringWidth(left) - ansi.StringWidth(right)
	if gap < 1 {
		return left + " " + right
	}
	return left + strings.Repeat(" ", gap) + right
}

// placeCenter centres block in a w×h area.
func placeCenter(block string, w, h int) string {
	lines := strings.Split(block, "\n")
	bw := 0
	for _, l := range lines {
		bw = max(bw, ansi.StringWidth(l))
	}
	pad := strings.Repeat(" ", max((w-bw)/2, 0))
	top := max((h-len(lines))/2, 0)
	var b strings.Builder
	b.WriteString(strings.Repeat("\n", top))
	for i, l := range lines {
		if i > 0 {
			b.WriteString("\n")
		}
		b.WriteString(pad + l)
	}
	return b.String()
}

// tabLabel renders one tab: the active one bracketed, so that it shows on
// a terminal without colour and in a plain-text capture.
func tabLabel(th theme, name string, active bool) string {
	if active {
		return th.accent.Render("[" + name + "]")
	}
	return th.tab.Render(" " + name + " ")
}

// padRight pads s with spaces to w cells.
func padRight(s string, w int) string {
	if n := ansi.StringWidth(s); n < w {
		return s + strings.Repeat(" ", w-n)
	}
	return s
}

// padLeft pads s with spaces on the left to w cells.
func padLeft(s string, w int) string {
	if n := ansi.StringWidth(s); n < w {
		return strings.Repeat(" ", w-n) + s
	}
	return s
}

// trunc cuts s to w cells with an ellipsis.
func trunc(s string, w int) string {
	return ansi.Truncate(s, w, "…")
}

func indent(s string, n int) string {
	p := strings.Repeat(" ", n)
	return p + strings.ReplaceAll(s, "\n", "\n"+p)
}

func clamp(v, lo, hi int) int {
	if hi < lo {
		return lo
	}
	return min(max(v, lo), hi)
}

func dateOrDash(d *api.Date) string {
	if d == nil {
		return "-"
	}
	return d.String()
}

// fitter cuts the frame's lines to the screen's width. Measuring a line
// costs more than drawing it, so lines seen to fit are remembered (until a
// resize).
type fitter struct {
	width int
	fits  map[string]bool
}

func (f *fitter) resize(w int) { f.width, f.fits = w, map[string]bool{} }

// fit cuts a line to the width.
func (f *fitter) fit(s string) string {
	if len(s) <= f.width || f.fits[s] {
		return s
	}
	if ansi.StringWidth(s) <= f.width {
		if len(f.fits) > 4096 {
			clear(f.fits)
		}
		f.fits[s] = true
		return s
	}
	return ansi.Truncate(s, f.width, "…")
}

// colSpec is one column of a table that fits its width: it shrinks down
// to min cells (cut with "…") and grows up to max (0: the column takes
// what is left); when even the minimums do not fit, the columns with the
// highest drop go first (0: never dropped).
type colSpec struct {
	title    string
	min, max int
	drop     int
}

// col is a column: its title, its minimum and maximum widths and when it
// drops (colSpec).
func col(title string, min, max, drop int) colSpec {
	return colSpec{title: title, min: min, max: max, drop: drop}
}

// table lays out rows of cells in columns fitted to a width (fitCols).
type table struct {
	specs  []colSpec
	widths []int // 0: dropped
}

// fitCols fits specs to w cells (a space between columns).
func fitCols(w int, specs []colSpec) table {
	t := table{specs: specs, widths: make([]int, len(specs))}
	shown := shownCols(w, specs)
	spare := max(w-colsNeed(specs, shown), 0)
	last := -1
	for i, s := range specs {
		if shown[i] {
			t.widths[i] = s.min
			last = i
		}
	}
	spare = t.grow(shown, spare)
	if last >= 0 && specs[last].max == 0 {
		t.widths[last] += spare
	}
	return t
}

// colsNeed is the width the shown columns need at their minimums.
func colsNeed(specs []colSpec, shown []bool) int {
	n := 0
	for i, s := range specs {
		if shown[i] {
			n += s.min + 1
		}
	}
	return n
}

// shownCols drops the columns of highest drop until the minimums fit w
// (or none is left to drop).
func shownCols(w int, specs []colSpec) []bool {
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
			if spare > 0 && shown[i] && s.max > 0 && t.widths[i] < s.max {
				t.widths[i]++
				spare--
				grew = true
			}
		}
	}
	return spare
}

// contentCols narrows specs to the rows' content: a column that grows to
// a maximum grows no wider than its widest cell (or its title), so that
// the column taking what is left (max 0) gets the rest.
func contentCols(specs []colSpec, rows [][]string) []colSpec {
	out := slices.Clone(specs)
	for i := range out {
		if out[i].max == 0 {
			continue
		}
		widest := ansi.StringWidth(out[i].title)
		for _, r := range rows {
			if i < len(r) {
				widest = max(widest, ansi.StringWidth(r[i]))
			}
		}
		out[i].min = min(out[i].min, widest)
		out[i].max = min(out[i].max, widest)
	}
	return out
}

// header is the line of the columns' titles.
func (t table) header() string {
	cells := make([]string, len(t.specs))
	for i, s := range t.specs {
		cells[i] = s.title
	}
	return t.row(cells...)
}

// row lays cells out in the shown columns, each cut with "…" and padded.
func (t table) row(cells ...string) string {
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
		b.WriteString(padRight(ansi.Truncate(c, t.widths[i], "…"), t.widths[i]))
	}
	return b.String()
}

// wrapWords wraps s at spaces to lines of w cells; a word longer than a
// line is broken (never at a hyphen, unlike ansi.Wordwrap: dates stay
// whole).
func wrapWords(s string, w int) []string {
	var lines []string
	line := ""
	for _, word := range strings.Fields(s) {
		switch {
		case line == "":
			line = word
		case ansi.StringWidth(line)+1+ansi.StringWidth(word) <= w:
			line += " " + word
		default:
			lines = append(lines, line)
			line = word
		}
		for ansi.StringWidth(line) > w {
			lines = append(lines, ansi.Cut(line, 0, w))
			line = ansi.Cut(line, w, ansi.StringWidth(line))
		}
	}
	if line != "" || len(lines) == 0 {
		lines = append(lines, line)
	}
	return lines
}

// plural is n and the noun, plural unless n is 1: "1 trainee", "2
// trainees", "3 marked trainees" (nouns ending in s, x or h take "es").
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	if strings.HasSuffix(noun, "s") || strings.HasSuffix(noun, "x") || strings.HasSuffix(noun, "ch") || strings.HasSuffix(noun, "sh") {
		return strconv.Itoa(n) + " " + noun + "es"
	}
	return strconv.Itoa(n) + " " + noun + "s"
}
