package tui

import (
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

// cols lays out cells in columns of the given widths (the last one takes
// the rest), cutting what is too long.
func cols(widths []int, cells ...string) string {
	var b strings.Builder
	for i, c := range cells {
		if i < len(widths) {
			c = ansi.Truncate(c, widths[i], "…")
			c += strings.Repeat(" ", max(widths[i]-ansi.StringWidth(c), 0))
			b.WriteString(c + " ")
			continue
		}
		b.WriteString(c)
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
