// Package output prints resources as a table, JSON, YAML or CSV.
package output

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/pkg/twwidth"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"
	"gopkg.in/yaml.v3"

	"github.com/traineed/traineed/api"
)

// Format is an output format of -o.
type Format string

// The formats.
const (
	Table Format = "table"
	JSON  Format = "json"
	YAML  Format = "yaml"
	CSV   Format = "csv"
)

// Formats lists every format, for help and completion.
var Formats = []string{string(Table), string(JSON), string(YAML), string(CSV)}

// ParseFormat checks a -o value.
func ParseFormat(s string) (Format, error) {
	for _, f := range Formats {
		if strings.EqualFold(s, f) {
			return Format(f), nil
		}
	}
	return "", fmt.Errorf("invalid output format %q: use table, json, yaml or csv", s)
}

// WriteJSON writes v as indented JSON and a newline. Strings keep their
// data exactly; the characters encoding/json writes raw that a terminal
// would act on (DEL, C1 controls, bidirectional formatting characters)
// are written as \u escapes (api.EscapeFramed), which JSON reads back as
// the same characters.
func WriteJSON(w io.Writer, v any) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := io.WriteString(w, api.EscapeFramed(b.String()))
	return err
}

// WriteYAML writes v as YAML with the field names and order of its JSON.
// Like WriteJSON it keeps the data exactly and writes no character a
// terminal would act on: the encoder escapes C0, DEL and C1 controls
// itself, and a string holding a bidirectional formatting character (which
// YAML counts as printable) is double-quoted, where api.EscapeFramed
// writes it as a \u escape.
func WriteYAML(w io.Writer, v any) error {
	j, err := marshal(v) // escaped: the YAML parser refuses raw DEL and C1 controls
	if err != nil {
		return err
	}
	var n yaml.Node
	if err := yaml.Unmarshal(j, &n); err != nil {
		return err
	}
	var plain func(*yaml.Node)
	plain = func(n *yaml.Node) {
		n.Style = 0
		if n.Kind == yaml.ScalarNode && api.EscapeFramed(n.Value) != n.Value {
			n.Style = yaml.DoubleQuotedStyle
		}
		for _, c := range n.Content {
			plain(c)
		}
	}
	plain(&n)
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(&n); err != nil {
		return err
	}
	if err := enc.Close(); err != nil {
		return err
	}
	_, err = io.WriteString(w, api.EscapeFramed(b.String()))
	return err
}

// escapeRows returns rows with every cell through api.EscapeText: what the
// table, tab-separated and CSV formats print, so that no control or
// bidirectional formatting character of the data reaches a terminal
// (they show as \u001b, \u009b, \u202e).
func escapeRows(rows [][]string) [][]string {
	out := make([][]string, len(rows))
	for i, r := range rows {
		out[i] = make([]string, len(r))
		for j, c := range r {
			out[i][j] = api.EscapeText(c)
		}
	}
	return out
}

// escapeHeaders returns cols with their headers escaped like cells: a
// header may hold data (the unit of a weight history).
func escapeHeaders(cols []Column) []Column {
	out := slices.Clone(cols)
	for i := range out {
		out[i].Header = api.EscapeText(out[i].Header)
	}
	return out
}

// WriteCSV writes a header row and the rows (nil: the header alone),
// every cell escaped (escapeRows).
func WriteCSV(w io.Writer, header []string, rows [][]string) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(escapeRows([][]string{header})[0]); err != nil {
		return err
	}
	if err := cw.WriteAll(escapeRows(rows)); err != nil {
		return err
	}
	cw.Flush()
	return cw.Error()
}

// Column is a table column.
type Column struct {
	Header string
	// Field is the JSON (and CSV) name of the column's value, which
	// --fields accepts as well as the header ("" when none).
	Field string
	// Flex columns are shortened (with "…") when the table is wider than
	// the screen; the others are never cut.
	Flex bool
	// MinWidth is the narrowest a flex column gets (default 8).
	MinWidth int
	// Drop marks a column that goes when the table, every column whole,
	// is wider than the screen: the lowest Drop first, before any flex
	// column is shortened (0: never; --fields keeps what it names).
	Drop int
	// Right aligns numbers.
	Right bool
	// Paint colours a cell after it is fitted (nil: none).
	Paint func(cell string) string
}

const columnGap = 2

// Truncate shortens s to at most w display columns, ending in "…" when cut.
func Truncate(s string, w int) string {
	if twwidth.Width(s) <= w {
		return s
	}
	if w <= 0 {
		return ""
	}
	var b strings.Builder
	used := 0
	for _, r := range s {
		rw := twwidth.Width(string(r))
		if used+rw > w-1 {
			break
		}
		b.WriteRune(r)
		used += rw
	}
	return b.String() + "…"
}

// wholeWidths are the widths of the columns with every cell whole.
func wholeWidths(cols []Column, rows [][]string) []int {
	ws := make([]int, len(cols))
	for i, c := range cols {
		ws[i] = twwidth.Width(c.Header)
		for _, r := range rows {
			if i < len(r) {
				ws[i] = max(ws[i], twwidth.Width(r[i]))
			}
		}
	}
	return ws
}

// tableWidth is the width of a table of columns this wide.
func tableWidth(ws []int) int {
	t := columnGap * (len(ws) - 1)
	for _, w := range ws {
		t += w
	}
	return t
}

