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

	"github.com/traineed/traineed/api"
)

// Format is the format of an input file.
type Format string

// The input formats.
const (
	CSV   Format = "csv"
	JSONL Format = "jsonl"
)

// ParseFormat reads a --format value: csv, jsonl (or ndjson).
func ParseFormat(s string) (Format, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "csv":
		return CSV, nil
	case "jsonl", "ndjson":
		return JSONL, nil
	}
	return "", fmt.Errorf("invalid format %q: use csv or jsonl", s)
}

// FormatOf picks the format from a file name's extension: .csv, .jsonl or
// .ndjson (any case). ok is false for any other name.
func FormatOf(path string) (f Format, ok bool) {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".csv":
		return CSV, true
	case ".jsonl", ".ndjson":
		return JSONL, true
	}
	return "", false
}

// Row is one trainee of the input.
type Row struct {
	// Num is the row's number as people see it: for CSV the spreadsheet row
	// (the header is row 1, so the first trainee is row 2), for JSON Lines
	// the line number (from 1, blank lines counted).
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
	// --generate-passwords asked for one.
	GeneratePassword bool
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

// Read reads and validates every row of r. Rows with problems are returned
// with their Errors; an *InputError means the input cannot be read at all.
// Within the file, a second row with the e-mail, phone number or request id
// of an earlier valid row is invalid (1008, 1009, or no code for the
// request id).
func Read(r io.Reader, o ReadOptions) ([]Row, error) {
	var rows []Row
	var err error
	switch o.Format {
	case CSV:
		rows, err = readCSV(r, o)
	case JSONL:
		rows, err = readJSONL(r, o)
	default:
		return nil, inputErrorf("unknown input format %q", o.Format)
	}
	if err != nil {
		return nil, err
	}
	markDuplicates(rows)
	return rows, nil
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

func readCSV(r io.Reader, o ReadOptions) ([]Row, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	field, err := readCSVHeader(cr, o)
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
		row, err := csvRow(num, rec, field, o)
		if err != nil {
			return nil, err
		}
		rows = append(rows, row)
	}
}

// readCSVHeader reads the header row: the API field of each column. Every
// column must be known and give a field of its own; name, email and
// (unless generated) password are needed.
func readCSVHeader(cr *csv.Reader, o ReadOptions) ([]string, error) {
	header, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return nil, inputErrorf("the CSV input is empty: it needs a header row (%s)", ColumnNames)
	}
	if err != nil {
		return nil, inputErrorf("CSV header: %v", err)
	}
	field := make([]string, len(header)) // column index -> API field
	seen := map[string]string{}
	var unknown []string
	for i, h := range header {
		if i == 0 {
			h = strings.TrimPrefix(h, "\ufeff") // a spreadsheet's byte order mark
		}
		h = strings.TrimSpace(h)
		f, ok := columns[strings.ToLower(h)]
		if !ok {
			unknown = append(unknown, strconv.Quote(h))
			continue
		}
		if prev, dup := seen[f]; dup {
			return nil, inputErrorf("CSV header: columns %q and %q both give %s", prev, h, f)
		}
		seen[f] = h
		field[i] = f
	}
	if len(unknown) > 0 {
		return nil, inputErrorf("CSV header: unknown column(s) %s; the columns are %s (any case)", strings.Join(unknown, ", "), ColumnNames)
	}
	for _, pf := range api.CreateFields {
		_, ok := seen[pf.Name]
		switch {
		case ok || pf.Create != api.CreateRequired:
		case pf.WriteOnly && !o.GeneratePasswords:
			return nil, inputErrorf("CSV header: no %s column; add one, or use --generate-passwords", pf.Name)
		case !pf.WriteOnly:
			return nil, inputErrorf("CSV header: no %s column", pf.Name)
		}
	}
	return field, nil
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

// csvRow validates one CSV record, field being the API field of each
// column: its cells make a create body as the API takes it.
func csvRow(num int, rec, field []string, o ReadOptions) (Row, error) {
	if len(rec) != len(field) {
		return Row{Num: num, Errors: []api.FieldError{{ErrorCode: api.CodeBadJSON,
			Message: fmt.Sprintf("row has %d fields, the header %d", len(rec), len(field))}}}, nil
	}
	body := map[string]any{}
	for i, cell := range rec {
		pf := api.PatchFieldNamed(field[i])
		if pf == nil || !pf.WriteOnly {
			cell = strings.TrimSpace(cell) // a password is kept as typed
		}
		if cell == "" {
			continue // an empty cell is an absent field
		}
		body[field[i]] = cellValue(pf, cell)
	}
	rid, _ := body["requestId"].(string)
	delete(body, "requestId")
	b, err := json.Marshal(body)
	if err != nil {
		return Row{}, err
	}
	return validate(num, b, rid, o), nil
}

// cellValue is a CSV cell as the JSON member of its field: an integer as a
// number and a boolean as one (unless they are not: then the API refuses
// them, 1000), a date
// yyyy-MM-dd as the API's dd-MM-yyyy, anything else as it is.
func cellValue(pf *api.PatchField, cell string) any {
	switch {
	case pf == nil:
	case pf.Kind == api.KindInteger:
		if n, err := strconv.ParseInt(cell, 10, 64); err == nil {
			return n
		}
	case pf.Kind == api.KindBoolean:
		if b, err := strconv.ParseBool(cell); err == nil {
			return b
		}
	case pf.Kind == api.KindDate:
		return isoToWire(cell)
	}
	return cell
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

func readJSONL(r io.Reader, o ReadOptions) ([]Row, error) {
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
				rows = append(rows, jsonRow(num, line, o))
			}
		}
		if err != nil {
			return rows, nil
		}
	}
}

