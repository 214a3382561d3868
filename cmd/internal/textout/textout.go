// Package textout is the one writer of what traineectl and traineed print:
// JSON, YAML, CSV, tables fitted to a terminal and tab-separated lines off
// one. Whatever the data holds (a name stored before the text rules, a
// receiver's response body, a server that is not traineed), nothing it
// writes commands a terminal or reorders what it shows:
//
//   - JSON and YAML keep the data exact: every character a terminal would
//     act on or that reorders text (C0, DEL, C1, the bidirectional
//     formatting characters, the implicit direction marks, U+2028 and
//     U+2029) is written as an escape the format reads back
//     (api.EscapeDocument over the encoder's output);
//   - tables, tab-separated lines and CSV show every cell through
//     api.EscapeText: a newline or a tab of the data shows as \u000a or
//     \u0009, so a value never breaks its row.
package textout

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"io"
	"regexp"
	"slices"
	"strings"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/pkg/twwidth"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"
	"gopkg.in/yaml.v3"

	"github.com/traineed/traineed/api"
)

// MarshalIndent is v as JSON without HTML escaping (prefix and indent as
// json.Encoder's SetIndent takes them; both empty: compact, on one line)
// and without a trailing newline. Strings keep their data exactly; the
// characters encoding/json writes raw that a terminal would act on (DEL,
// C1 controls, bidirectional formatting characters and marks) are written
// as \u escapes (api.EscapeDocument), which JSON reads back as the same
// characters; it escapes C0 characters, U+2028 and U+2029 itself.
func MarshalIndent(v any, prefix, indent string) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent(prefix, indent)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return []byte(api.EscapeDocument(strings.TrimSuffix(b.String(), "\n"))), nil
}

// Marshal is v as compact JSON on one line, escaped as MarshalIndent's.
func Marshal(v any) ([]byte, error) { return MarshalIndent(v, "", "") }

// WriteJSON writes v as JSON indented by two spaces (MarshalIndent) and a
// newline.
func WriteJSON(w io.Writer, v any) error {
	b, err := MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// WriteJSONLine writes v as compact JSON (Marshal) and a newline.
func WriteJSONLine(w io.Writer, v any) error {
	b, err := Marshal(v)
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// WriteYAML writes v as YAML with the field names and order of its JSON.
// Like WriteJSON it keeps the data exactly and writes no character a
// terminal would act on: the encoder escapes C0, DEL and C1 controls
// itself, and a string holding a bidirectional formatting character or
// mark (which YAML counts as printable) or a line or paragraph separator
// is double-quoted, where api.EscapeDocument writes it as a \u escape.
func WriteYAML(w io.Writer, v any) error {
	j, err := Marshal(v) // escaped: the YAML parser refuses raw DEL and C1 controls
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
		if n.Kind == yaml.ScalarNode && api.EscapeDocument(n.Value) != n.Value {
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
	_, err = io.WriteString(w, api.EscapeDocument(b.String()))
	return err
}

// EscapeRow returns the cells of a row through api.EscapeText: what the
// table, tab-separated and CSV formats print, so that no control or
// bidirectional formatting character of the data reaches a terminal
// (they show as \u001b, \u009b, \u202e).
func EscapeRow(r []string) []string {
	out := make([]string, len(r))
	for j, c := range r {
		out[j] = api.EscapeText(c)
	}
	return out
}

func escapeRows(rows [][]string) [][]string {
	out := make([][]string, len(rows))
	for i, r := range rows {
		out[i] = EscapeRow(r)
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
// every cell escaped (EscapeRow).
func WriteCSV(w io.Writer, header []string, rows [][]string) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(EscapeRow(header)); err != nil {
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
	// traineectl's --fields accepts as well as the header ("" when none).
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

// dropEmpty leaves out the columns with no value in any row (every cell
// empty or "-"), the last first, while the table with every cell whole is
// wider than width: an empty column goes before any that says something.
func dropEmpty(cols []Column, rows [][]string, width int) ([]Column, [][]string) {
	for i := len(cols) - 1; i >= 0 && tableWidth(wholeWidths(cols, rows)) > width; i-- {
		empty := len(rows) > 0
		for _, r := range rows {
			if i < len(r) && r[i] != "" && r[i] != "-" {
				empty = false
				break
			}
		}
		if empty {
			cols, rows = dropColumn(cols, rows, i)
		}
	}
	return cols, rows
}

// cutToFit narrows the widest column, one column at a time, until the
// table fits in width (each at least 4 wide: "ab…" and its gap).
func cutToFit(ws []int, width int) {
	for tableWidth(ws) > width {
		widest := -1
		for i, w := range ws {
			if w > 4 && (widest < 0 || w > ws[widest]) {
				widest = i
			}
		}
		if widest < 0 {
			return
		}
		ws[widest]--
	}
}

// dropColumn is the table without column i.
func dropColumn(cols []Column, rows [][]string, i int) ([]Column, [][]string) {
	cols = slices.Delete(slices.Clone(cols), i, i+1)
	cut := make([][]string, len(rows))
	for j, r := range rows {
		cut[j] = r
		if i < len(r) {
			cut[j] = slices.Delete(slices.Clone(r), i, i+1)
		}
	}
	return cols, cut
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
		cols, rows = dropColumn(cols, rows, gone)
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
// never painted, for grep, cut and awk. Cells are escaped (EscapeRow), so
// a tab or a newline of the data shows as \u0009 or \u000a.
func WriteTable(w io.Writer, width int, cols []Column, rows [][]string) error {
	cols = escapeHeaders(cols)
	if width <= 0 {
		return writeTSV(w, cols, rows)
	}
	rows = escapeRows(rows)
	cols, rows = dropEmpty(cols, rows, width)
	cols, rows = dropToFit(cols, rows, width)
	ws := fit(cols, rows, width)
	// Still too wide (no more to drop or shorten): the last columns go,
	// but the first two, rather than a line that wraps mid-cell; then the
	// widest cells are cut.
	for tableWidth(ws) > width && len(cols) > 2 {
		cols, rows = dropColumn(cols, rows, len(cols)-1)
		ws = fit(cols, rows, width)
	}
	cutToFit(ws, width)
	header := make([]any, len(cols))
	for i, c := range cols {
		header[i] = Truncate(c.Header, ws[i])
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
	if err := WriteTSVRows(w, len(cols), [][]string{header}); err != nil {
		return err
	}
	return WriteTSVRows(w, len(cols), rows)
}

// WriteTSVRows writes rows of n cells (missing ones empty), tab-separated
// and escaped (EscapeRow): a table off a terminal, a page at a time.
func WriteTSVRows(w io.Writer, n int, rows [][]string) error {
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
