// Package bulkimport is `traineectl create -f`: it reads a CSV or JSON
// Lines file of trainees, validates every row with the server's own rules
// (api.ParseCreate, which applies api.ValidateCreate), and creates the valid
// rows at most once, resumably, through a journal.
package bulkimport

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/traineed/traineed/api"
)

// Format is the format of an input file.
type Format string

// The input formats.
const (
	CSV   Format = "csv"
	JSONL Format = "jsonl"
	YAML  Format = "yaml"
	// JSON is a JSON array of trainees (or one object), as search -o json
	// writes it; JSON being YAML, the YAML reader reads it.
	JSON Format = "json"
)

// ParseFormat reads a --format value: csv, jsonl (or ndjson), yaml (or
// yml), json.
func ParseFormat(s string) (Format, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "csv":
		return CSV, nil
	case "jsonl", "ndjson":
		return JSONL, nil
	case "yaml", "yml":
		return YAML, nil
	case "json":
		return JSON, nil
	}
	return "", fmt.Errorf("invalid format %q: use csv, jsonl, yaml or json", s)
}

// FormatOf picks the format from a file name's extension: .csv, .jsonl,
// .ndjson, .yaml, .yml or .json (any case). ok is false for any other name.
func FormatOf(path string) (f Format, ok bool) {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".csv":
		return CSV, true
	case ".jsonl", ".ndjson":
		return JSONL, true
	case ".yaml", ".yml":
		return YAML, true
	case ".json":
		return JSON, true
	}
	return "", false
}

// Row is one trainee of the input.
type Row struct {
	// Num is the row's number as people see it: for CSV the spreadsheet row
	// (the header is row 1, so the first trainee is row 2), for JSON Lines
	// the line number (from 1, blank lines counted), for YAML the line
	// where the trainee's mapping starts.
	Num int
	// RequestID is the requestId column or field, else derived from the
	// normalised e-mail (DeriveRequestID).
	RequestID string
	// Email is the normalised e-mail (trimmed, lower case).
	Email string
	// Req is the validated, normalised create body (valid rows only). Its
	// Password is empty when GeneratePassword is set.
	Req api.CreateRequest
	// GeneratePassword is set when the row had no password and
	// --generate-passwords asked for one (with ReadOptions.Apply: when the
	// row had no password, which only a create needs).
	GeneratePassword bool
	// Patch is the row as a change of an existing trainee (with
	// ReadOptions.Apply, valid rows only): every field the row gives, null
	// for each field it clears, never the password.
	Patch api.TraineePatch
	// Errors are the row's problems; a row with none is valid.
	Errors []api.FieldError
}

// Valid reports whether the row can be sent.
func (r *Row) Valid() bool { return len(r.Errors) == 0 }

// ReadOptions say how to read an input.
type ReadOptions struct {
	Format Format
	// Today is the day dateOfBirth may not be after. The client does not
	// know the company's time zone: the caller passes its local day.
	Today api.Date
	// GeneratePasswords accepts rows without a password (one is generated
	// when the row is sent).
	GeneratePasswords bool
	// Map names the columns of another system's export (nil: none).
	Map *ColumnMap
	// Apply reads the input of apply -f: a password is optional (only a
	// create needs one), the columns enabled and forcePasswordChange are
	// read, an empty cell of a field that can be empty (phoneNumber,
	// dateOfBirth, expirationDate) clears it, and each valid row gets its
	// Patch.
	Apply bool
}

// Input is what Read found in an input.
type Input struct {
	Rows []Row
	// Ignored are the columns (or JSON Lines and YAML members) that fill
	// no field, in the order first met: columns a map leaves out, and
	// members of the trainee representation that are no input (id,
	// username, createdByType...). Each is reported once, not per row.
	Ignored []string
}

// InputError is a problem with the input as a whole (its header, its
// syntax): nothing of it is imported.
type InputError struct{ Err error }

func (e *InputError) Error() string { return e.Err.Error() }
func (e *InputError) Unwrap() error { return e.Err }

func inputErrorf(format string, args ...any) error {
	return &InputError{fmt.Errorf(format, args...)}
}

// maxLine bounds a JSON Lines line, as the server bounds a body.
const maxLine = api.MaxBodyBytes

// placeholderPassword stands in for a password to be generated while the
// row is validated; it never leaves the process.
const placeholderPassword = "placeholder-password"

