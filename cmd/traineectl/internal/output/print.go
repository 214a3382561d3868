package output

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/template"

	"github.com/itchyny/gojq"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/cmd/internal/textout"
	"github.com/traineed/traineed/cmd/traineectl/internal/iostreams"
)

// Options are how a result prints: the -o format, and --jq, --template
// and --fields, which every command that prints data takes from here.
type Options struct {
	Format   Format
	JQ       string   // --jq: a jq expression over the JSON result
	Template string   // --template: a Go template over the JSON result
	Fields   []string // --fields: the table or CSV columns to print
}

// Check refuses options that cannot go together, a jq expression that
// does not compile and a template that does not parse, before anything is
// sent.
func (o Options) Check() error {
	switch {
	case o.JQ != "" && o.Template != "":
		return errors.New("--jq and --template cannot be used together")
	case (o.JQ != "" || o.Template != "") && o.Format != Table && o.Format != JSON:
		return fmt.Errorf("--jq and --template work on the JSON result: they cannot be used with -o %s", o.Format)
	case len(o.Fields) > 0 && (o.JQ != "" || o.Template != ""):
		return errors.New("--fields selects table and csv columns: it cannot be used with --jq or --template")
	case len(o.Fields) > 0 && o.Format != Table && o.Format != CSV:
		return fmt.Errorf("--fields selects table and csv columns: with -o %s use --jq to pick fields", o.Format)
	}
	for _, f := range o.Fields {
		if strings.TrimSpace(f) == "" {
			return errors.New("--fields: an empty field name")
		}
	}
	if o.JQ != "" {
		if _, err := compileJQ(o.JQ); err != nil {
			return err
		}
	}
	if o.Template != "" {
		if _, err := parseTemplate(o.Template); err != nil {
			return err
		}
	}
	return nil
}

// View is one result in every format.
type View struct {
	// Value is the result as JSON and YAML, and what --jq and --template
	// read.
	Value     any
	CSVHeader []string
	CSVRows   [][]string
	// Columns and Rows are the table; when Columns is nil the table
	// format prints Text instead (nil: nothing on stdout).
	Columns []Column
	Rows    [][]string
	Text    func(w io.Writer) error
	// Note goes to stderr before the table, on a terminal only.
	Note string
}

// Print prints v as o says.
func Print(ios *iostreams.IOStreams, o Options, v View) error {
	switch {
	case o.JQ != "":
		return writeJQ(ios.Out, o.JQ, v.Value)
	case o.Template != "":
		return writeTemplate(ios.Out, o.Template, v.Value)
	}
	switch o.Format {
	case JSON:
		return textout.WriteJSON(ios.Out, v.Value)
	case YAML:
		return textout.WriteYAML(ios.Out, v.Value)
	case CSV:
		header, rows, err := selectFields(o.Fields, v.CSVHeader, v.CSVRows, v.CSVHeader)
		if err != nil {
			return err
		}
		return textout.WriteCSV(ios.Out, header, rows)
	}
	if v.Columns == nil {
		if len(o.Fields) > 0 {
			return &FieldsError{"--fields: this result has no table columns; use -o csv or --jq"}
		}
		if v.Text == nil {
			return nil
		}
		return v.Text(ios.Out)
	}
	cols, rows := v.Columns, v.Rows
	if len(o.Fields) > 0 {
		names := make([]string, len(cols))
		alt := make([]string, len(cols))
		for i, c := range cols {
			names[i], alt[i] = c.Header, c.Field
		}
		idx, err := fieldIndexes(o.Fields, names, alt)
		if err != nil {
			return err
		}
		cols = pick(cols, idx)
		rows = pickRows(rows, idx)
		for i := range cols {
			cols[i].Drop = 0 // named: kept
		}
	}
	if ios.StdoutTTY && v.Note != "" {
		fmt.Fprintln(ios.ErrOut, api.EscapeText(v.Note))
	}
	return textout.WriteTable(ios.Out, ios.TableWidth(), cols, rows)
}

// FieldsError is a --fields that names no column of the result: a usage
// error, found once the result is known.
type FieldsError struct{ msg string }

func (e *FieldsError) Error() string { return e.msg }

