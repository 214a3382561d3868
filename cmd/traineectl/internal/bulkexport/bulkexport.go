// Package bulkexport is `traineectl export`'s writing side: a company's
// trainees as CSV, JSON Lines or YAML with exactly the columns `traineectl
// create -f` reads (bulkimport), so that an export is an input of create -f
// (with --generate-passwords: no password is ever exported) and of apply -f.
// Each trainee is written as it comes: nothing is held but the record in
// hand.
package bulkexport

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/cmd/traineectl/internal/bulkimport"
)

// Format is the format of an export: one of the bulk import's input
// formats, so that an export is an input (JSON, an array, is not written:
// it cannot stream).
type Format = bulkimport.Format

// The formats.
const (
	CSV   = bulkimport.CSV
	JSONL = bulkimport.JSONL
	YAML  = bulkimport.YAML
)

// Formats lists the formats, for help and completion.
var Formats = []string{string(CSV), string(JSONL), string(YAML)}

// ParseFormat reads a --format value: csv, jsonl (or ndjson), yaml (or yml).
func ParseFormat(s string) (Format, error) {
	f, err := bulkimport.ParseFormat(s)
	if err != nil || f == bulkimport.JSON {
		return "", fmt.Errorf("invalid format %q: use csv, jsonl or yaml", s)
	}
	return f, nil
}

// FormatOf picks the format from a file name's extension (any case):
// .csv, .jsonl or .ndjson, .yaml or .yml. ok is false for any other.
func FormatOf(path string) (f Format, ok bool) {
	f, ok = bulkimport.FormatOf(path)
	return f, ok && f != bulkimport.JSON
}

// Columns are the columns of an export, in order: the create fields of
// the trainee field table (api.CreateFields, the columns `create -f`
// reads) that a trainee shows, so every one but the password (never
// exported), then the readable fields only a change takes (enabled,
// forcePasswordChange: the columns only `apply -f` reads; `create -f`
// reports them once and ignores them), so that an export applied back
// changes nothing, deleted trainees included. requestId is left out (the
// bulk import derives it from the e-mail, bulkimport.DeriveRequestID).
var Columns = func() []string {
	var out []string
	for _, pf := range api.CreateFields {
		if !pf.WriteOnly {
			out = append(out, pf.Name)
		}
	}
	for i := range api.TraineePatchFields {
		if pf := &api.TraineePatchFields[i]; pf.Create == "" && !pf.WriteOnly {
			out = append(out, pf.Name)
		}
	}
	return out
}()

// Tracked data kinds of --with.
const (
	WithWeight       = "weight"
	WithMeasurements = "measurements"
	WithNutrition    = "nutrition"
	WithSteps        = "steps"
)

// WithKinds lists the kinds --with takes.
var WithKinds = []string{WithWeight, WithMeasurements, WithNutrition, WithSteps}