// dropToFit leaves out the columns that may go (Drop), the lowest Drop
// first, while the table with every cell whole is wider than width.
func dropToFit(cols []Column, rows [][]string, width int) ([]Column, [][]string) {
	for tableWidth(wholeWidths(cols, rows)) > width {
		gone := -1
		for i, c := range cols {
			if c.Drop > 0 && (gone < 0 || c.Drop < cols[gone].Drop) {
				gone = i
			}
		}
		if gone < 0 {
			break
		}
		cols = slices.Delete(slices.Clone(cols), gone, gone+1)
		cut := make([][]string, len(rows))
		for i, r := range rows {
			cut[i] = r
			if gone < len(r) {
				cut[i] = slices.Delete(slices.Clone(r), gone, gone+1)
			}
		}
		rows = cut
	}
	return cols, rows
}

// fit returns the column widths, shrinking flex columns until the table
// fits in width.
func fit(cols []Column, rows [][]string, width int) []int {
	ws := wholeWidths(cols, rows)
	for tableWidth(ws) > width {
		widest := -1
		for i, c := range cols {
			minw := c.MinWidth
			if minw == 0 {
				minw = 8
			}
			if c.Flex && ws[i] > minw && (widest < 0 || ws[i] > ws[widest]) {
				widest = i
			}
		}
		if widest < 0 {
			break
		}
		ws[widest]--
	}
	return ws
}

var (
	trailing = regexp.MustCompile(`[ ]+(\x1b\[0m)?\n`)
	// strayReset is a reset tablewriter adds after the padding of a
	// painted cell, which already ends in one.
	strayReset = regexp.MustCompile(`(\x1b\[0m)( +)\x1b\[0m`)
)

// WriteTable writes a borderless table fitted to width columns: a header
// row and the rows, columns two spaces apart; the columns that may go
// (Drop) go first, then flex columns are shortened. A width of 0 or less (not a
// terminal) writes whole values instead, tab-separated, header first and
// never painted, for grep, cut and awk. Cells are escaped (escapeRows), so
// a tab or a newline of the data shows as \u0009 or \u000a.
func WriteTable(w io.Writer, width int, cols []Column, rows [][]string) error {
	cols = escapeHeaders(cols)
	if width <= 0 {
		return writeTSV(w, cols, rows)
	}
	rows = escapeRows(rows)
	cols, rows = dropToFit(cols, rows, width)
	ws := fit(cols, rows, width)
	header := make([]any, len(cols))
	for i, c := range cols {
		header[i] = c.Header
	}
	aligns := make([]tw.Align, len(cols))
	for i, c := range cols {
		aligns[i] = tw.AlignLeft
		if c.Right {
			aligns[i] = tw.AlignRight
		}
	}
	pad := tw.CellPadding{Global: tw.Padding{Left: "", Right: strings.Repeat(" ", columnGap), Overwrite: true}}
	var buf bytes.Buffer
	t := tablewriter.NewTable(&buf,
		tablewriter.WithRenderer(renderer.NewBlueprint(tw.Rendition{
			Borders:  tw.BorderNone,
			Settings: tw.Settings{Separators: tw.SeparatorsNone, Lines: tw.LinesNone},
		})),
		tablewriter.WithConfig(tablewriter.Config{
			Header: tw.CellConfig{
				Formatting: tw.CellFormatting{AutoFormat: tw.Off, AutoWrap: tw.WrapNone},
				Alignment:  tw.CellAlignment{PerColumn: aligns},
				Padding:    pad,
			},
			Row: tw.CellConfig{
				Formatting: tw.CellFormatting{AutoWrap: tw.WrapNone},
				Alignment:  tw.CellAlignment{PerColumn: aligns},
				Padding:    pad,
			},
		}),
		tablewriter.WithTrimSpace(tw.Off),
	)
	t.Header(header...)
	for _, r := range rows {
		cells := make([]any, len(cols))
		for i, c := range cols {
			s := ""
			if i < len(r) {
				s = Truncate(r[i], ws[i])
			}
			if c.Paint != nil {
				s = c.Paint(s)
			}
			cells[i] = s
		}
		if err := t.Append(cells...); err != nil {
			return err
		}
	}
	if err := t.Render(); err != nil {
		return err
	}
	text := strayReset.ReplaceAllString(buf.String(), "$1$2")
	_, err := io.WriteString(w, trailing.ReplaceAllString(text, "$1\n"))
	return err
}

func writeTSV(w io.Writer, cols []Column, rows [][]string) error {
	header := make([]string, len(cols))
	for i, c := range cols {
		header[i] = c.Header
	}
	if err := writeTSVRows(w, len(cols), [][]string{header}); err != nil {
		return err
	}
	return writeTSVRows(w, len(cols), rows)
}

// writeTSVRows writes rows of n cells (missing ones empty), tab-separated
// and escaped.
func writeTSVRows(w io.Writer, n int, rows [][]string) error {
	var b strings.Builder
	for _, r := range escapeRows(rows) {
		for i := range n {
			if i > 0 {
				b.WriteByte('\t')
			}
			if i < len(r) {
				b.WriteString(r[i])
			}
		}
		b.WriteByte('\n')
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// Count is "1 event" or "N events": n and the noun, singular or plural
// (many is the plural: "deliveries").
func Count[N ~int | ~int64](n N, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// zone is where Stamp shows instants: local, or UTC with --utc.
var zone atomic.Pointer[time.Location]

// SetZone sets where Stamp shows instants (the root command does, from
// --utc, at every run).
func SetZone(loc *time.Location) { zone.Store(loc) }

// Stamp is an instant as tables and notes show it: api.ShownTimeLayout in
// the zone SetZone chose (local by default).
func Stamp(t time.Time) string {
	loc := zone.Load()
	if loc == nil {
		loc = time.Local
	}
	return t.In(loc).Format(api.ShownTimeLayout)
}

// Instant is an instant as CSV writes it: RFC 3339 in UTC, as JSON and
// YAML do.
func Instant(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }
