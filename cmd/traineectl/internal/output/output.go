// Package output prints resources as a table, JSON, YAML or CSV.
package output

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/pkg/twwidth"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"
	"gopkg.in/yaml.v3"
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

// WriteJSON writes v as indented JSON and a newline.
func WriteJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// WriteYAML writes v as YAML with the field names and order of its JSON.
func WriteYAML(w io.Writer, v any) error {
	j, err := json.Marshal(v)
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
		for _, c := range n.Content {
			plain(c)
		}
	}
	plain(&n)
	enc := yaml.NewEncoder(w)
	enc.SetIndent(2)
	if err := enc.Encode(&n); err != nil {
		return err
	}
	return enc.Close()
}

// WriteCSV writes a header row and the rows.
func WriteCSV(w io.Writer, header []string, rows [][]string) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(header); err != nil {
		return err
	}
	if err := cw.WriteAll(rows); err != nil {
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

// fit returns the column widths, shrinking flex columns until the table
// fits in width.
func fit(cols []Column, rows [][]string, width int) []int {
	ws := make([]int, len(cols))
	for i, c := range cols {
		ws[i] = twwidth.Width(c.Header)
		for _, r := range rows {
			if i < len(r) {
				ws[i] = max(ws[i], twwidth.Width(r[i]))
			}
		}
	}
	total := func() int {
		t := columnGap * (len(ws) - 1)
		for _, w := range ws {
			t += w
		}
		return t
	}
	for total() > width {
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
	tsvBlank   = strings.NewReplacer("\t", " ", "\n", " ", "\r", " ")
)

// WriteTable writes a borderless table fitted to width columns: a header
// row and the rows, columns two spaces apart. A width of 0 or less (not a
// terminal) writes whole values instead, tab-separated, header first and
// never painted, for grep, cut and awk.
func WriteTable(w io.Writer, width int, cols []Column, rows [][]string) error {
	if width <= 0 {
		return writeTSV(w, cols, rows)
	}
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

// writeTSVRows writes rows of n cells (missing ones empty), tab-separated.
func writeTSVRows(w io.Writer, n int, rows [][]string) error {
	var b strings.Builder
	for _, r := range rows {
		for i := range n {
			if i > 0 {
				b.WriteByte('\t')
			}
			if i < len(r) {
				b.WriteString(tsvBlank.Replace(r[i]))
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