// ParseWith reads --with's values: each one of WithKinds, no repeats.
func ParseWith(vals []string) ([]string, error) {
	var out []string
	for _, v := range vals {
		v = strings.ToLower(strings.TrimSpace(v))
		if !slices.Contains(WithKinds, v) {
			return nil, fmt.Errorf("--with %q: want a comma-separated list of %s", v, strings.Join(WithKinds, ", "))
		}
		if !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out, nil
}

// Record is one exported trainee: its values of Columns (absent when the
// trainee has none), and the tracked data --with asked for (JSON Lines
// and YAML only; such a record is an archive, not an input of create -f or
// apply -f). Its JSON has Columns' order; dates are dd-MM-yyyy, as the API
// writes them.
type Record struct {
	Trainee *api.Trainee

	Weight       *[]api.ExportWeight
	Measurements *[]api.Measurement
	Nutrition    *[]api.ExportNutrition
	Steps        *[]api.ExportSteps
}

// FromTrainee is the record of t.
func FromTrainee(t *api.Trainee) Record { return Record{Trainee: t} }

// MarshalJSON writes the columns the trainee has a value for, in order,
// then the tracked data asked for.
func (r Record) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	member := func(name string, v any) error {
		if b.Len() > 1 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Quote(name) + ":")
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(v); err != nil {
			return err
		}
		b.Truncate(b.Len() - 1) // the encoder's newline
		return nil
	}
	for _, name := range Columns {
		if v := api.TraineeValue(r.Trainee, name); v != nil {
			if err := member(name, v); err != nil {
				return nil, err
			}
		}
	}
	for _, t := range []struct {
		name string
		v    any
		set  bool
	}{{WithWeight, r.Weight, r.Weight != nil}, {WithMeasurements, r.Measurements, r.Measurements != nil},
		{WithNutrition, r.Nutrition, r.Nutrition != nil}, {WithSteps, r.Steps, r.Steps != nil}} {
		if t.set {
			if err := member(t.name, t.v); err != nil {
				return nil, err
			}
		}
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// Attach adds to r the tracked data of x that with names.
func (r *Record) Attach(x *api.TraineeExport, with []string) {
	for _, w := range with {
		switch w {
		case WithWeight:
			r.Weight = &x.Weight
		case WithMeasurements:
			r.Measurements = &x.Measurements
		case WithNutrition:
			r.Nutrition = &x.Nutrition
		case WithSteps:
			r.Steps = &x.Steps
		}
	}
}

// csvRow is r's CSV line, in Columns' order. Dates are yyyy-MM-dd, what
// spreadsheets read as dates (bulkimport reads both forms).
func (r *Record) csvRow() []string {
	row := make([]string, len(Columns))
	for i, name := range Columns {
		switch v := api.TraineeValue(r.Trainee, name).(type) {
		case api.Date:
			row[i] = fmt.Sprintf("%04d-%02d-%02d", v.Year, v.Month, v.Day)
		default:
			row[i] = api.FormatText(v)
		}
	}
	return row
}

// Writer writes records one at a time.
type Writer struct {
	format Format
	bw     *bufio.Writer
	cw     *csv.Writer
	n      int64
	buf    bytes.Buffer // writeYAML's scratch
}

// NewWriter writes records in format to w; the CSV header goes first.
// Close flushes.
func NewWriter(w io.Writer, format Format) (*Writer, error) {
	ew := &Writer{format: format, bw: bufio.NewWriterSize(w, 64<<10)}
	switch format {
	case CSV:
		ew.cw = csv.NewWriter(ew.bw)
		if err := ew.cw.Write(Columns); err != nil {
			return nil, err
		}
	case JSONL, YAML:
	default:
		return nil, fmt.Errorf("unknown export format %q", format)
	}
	return ew, nil
}

// Write writes one record. A record with tracked data is refused in CSV.
func (w *Writer) Write(r *Record) error {
	w.n++
	switch w.format {
	case CSV:
		if r.Weight != nil || r.Measurements != nil || r.Nutrition != nil || r.Steps != nil {
			return fmt.Errorf("tracked data cannot be written as CSV: use jsonl or yaml")
		}
		return w.cw.Write(r.csvRow())
	case JSONL:
		b, err := json.Marshal(r)
		if err != nil {
			return err
		}
		if _, err := w.bw.Write(b); err != nil {
			return err
		}
		return w.bw.WriteByte('\n')
	default:
		return w.writeYAML(r)
	}
}

// writeYAML writes r as one item of a block sequence, so the records make
// one YAML document: a list of mappings with the JSON names. Each value is
// its JSON (a double-quoted string, a number, or a flow list of tracked
// data), which YAML reads as the same value, with DEL, the C1 controls and
// the bidirectional formatting characters escaped (api.EscapeFramed): a
// YAML parser refuses some of them raw.
func (w *Writer) writeYAML(r *Record) error {
	w.buf.Reset()
	enc := json.NewEncoder(&w.buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(r); err != nil {
		return err
	}
	dec := json.NewDecoder(strings.NewReader(api.EscapeFramed(w.buf.String())))
	if _, err := dec.Token(); err != nil { // {
		return err
	}
	lead := "- "
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return err
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return err
		}
		w.bw.WriteString(lead)
		w.bw.WriteString(key.(string)) // a member name of Record: plain
		w.bw.WriteString(": ")
		w.bw.Write(raw)
		if err := w.bw.WriteByte('\n'); err != nil {
			return err
		}
		lead = "  "
	}
	return nil
}

// Count is how many records were written.
func (w *Writer) Count() int64 { return w.n }

// Close flushes what is buffered; an empty YAML export is the empty list.
func (w *Writer) Close() error {
	switch {
	case w.cw != nil:
		w.cw.Flush()
		if err := w.cw.Error(); err != nil {
			return err
		}
	case w.format == YAML && w.n == 0:
		if _, err := w.bw.WriteString("[]\n"); err != nil {
			return err
		}
	}
	return w.bw.Flush()
}