// Read reads and validates every row of r (see ReadInput).
func Read(r io.Reader, o ReadOptions) ([]Row, error) {
	in, err := ReadInput(r, o)
	if err != nil {
		return nil, err
	}
	return in.Rows, nil
}

// ReadInput reads and validates every row of r. Rows with problems are
// returned with their Errors; an *InputError means the input cannot be
// read at all. Within the file, a second row with the e-mail, phone number
// or request id of an earlier valid row is invalid (1008, 1009, or no code
// for the request id).
func ReadInput(r io.Reader, o ReadOptions) (*Input, error) {
	rd := &reader{o: o, ignored: map[string]bool{}}
	if o.Apply {
		rd.o.GeneratePasswords = true // only a create needs one: the plan says which
	}
	var rows []Row
	var err error
	switch o.Format {
	case CSV:
		rows, err = rd.readCSV(r)
	case JSONL:
		rows, err = rd.readJSONL(r)
	case YAML, JSON:
		rows, err = rd.readYAML(r)
	default:
		return nil, inputErrorf("unknown input format %q", o.Format)
	}
	if err != nil {
		return nil, err
	}
	markDuplicates(rows)
	return &Input{Rows: rows, Ignored: rd.ignoredOrder}, nil
}

// reader reads one input.
type reader struct {
	o            ReadOptions
	ignored      map[string]bool
	ignoredOrder []string
}

// DeriveRequestID is the request id of a row without one: "imp-" and the
// first 32 hexadecimal digits of the SHA-256 of the normalised e-mail, so
// the same row gets the same id in every run.
func DeriveRequestID(email string) string {
	sum := sha256.Sum256([]byte(api.NormalizeEmail(email)))
	return "imp-" + hex.EncodeToString(sum[:16])
}

// columns maps a header name (lower case) to the API field it fills:
// every create field of api.TraineePatch by its API name, and by its
// create flag when that is one word (phone, dob, expires, trainer); and
// requestId.
var columns = func() map[string]string {
	m := map[string]string{}
	for _, pf := range api.CreateFields {
		m[strings.ToLower(pf.Name)] = pf.Name
		if alias := columnAlias(pf); alias != "" {
			m[alias] = pf.Name
		}
	}
	m["requestid"] = "requestId"
	return m
}()

// columnAlias is the other name of a field's column: its create flag when
// that is one word and not the API name; else "".
func columnAlias(pf *api.PatchField) string {
	if pf.Flag == "" || strings.Contains(pf.Flag, "-") || strings.EqualFold(pf.Flag, pf.Name) {
		return ""
	}
	return pf.Flag
}

// applyColumns are the columns that only apply -f reads: the readable
// fields of a change that a create does not take (enabled,
// forcePasswordChange), by their API names.
var applyColumns = func() map[string]string {
	m := map[string]string{}
	for i := range api.TraineePatchFields {
		if pf := &api.TraineePatchFields[i]; pf.Create == "" && !pf.WriteOnly {
			m[strings.ToLower(pf.Name)] = pf.Name
		}
	}
	return m
}()

// representationOnly are members of the trainee representation that are
// no input: the fields the server sets (api.ReadOnlyFields), the status
// search derives, and for create -f the apply-only columns. A file written
// by search -o csv, json or yaml or by export may hold them; they are
// ignored and reported once.
var representationOnly = func() map[string]bool {
	m := map[string]bool{"status": true}
	for _, f := range api.ReadOnlyFields {
		m[strings.ToLower(f)] = true
	}
	for k := range applyColumns {
		m[k] = true
	}
	return m
}()

// ColumnNames lists the accepted CSV column names, for messages and docs:
// "name, email, password, phoneNumber (phone), ..., requestId".
var ColumnNames = func() string {
	var names []string
	for _, pf := range api.CreateFields {
		n := pf.Name
		if alias := columnAlias(pf); alias != "" {
			n += " (" + alias + ")"
		}
		names = append(names, n)
	}
	return strings.Join(append(names, "requestId"), ", ")
}()

// column is what a header (or a member's name) fills.
type column struct {
	field string    // the API field; "" when the column is ignored
	entry *MapEntry // its map entry, if any
}

// resolve says what a header or member name fills; ok is false for an
// unknown one without a map (which ignores them).
func (rd *reader) resolve(name string) (c column, ok bool) {
	if e := rd.o.Map.lookup(name); e != nil {
		return column{field: e.Field, entry: e}, true
	}
	key := strings.ToLower(strings.TrimSpace(name))
	if f, ok := columns[key]; ok {
		return column{field: f}, true
	}
	if f, ok := applyColumns[key]; ok && rd.o.Apply {
		return column{field: f}, true
	}
	if representationOnly[key] || rd.o.Map != nil {
		rd.ignore(name)
		return column{}, true
	}
	return column{}, false
}

