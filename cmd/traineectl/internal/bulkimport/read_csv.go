package bulkimport

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/traineed/traineed/api"
)

// readCSV reads CSV with a header row naming the columns.
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
	cols, seen, err := rd.headerColumns(header)
	if err != nil {
		return nil, nil, err
	}
	if err := rd.requiredColumns(seen); err != nil {
		return nil, nil, err
	}
	return cols, header, nil
}

// headerColumns resolves the header's names (trimmed in place) to
// columns, refusing unknown ones and two columns of one field; seen maps
// each field given to its column's name.
func (rd *reader) headerColumns(header []string) ([]column, map[string]string, error) {
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
	return cols, seen, nil
}

// requiredColumns refuses a header without a column of a required field
// (the password's unless passwords are generated).
func (rd *reader) requiredColumns(seen map[string]string) error {
	for _, pf := range api.CreateFields {
		_, ok := seen[pf.Name]
		switch {
		case ok || pf.Create != api.CreateRequired:
		case pf.WriteOnly && !rd.o.GeneratePasswords:
			return inputErrorf("CSV header: no %s column; add one, or use --generate-passwords", pf.Name)
		case !pf.WriteOnly:
			return inputErrorf("CSV header: no %s column", pf.Name)
		}
	}
	return nil
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