// normField is a column's name as --fields matches it: case, blanks,
// "-" and "_" do not count, so "phone", "PHONE" and "phone_number" all
// name the PHONE column when it is the phoneNumber field.
func normField(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if r != ' ' && r != '-' && r != '_' && r != '(' && r != ')' {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// fieldIndexes maps each field to a column of names (the table's headers
// or the CSV's field names), else of alt (the table columns' JSON field
// names).
func fieldIndexes(fields, names, alt []string) ([]int, error) {
	var idx []int
	for _, f := range fields {
		want := normField(f)
		found := -1
		for i, n := range names {
			if normField(n) == want {
				found = i
				break
			}
		}
		if found < 0 {
			for i, n := range alt {
				if n != "" && normField(n) == want {
					found = i
					break
				}
			}
		}
		if found < 0 {
			return nil, &FieldsError{fmt.Sprintf("--fields: no field %q: use %s", strings.TrimSpace(f), strings.Join(lower(names), ", "))}
		}
		idx = append(idx, found)
	}
	return idx, nil
}

func lower(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = strings.ToLower(s)
	}
	return out
}

func selectFields(fields, header []string, rows [][]string, names []string) ([]string, [][]string, error) {
	if len(fields) == 0 {
		return header, rows, nil
	}
	idx, err := fieldIndexes(fields, names, nil)
	if err != nil {
		return nil, nil, err
	}
	return pick(header, idx), pickRows(rows, idx), nil
}

func pick[T any](s []T, idx []int) []T {
	out := make([]T, len(idx))
	for i, j := range idx {
		if j < len(s) {
			out[i] = s[j]
		}
	}
	return out
}

func pickRows(rows [][]string, idx []int) [][]string {
	out := make([][]string, len(rows))
	for i, r := range rows {
		out[i] = pick(r, idx)
	}
	return out
}

// generic is v as JSON decodes it: maps, slices, strings, float64s, bools
// and nils, what jq and templates read.
func generic(v any) (any, error) {
	b, err := textout.Marshal(v)
	if err != nil {
		return nil, err
	}
	var g any
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&g); err != nil {
		return nil, err
	}
	return g, nil
}

func compileJQ(expr string) (*gojq.Code, error) {
	q, err := gojq.Parse(expr)
	if err != nil {
		return nil, fmt.Errorf("--jq %q: %v", expr, err)
	}
	code, err := gojq.Compile(q)
	if err != nil {
		return nil, fmt.Errorf("--jq %q: %v", expr, err)
	}
	return code, nil
}

// writeJQ prints each result of expr over v on a line: strings raw (as jq
// -r does) but escaped like a table's cells (api.EscapeText), other values
// as compact JSON (jq -c) escaped like textout.WriteJSON's.
func writeJQ(w io.Writer, expr string, v any) error {
	code, err := compileJQ(expr)
	if err != nil {
		return err
	}
	g, err := generic(v)
	if err != nil {
		return err
	}
	iter := code.Run(g)
	for {
		r, ok := iter.Next()
		if !ok {
			return nil
		}
		if err, ok := r.(error); ok {
			var halt *gojq.HaltError
			if errors.As(err, &halt) && halt.Value() == nil {
				return nil
			}
			return fmt.Errorf("--jq: %v", err)
		}
		var line string
		if s, ok := r.(string); ok {
			line = api.EscapeText(s)
		} else {
			b, err := textout.Marshal(r)
			if err != nil {
				return err
			}
			line = string(b)
		}
		if _, err := io.WriteString(w, line+"\n"); err != nil {
			return err
		}
	}
}

// templateFuncs are the helpers templates get beyond text/template's own
// (gh's cheap ones).
var templateFuncs = template.FuncMap{
	"json": func(v any) (string, error) {
		b, err := textout.Marshal(v)
		return string(b), err
	},
	"join": func(sep string, v any) string {
		var parts []string
		if s, ok := v.([]any); ok {
			for _, e := range s {
				parts = append(parts, fmt.Sprint(e))
			}
		}
		return strings.Join(parts, sep)
	},
	"pluck": func(field string, v any) []any {
		var out []any
		if s, ok := v.([]any); ok {
			for _, e := range s {
				if m, ok := e.(map[string]any); ok {
					out = append(out, m[field])
				}
			}
		}
		return out
	},
	"upper":    strings.ToUpper,
	"lower":    strings.ToLower,
	"truncate": func(n int, s string) string { return textout.Truncate(s, n) },
	// tab is a tab, for tab-separated rows: {{.id}}{{tab}}{{.name}}
	"tab": func() string { return "\t" },
}

func parseTemplate(text string) (*template.Template, error) {
	t, err := template.New("--template").Funcs(templateFuncs).Option("missingkey=zero").Parse(text)
	if err != nil {
		return nil, fmt.Errorf("--template: %v", err)
	}
	return t, nil
}

// writeTemplate runs the template over v; integral numbers print without
// an exponent, and every string of v (keys too) is escaped like a table's
// cells (api.EscapeText): the template's own text is the caller's.
func writeTemplate(w io.Writer, text string, v any) error {
	t, err := parseTemplate(text)
	if err != nil {
		return err
	}
	g, err := generic(v)
	if err != nil {
		return err
	}
	if err := t.Execute(w, forTemplate(g)); err != nil {
		return fmt.Errorf("--template: %v", err)
	}
	return nil
}

// forTemplate turns float64s that are whole numbers into int64s, so that
// {{.id}} prints 41, not 4.1e+01, and escapes strings and keys.
func forTemplate(v any) any {
	switch x := v.(type) {
	case float64:
		if x == float64(int64(x)) {
			return int64(x)
		}
	case string:
		return api.EscapeText(x)
	case []any:
		for i := range x {
			x[i] = forTemplate(x[i])
		}
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[api.EscapeText(k)] = forTemplate(e)
		}
		return out
	}
	return v
}