func (rd *reader) ignore(name string) {
	name = strings.TrimSpace(name)
	if !rd.ignored[name] {
		rd.ignored[name] = true
		rd.ignoredOrder = append(rd.ignoredOrder, name)
	}
}

// cell is one value of a row: a CSV cell or a YAML member; val is nil for
// a YAML null.
type cell struct {
	col  column
	name string
	val  *string
}

// nullable reports whether null clears the field.
func nullable(field string) bool {
	f := api.PatchFieldNamed(field)
	return f != nil && f.Nullable
}

// body makes a row's cells a body as the API takes it: an empty cell is
// an absent field (with Apply, null for a field that can be empty).
func (rd *reader) body(cells []cell) (map[string]any, []api.FieldError) {
	body := map[string]any{}
	var errs []api.FieldError
	seen := map[string]string{}
	for _, c := range cells {
		f := c.col.field
		if f == "" {
			continue
		}
		if prev, dup := seen[f]; dup {
			errs = append(errs, api.FieldError{ErrorCode: api.CodeBadJSON, Field: f,
				Message: fmt.Sprintf("%q and %q both give %s", prev, c.name, f)})
			continue
		}
		seen[f] = c.name
		v := ""
		if c.val != nil {
			v = *c.val
		}
		if pf := api.PatchFieldNamed(f); pf == nil || !pf.WriteOnly {
			v = strings.TrimSpace(v) // a password is kept as typed
		}
		if v == "" {
			if rd.o.Apply && nullable(f) {
				body[f] = nil
			}
			continue
		}
		val, ferr := cellValue(f, v, c.col.entry)
		if ferr != nil {
			errs = append(errs, *ferr)
			continue
		}
		body[f] = val
	}
	return body, errs
}

// cellValue is the JSON value of a non-empty cell of field f: a number or
// a boolean where the field is one (else the text, for validation to
// refuse), a date in the API's form.
func cellValue(f, v string, e *MapEntry) (any, *api.FieldError) {
	if e != nil && e.goLayout != "" {
		d, err := e.parseDate(v)
		if err != nil {
			return nil, &api.FieldError{ErrorCode: api.CodeInvalidDate, Field: f, Message: err.Error()}
		}
		return d, nil
	}
	pf := api.PatchFieldNamed(f)
	if pf == nil || pf.WriteOnly {
		return v, nil
	}
	switch pf.Kind {
	case api.KindInteger:
		if n, err := strconv.ParseInt(v, 10, 64); err == nil {
			return n, nil
		}
	case api.KindBoolean:
		if b, err := strconv.ParseBool(v); err == nil {
			return b, nil
		}
	case api.KindDate:
		return isoToWire(v), nil
	}
	return v, nil
}

// row validates a body, with the problems found making it (errs).
func (rd *reader) row(num int, body map[string]any, errs []api.FieldError) Row {
	rid, _ := body["requestId"].(string)
	delete(body, "requestId")
	m := make(map[string]json.RawMessage, len(body)+1)
	for k, v := range body {
		raw, err := json.Marshal(v)
		if err != nil {
			return Row{Num: num, Errors: []api.FieldError{{ErrorCode: api.CodeBadJSON, Message: err.Error()}}}
		}
		m[k] = raw
	}
	row := validate(num, m, rid, rd.o)
	if len(errs) > 0 {
		row.Errors = append(errs, row.Errors...)
	}
	return row
}

func (rd *reader) readCSV(r io.Reader) ([]Row, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	cols, names, err := rd.readCSVHeader(cr)
	if err != nil {
		return nil, err
	}
	var rows []Row
	for num := 2; ; num++ {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return rows, nil
		}
		if err != nil {
			return nil, inputErrorf("CSV row %d: %v", num, err)
		}
		if blankRecord(rec) {
			continue // a spreadsheet's empty row
		}
		if len(rec) != len(cols) {
			rows = append(rows, Row{Num: num, Errors: []api.FieldError{{ErrorCode: api.CodeBadJSON,
				Message: fmt.Sprintf("row has %d fields, the header %d", len(rec), len(cols))}}})
			continue
		}
		cells := make([]cell, len(rec))
		for i := range rec {
			cells[i] = cell{col: cols[i], name: names[i], val: &rec[i]}
		}
		body, errs := rd.body(cells)
		rows = append(rows, rd.row(num, body, errs))
	}
}

