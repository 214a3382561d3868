package layout

import (
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/tui/components/theme"
)

// The layout component: how the pages lay text out in cells (columns,
// padding, cutting, centring, tabs), the same on every page.

// TitleBar lays out left and right on one line of width w.
func TitleBar(w int, left, right string) string {
	gap := w - ansi.StringWidth(left) - ansi.StringWidth(right)
	if gap < 1 {
		return left + " " + right
	}
	return left + strings.Repeat(" ", gap) + right
}

// PlaceCenter centres block in a w×h area.
func PlaceCenter(block string, w, h int) string {
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

// TabLabel renders one tab: the active one bracketed, so that it shows on
// a terminal without colour and in a plain-text capture.
func TabLabel(th theme.Theme, name string, active bool) string {
	if active {
		return th.Accent.Render("[" + name + "]")
	}
	return th.Tab.Render(" " + name + " ")
}

// PadRight pads s with spaces to w cells.
func PadRight(s string, w int) string {
	if n := ansi.StringWidth(s); n < w {
		return s + strings.Repeat(" ", w-n)
	}
	return s
}

// PadLeft pads s with spaces on the left to w cells.
func PadLeft(s string, w int) string {
	if n := ansi.StringWidth(s); n < w {
		return strings.Repeat(" ", w-n) + s
	}
	return s
}

// Trunc cuts s to w cells with an ellipsis.
func Trunc(s string, w int) string {
	return ansi.Truncate(s, w, "…")
}

func Indent(s string, n int) string {
	p := strings.Repeat(" ", n)
	return p + strings.ReplaceAll(s, "\n", "\n"+p)
}

func Clamp(v, lo, hi int) int {
	if hi < lo {
		return lo
	}
	return min(max(v, lo), hi)
}

func DateOrDash(d *api.Date) string {
	if d == nil {
		return "-"
	}
	return d.String()
}

// Fitter cuts the frame's lines to the screen's width. Measuring a line
// costs more than drawing it, so lines seen to fit are remembered (until a
// resize).
type Fitter struct {
	width int
	fits  map[string]bool
}

func (f *Fitter) Resize(w int) { f.width, f.fits = w, map[string]bool{} }

// Fit cuts a line to the width.
func (f *Fitter) Fit(s string) string {
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

// WrapWords wraps s at spaces to lines of w cells; a word longer than a
// line is broken (never at a hyphen, unlike ansi.Wordwrap: dates stay
// whole).
func WrapWords(s string, w int) []string {
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

// Plural is n and the noun, plural unless n is 1: "1 trainee", "2
// trainees", "3 marked trainees" (nouns ending in s, x or h take "es").
func Plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	if strings.HasSuffix(noun, "s") || strings.HasSuffix(noun, "x") || strings.HasSuffix(noun, "ch") || strings.HasSuffix(noun, "sh") {
		return strconv.Itoa(n) + " " + noun + "es"
	}
	return strconv.Itoa(n) + " " + noun + "s"
}
