package bulkimport

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/traineed/traineed/api"
)

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
//
// Without a map every column must be one of traineed's (any case): the
// file is in traineed's own format, so a column named like a field is
// that field. With a map the file is another system's, whose columns only
// happen to bear names: an unmapped column named like a field of a format
// ("Email", "Phone", a date, an enum) fills it, its values checked by that
// format; one named like a free-text field (api.PatchField.FreeText:
// "Name", a CRM's "Notes") fills it only when its header is exactly the
// field's API name (or one-word alias), else it is not imported and is
// reported (Input.Collisions) instead of silently filling, or clearing,
// the field.
func (rd *reader) resolve(name string) (c column, ok bool) {
	if e := rd.o.Map.lookup(name); e != nil {
		return column{field: e.Field, entry: e}, true
	}
	trimmed := strings.TrimSpace(name)
	key := strings.ToLower(trimmed)
	f, ok := columns[key]
	if !ok && rd.o.Apply {
		f, ok = applyColumns[key]
	}
	switch {
	case ok && (rd.o.Map == nil || declaredColumn(trimmed, f)):
		return column{field: f}, true
	case ok:
		rd.collide(trimmed, f)
		return column{}, true
	case representationOnly[key] || rd.o.Map != nil:
		rd.ignore(name)
		return column{}, true
	}
	return column{}, false
}

// declaredColumn reports whether a mapped file's header, equal to field
// f's column name in some case, may fill it: always for a field of a
// format (and requestId), for a free-text one only when the header is
// its API name or one-word alias in their own case.
func declaredColumn(header, f string) bool {
	pf := api.PatchFieldNamed(f)
	if header == f || pf == nil || !pf.FreeText() {
		return true
	}
	return header == columnAlias(pf)
}

// collide records a column of a mapped file that resembles field f
// without naming it exactly: not imported, reported once.
func (rd *reader) collide(header, f string) {
	for _, c := range rd.collisions {
		if c.Column == header {
			return
		}
	}
	rd.collisions = append(rd.collisions, Collision{Column: header, Field: f})
}

// Collision is a column of a mapped file whose name resembles a field's
// ("Notes" for notes) that the map does not map: it is not imported.
type Collision struct {
	Column string // the header as the file writes it
	Field  string // the API field it resembles
}

// String says what was done and how to import the column after all.
func (c Collision) String() string {
	return fmt.Sprintf("column %q is named like the field %s but the map does not map it: not imported "+
		"(map it, %q, to import it; or to \"-\" to silence this)", c.Column, c.Field, c.Column+"="+c.Field)
}

func (rd *reader) ignore(name string) {
	name = strings.TrimSpace(name)
	if !rd.ignored[name] {
		rd.ignored[name] = true
		rd.ignoredOrder = append(rd.ignoredOrder, name)
	}
}