// readCSVHeader reads the header row: what each column fills. Every
// column must be known (or, with a map, is ignored) and give a field of
// its own; name, email and (unless generated) password are needed.
func (rd *reader) readCSVHeader(cr *csv.Reader) ([]column, []string, error) {
	header, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return nil, nil, inputErrorf("the CSV input is empty: it needs a header row (%s)", ColumnNames)
	}
	if err != nil {
		return nil, nil, inputErrorf("CSV header: %v", err)
	}
	if len(header) > 0 {
		header[0] = strings.TrimPrefix(header[0], "\ufeff") // a spreadsheet's byte order mark
	}
	if miss := rd.o.Map.missing(header); len(miss) > 0 {
		return nil, nil, inputErrorf("CSV header: the column map names %s, which the header does not have", strings.Join(miss, ", "))
	}
	cols := make([]column, len(header))
	seen := map[string]string{}
	var unknown []string
	for i, h := range header {
		h = strings.TrimSpace(h)
		header[i] = h
		c, ok := rd.resolve(h)
		if !ok {
			unknown = append(unknown, strconv.Quote(h))
			continue
		}
		if c.field == "" {
			continue
		}
		if prev, dup := seen[c.field]; dup {
			return nil, nil, inputErrorf("CSV header: columns %q and %q both give %s", prev, h, c.field)
		}
		seen[c.field] = h
		cols[i] = c
	}
	if len(unknown) > 0 {
		return nil, nil, inputErrorf("CSV header: unknown column(s) %s; the columns are %s (any case), or give a column map (--map)", strings.Join(unknown, ", "), ColumnNames)
	}
	for _, pf := range api.CreateFields {
		_, ok := seen[pf.Name]
		switch {
		case ok || pf.Create != api.CreateRequired:
		case pf.WriteOnly && !rd.o.GeneratePasswords:
			return nil, nil, inputErrorf("CSV header: no %s column; add one, or use --generate-passwords", pf.Name)
		case !pf.WriteOnly:
			return nil, nil, inputErrorf("CSV header: no %s column", pf.Name)
		}
	}
	return cols, header, nil
}

// blankRecord reports whether every cell of rec is blank.
func blankRecord(rec []string) bool {
	for _, c := range rec {
		if strings.TrimSpace(c) != "" {
			return false
		}
	}
	return true
}

// isoToWire turns a yyyy-MM-dd date (what spreadsheets export) into the
// API's dd-MM-yyyy; anything else is left for validation to judge.
func isoToWire(s string) string {
	if len(s) == len("2006-01-02") {
		if t, err := time.Parse("2006-01-02", s); err == nil {
			return t.Format(api.DateLayout)
		}
	}
	return s
}

func (rd *reader) readJSONL(r io.Reader) ([]Row, error) {
	br := bufio.NewReader(r)
	var rows []Row
	for num := 1; ; num++ {
		line, err := br.ReadBytes('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, err
		}
		if len(line) == 0 && err != nil {
			return rows, nil
		}
		line = bytes.TrimSpace(line)
		if num == 1 {
			line = bytes.TrimPrefix(line, []byte("\ufeff"))
		}
		if len(line) > 0 {
			if len(line) > maxLine {
				rows = append(rows, Row{Num: num, Errors: []api.FieldError{{ErrorCode: api.CodeBadJSON,
					Message: fmt.Sprintf("line longer than %d bytes", maxLine)}}})
			} else {
				rows = append(rows, rd.jsonRow(num, line))
			}
		}
		if err != nil {
			return rows, nil
		}
	}
}

// jsonRow validates one JSON Lines line: a create body as the API takes it
// (its members named as the CSV columns may be, or by the map), with an
// optional requestId member.
func (rd *reader) jsonRow(num int, line []byte) Row {
	var in map[string]json.RawMessage
	if json.Unmarshal(line, &in) != nil || in == nil {
		_, err := api.ParseCreate(line, rd.o.Today) // the server's own 1000
		return Row{Num: num, Errors: fieldErrors(err)}
	}
	m, errs := rd.renameMembers(in)
	var rid string
	if raw, ok := m["requestId"]; ok && string(raw) != "null" {
		if json.Unmarshal(raw, &rid) != nil || rid == "" {
			return Row{Num: num, Errors: []api.FieldError{{Field: "requestId",
				Message: "requestId must be a non-empty string"}}}
		}
	}
	delete(m, "requestId")
	if rd.o.GeneratePasswords {
		if raw, ok := m["password"]; !ok || string(raw) == "null" || string(raw) == `""` {
			delete(m, "password")
		}
	}
	row := validate(num, m, rid, rd.o)
	if len(errs) > 0 {
		row.Errors = append(errs, row.Errors...)
	}
	return row
}

