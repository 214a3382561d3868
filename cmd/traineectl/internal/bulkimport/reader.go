// Package bulkimport is `traineectl create -f`: it reads a CSV or JSON
// Lines file of trainees, validates every row with the server's own rules
// (api.ParseCreate, which applies api.ValidateCreate), and creates the valid
// rows at most once, resumably, through a journal.
package bulkimport

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"sort"
	"strings"

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
	// Trainer looks a trainer up by whole name (any case), as --trainer
	// does, for a trainerId cell that is not a number (nil: not looked
	// up, the server refuses the text). Its error is the cell's problem.
	Trainer func(name string) (int64, error)
	// PhoneRegion gives the region ("GB") whose national numbers a
	// phoneNumber cell without a leading + is read in (api.PhoneE164In),
	// asked at the first such cell; "" or nil leaves such a cell for the
	// server to refuse.
	PhoneRegion func() (string, error)
}

// Input is what Read found in an input.
type Input struct {
	Rows []Row
	// Ignored are the columns (or JSON Lines and YAML members) that fill
	// no field, in the order first met: columns a map leaves out, and
	// members of the trainee representation that are no input (id,
	// username, createdByType...). Each is reported once, not per row.
	Ignored []string
	// Collisions are the columns of a mapped file named like a field but
	// not exactly, which the map leaves out: not imported (see resolve).
	Collisions []Collision
	// Converted are the national phone numbers read in the phone region,
	// each as "07700 900123 → +447700900123", in the order met.
	Converted []string
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
	return &Input{Rows: rows, Ignored: rd.ignoredOrder, Collisions: rd.collisions, Converted: rd.converted}, nil
}

// reader reads one input.
type reader struct {
	o            ReadOptions
	ignored      map[string]bool
	ignoredOrder []string
	collisions   []Collision
	converted    []string
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
		val, ferr := rd.cellValue(f, v, c.col.entry)
		if ferr != nil {
			errs = append(errs, *ferr)
			continue
		}
		body[f] = val
	}
	return body, errs
}

// cellValue is the JSON value of a non-empty cell of field f, read as the
// field's flag reads it (api.PatchField.ParseText, the one parser of what
// people type: a date in every form the flags take, an enum in any case, a
// number, a boolean), a trainer by name as --trainer takes one; a date in
// the API's form. Text stays as written, for validation to judge.
func (rd *reader) cellValue(f, v string, e *MapEntry) (any, *api.FieldError) {
	if e != nil && e.goLayout != "" {
		d, err := e.parseDate(v)
		if err != nil {
			return nil, &api.FieldError{ErrorCode: api.CodeInvalidDate, Field: f, Message: err.Error()}
		}
		return d, nil
	}
	if f == "phoneNumber" && !strings.HasPrefix(v, "+") && rd.o.PhoneRegion != nil {
		return rd.nationalPhone(f, v)
	}
	pf := api.PatchFieldNamed(f)
	if pf == nil || pf.WriteOnly || pf.Kind == api.KindString && len(pf.Enum) == 0 {
		return v, nil
	}
	val, err := pf.ParseText(v, rd.o.Today.Time())
	if err != nil {
		return rd.unparsed(f, v, pf, err)
	}
	if d, ok := val.(api.Date); ok {
		return d.String(), nil
	}
	return val, nil
}

// unparsed is a cell that its field's parser refused (err): a trainer
// looked up by name, as --trainer does; a date or an enum refused here;
// anything else sent as written, for the server's validation to name.
func (rd *reader) unparsed(f, v string, pf *api.PatchField, err error) (any, *api.FieldError) {
	switch {
	case pf.Kind == api.KindInteger && f == "trainerId" && rd.o.Trainer != nil:
		id, err := rd.o.Trainer(v)
		if err != nil {
			return nil, &api.FieldError{ErrorCode: api.CodeUnknownTrainer, Field: f, Message: err.Error()}
		}
		return id, nil
	case pf.Kind == api.KindDate:
		return nil, &api.FieldError{ErrorCode: api.CodeInvalidDate, Field: f, Message: err.Error()}
	case len(pf.Enum) > 0:
		return nil, &api.FieldError{ErrorCode: api.CodeInvalidEnum, Field: f, Message: err.Error()}
	}
	return v, nil // the server's validation names the problem
}

// nationalPhone reads a phone number without its country code as a
// number of the phone region (ReadOptions.PhoneRegion).
func (rd *reader) nationalPhone(f, v string) (any, *api.FieldError) {
	e164, converted, err := api.PhoneInput(v, rd.o.PhoneRegion) // the one parser of --phone too
	if err != nil {
		return nil, &api.FieldError{ErrorCode: api.CodeInvalidPhone, Field: f, Message: err.Error()}
	}
	if converted {
		rd.converted = append(rd.converted, v+" → "+e164)
	}
	return e164, nil // without a region, as written: the server says it is not international
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
		// In the table's order, as validation reports them, whichever
		// found each.
		sort.SliceStable(row.Errors, func(i, j int) bool { return fieldRank(row.Errors[i].Field) < fieldRank(row.Errors[j].Field) })
	}
	return row
}

// fieldRank is a field's place in api.TraineePatch (-1 for none: a
// problem of the row as a whole comes first).
func fieldRank(name string) int {
	return slices.IndexFunc(api.TraineePatchFields, func(f api.PatchField) bool { return f.Name == name })
}

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
		valid := r.Valid()
		dupEmail := false
		if n, dup := emails[r.Email]; dup && r.Email != "" {
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
		if !valid {
			// Every problem of the row at once: a repeat is said beside
			// the row's other problems, in the table's order.
			sort.SliceStable(r.Errors, func(i, j int) bool { return fieldRank(r.Errors[i].Field) < fieldRank(r.Errors[j].Field) })
			continue
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