// jsonRow validates one JSON Lines line: a create body as the API takes it,
// with an optional requestId member.
func jsonRow(num int, line []byte, o ReadOptions) Row {
	var m map[string]json.RawMessage
	if json.Unmarshal(line, &m) != nil || m == nil {
		return validate(num, line, "", o) // the server's own 1000
	}
	var rid string
	if raw, ok := m["requestId"]; ok && string(raw) != "null" {
		if json.Unmarshal(raw, &rid) != nil || rid == "" {
			return Row{Num: num, Errors: []api.FieldError{{Field: "requestId",
				Message: "requestId must be a non-empty string"}}}
		}
		delete(m, "requestId")
	}
	if o.GeneratePasswords {
		if raw, ok := m["password"]; !ok || string(raw) == "null" || string(raw) == `""` {
			delete(m, "password")
		}
	}
	b, err := json.Marshal(m)
	if err != nil {
		return Row{Num: num, Errors: []api.FieldError{{ErrorCode: api.CodeBadJSON, Message: err.Error()}}}
	}
	return validate(num, b, rid, o)
}

// validate checks a create body with api.ParseCreate, the server's code.
func validate(num int, body []byte, rid string, o ReadOptions) Row {
	row := Row{Num: num}
	generate := false
	if o.GeneratePasswords {
		var m map[string]json.RawMessage
		if json.Unmarshal(body, &m) == nil && m != nil {
			if _, ok := m["password"]; !ok {
				m["password"], _ = json.Marshal(placeholderPassword)
				body, _ = json.Marshal(m)
				generate = true
			}
		}
	}
	req, err := api.ParseCreate(body, o.Today)
	var email struct {
		Email any `json:"email"`
	}
	_ = json.Unmarshal(body, &email)
	if s, ok := email.Email.(string); ok {
		row.Email = api.NormalizeEmail(s)
	}
	row.RequestID = rid
	if rid == "" && row.Email != "" {
		row.RequestID = DeriveRequestID(row.Email)
	}
	if err != nil {
		var ve *api.ValidationError
		if errors.As(err, &ve) {
			row.Errors = ve.Errors
		} else {
			row.Errors = []api.FieldError{{ErrorCode: api.CodeBadJSON, Message: err.Error()}}
		}
	}
	if rid != "" && !api.SaneRequestID(rid) {
		row.Errors = append(row.Errors, api.FieldError{Field: "requestId",
			Message: "requestId must be 1 to 128 characters of A-Z a-z 0-9 - _ . :"})
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