// renameMembers gives each member of a JSON object the field name it
// fills (through the map, or any case as for CSV), dropping the ignored
// ones and reading dates with a map's layout. An unknown member without a
// map is left for the server's rules (which ignore it).
func (rd *reader) renameMembers(in map[string]json.RawMessage) (map[string]json.RawMessage, []api.FieldError) {
	out := make(map[string]json.RawMessage, len(in))
	from := map[string]string{}
	var errs []api.FieldError
	for _, k := range sortedKeys(in) {
		raw := in[k]
		c, ok := rd.resolve(k)
		if !ok {
			rd.ignore(k)
			continue
		}
		if c.field == "" {
			continue
		}
		if prev, dup := from[c.field]; dup {
			errs = append(errs, api.FieldError{ErrorCode: api.CodeBadJSON, Field: c.field,
				Message: fmt.Sprintf("%q and %q both give %s", prev, k, c.field)})
			continue
		}
		from[c.field] = k
		var s string
		if c.entry != nil && c.entry.goLayout != "" && json.Unmarshal(raw, &s) == nil && strings.TrimSpace(s) != "" {
			d, err := c.entry.parseDate(strings.TrimSpace(s))
			if err != nil {
				errs = append(errs, api.FieldError{ErrorCode: api.CodeInvalidDate, Field: c.field, Message: err.Error()})
				continue
			}
			raw, _ = json.Marshal(d)
		}
		out[c.field] = raw
	}
	return out, errs
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// readYAML reads YAML: a sequence of trainees (mappings of field: value),
// or a stream of documents, each a trainee or a sequence of them.
func (rd *reader) readYAML(r io.Reader) ([]Row, error) {
	dec := yaml.NewDecoder(r)
	var rows []Row
	for {
		var doc yaml.Node
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			return rows, nil
		}
		if err != nil {
			return nil, inputErrorf("YAML: %v", err)
		}
		root := &doc
		if root.Kind == yaml.DocumentNode && len(root.Content) > 0 {
			root = root.Content[0]
		}
		if root.Kind == yaml.ScalarNode && root.Tag == "!!null" || root.Kind == yaml.DocumentNode {
			continue // an empty document
		}
		items := []*yaml.Node{root}
		if root.Kind == yaml.SequenceNode {
			items = root.Content
		}
		for _, it := range items {
			row, err := rd.yamlRow(it)
			if err != nil {
				return nil, err
			}
			rows = append(rows, row)
		}
	}
}

// yamlRow reads one trainee of a YAML input; its number is its line.
func (rd *reader) yamlRow(n *yaml.Node) (Row, error) {
	num := n.Line
	if n.Kind != yaml.MappingNode {
		return Row{Num: num, Errors: []api.FieldError{{ErrorCode: api.CodeBadJSON,
			Message: "a trainee must be a mapping of field: value"}}}, nil
	}
	var cells []cell
	var errs []api.FieldError
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		c, ok := rd.resolve(k.Value)
		if !ok {
			return Row{}, inputErrorf("YAML line %d: unknown field %q; the fields are %s (any case), or give a column map (--map)", k.Line, k.Value, ColumnNames)
		}
		if v.Kind == yaml.AliasNode && v.Alias != nil {
			v = v.Alias
		}
		if v.Kind != yaml.ScalarNode {
			if c.field != "" {
				errs = append(errs, api.FieldError{ErrorCode: api.CodeBadJSON, Field: c.field,
					Message: c.field + " must be a single value"})
			}
			continue
		}
		var val *string
		if v.Tag != "!!null" {
			s := v.Value
			val = &s
		}
		cells = append(cells, cell{col: c, name: k.Value, val: val})
	}
	body, berrs := rd.body(cells)
	return rd.row(num, body, append(errs, berrs...)), nil
}

// placeholderRaw is placeholderPassword as JSON.
var placeholderRaw = json.RawMessage(`"` + placeholderPassword + `"`)

// fieldErrors are the problems of a validation error.
func fieldErrors(err error) []api.FieldError {
	var ve *api.ValidationError
	if errors.As(err, &ve) {
		return ve.Errors
	}
	return []api.FieldError{{ErrorCode: api.CodeBadJSON, Message: err.Error()}}
}

// validate checks a create body (the members of one JSON object, which it
// may change) with api.ParseCreate, the server's code; with Apply, the
// row's change too, with api.ParseUpdate.
func validate(num int, m map[string]json.RawMessage, rid string, o ReadOptions) Row {
	row := Row{Num: num}
	generate := false
	if _, ok := m["password"]; !ok && o.GeneratePasswords {
		m["password"] = placeholderRaw
		generate = true
	}
	body, err := json.Marshal(m)
	if err != nil {
		return Row{Num: num, Errors: []api.FieldError{{ErrorCode: api.CodeBadJSON, Message: err.Error()}}}
	}
	req, err := api.ParseCreate(body, o.Today)
	var email string
	if raw, ok := m["email"]; ok && json.Unmarshal(raw, &email) == nil {
		row.Email = api.NormalizeEmail(email)
	}
	row.RequestID = rid
	if rid == "" && row.Email != "" {
		row.RequestID = DeriveRequestID(row.Email)
	}
	if err != nil {
		row.Errors = fieldErrors(err)
	}
	if rid != "" && !api.SaneRequestID(rid) {
		row.Errors = append(row.Errors, api.FieldError{Field: "requestId",
			Message: "requestId must be 1 to 128 characters of A-Z a-z 0-9 - _ . :"})
	}
	if o.Apply {
		row.Errors = append(row.Errors, applyPatch(&row, m, o.Today)...)
	}
	if err == nil {
		row.Req = *req
		row.Email = req.Email
		if generate {
			row.Req.Password = ""
			row.GeneratePassword = true
		}
	}
	return row
}

// applyPatch sets the row's Patch: its body without the password, read
// by api.ParseUpdate (the server's rules of a change, field by field from
// api.TraineePatchFields). It returns the problems the create's rules did
// not already report.
func applyPatch(row *Row, m map[string]json.RawMessage, today api.Date) []api.FieldError {
	for i := range api.TraineePatchFields {
		if f := &api.TraineePatchFields[i]; f.WriteOnly {
			delete(m, f.Name)
		}
	}
	b, _ := json.Marshal(m)
	p, err := api.ParseUpdate(b, today)
	var ve *api.ValidationError
	if err == nil {
		p.Normalize()
		row.Patch = *p
		return nil
	}
	if !errors.As(err, &ve) {
		return nil
	}
	reported := map[string]bool{}
	for _, e := range row.Errors {
		reported[e.Field] = true
	}
	var out []api.FieldError
	for _, e := range ve.Errors {
		if !reported[e.Field] {
			out = append(out, e)
		}
	}
	return out
}

// markDuplicates makes invalid each valid row that repeats the e-mail,
// phone number or request id of an earlier valid row.
func markDuplicates(rows []Row) {
	emails, phones, rids := map[string]int{}, map[string]int{}, map[string]int{}
	for i := range rows {
		r := &rows[i]
		if !r.Valid() {
			continue
		}
		dupEmail := false
		if n, dup := emails[r.Email]; dup {
			dupEmail = true
			r.Errors = append(r.Errors, api.FieldError{ErrorCode: api.CodeEmailTaken, Field: "email",
				Message: fmt.Sprintf("e-mail address repeats row %d of the input", n)})
		}
		if r.Req.PhoneNumber != nil {
			if n, dup := phones[*r.Req.PhoneNumber]; dup {
				r.Errors = append(r.Errors, api.FieldError{ErrorCode: api.CodePhoneTaken, Field: "phoneNumber",
					Message: fmt.Sprintf("phone number repeats row %d of the input", n)})
			}
		}
		if n, dup := rids[r.RequestID]; dup && !(dupEmail && r.RequestID == DeriveRequestID(r.Email)) {
			r.Errors = append(r.Errors, api.FieldError{Field: "requestId",
				Message: fmt.Sprintf("request id repeats row %d of the input", n)})
		}
		if r.Valid() {
			emails[r.Email] = r.Num
			rids[r.RequestID] = r.Num
			if r.Req.PhoneNumber != nil {
				phones[*r.Req.PhoneNumber] = r.Num
			}
		}
	}
}

// sortRecords orders records by row number.
func sortRecords(rs []Record) {
	sort.SliceStable(rs, func(i, j int) bool { return rs[i].Row < rs[j].Row })
}
