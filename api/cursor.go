package api

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
)

// Cursor is a decoded search cursor (the cursor parameter, a page's
// nextCursor): where the page after the one that gave it starts. A search
// with a cursor reads by keyset, after the row the cursor names, so a
// deep page costs what a first page costs and rows created or deleted
// between two calls neither repeat nor skip a row.
type Cursor struct {
	Sort string // the search's sort key
	Desc bool   // and direction
	// The last row's value for the sort key: Str for name (its lower-cased
	// form, as the store sorts it) and email, Int (YYYYMMDD) for
	// expirationDate and lastTrained, or Null when it had none; nothing
	// for id.
	Str  string
	Int  int
	Null bool
	ID   int64 // the last row's id
	// Offset is the 0-based position of the next row, for the page number
	// and the totals the same page would give with page=.
	Offset int64
	// Fingerprint is SearchFingerprint of the search that gave the cursor.
	Fingerprint string
}

// cursorWire is a cursor's JSON form before base64url.
type cursorWire struct {
	Sort   string          `json:"s"`
	Desc   bool            `json:"d,omitempty"`
	Value  json.RawMessage `json:"v,omitempty"`
	ID     int64           `json:"i"`
	Offset int64           `json:"o"`
	Print  string          `json:"f"`
}

// maxCursorLen bounds what DecodeCursor reads: a cursor of the longest
// e-mail (254 bytes) escaped as JSON stays well below it.
const maxCursorLen = 2048

// maxCursorOffset is the largest offset a cursor can carry: the end of the
// last page a page parameter can name.
const maxCursorOffset = (int64(MaxPage) + 1) * MaxPageSize

// SearchName is the form of a name that search matches and sorts by
// (trainees.search_name): the name lower-cased, by Go for both databases.
func SearchName(name string) string { return strings.ToLower(name) }

// SearchFingerprint identifies a search's q, status, sort and filters
// (expiresWithin, inactiveFor, createdSince): a cursor made by one search
// is refused by another.
func SearchFingerprint(s Search) string {
	var tail []byte
	if s.Desc {
		tail = []byte{1}
	}
	return fingerprint(append([]string{s.Query, s.Status, s.Sort}, filterPrint(s)...), tail...)
}

// fingerprint is a short hash of parts and tail: what a cursor carries to
// name the list that made it.
func fingerprint(parts []string, tail ...byte) string {
	h := sha256.New()
	for _, part := range parts {
		h.Write([]byte(part))
		h.Write([]byte{0})
	}
	h.Write(tail)
	return base64.RawURLEncoding.EncodeToString(h.Sum(nil)[:6])
}

// sortKind is how a cursor carries the value of a sort key.
func sortKind(sort string) (str, num bool) {
	switch sort {
	case SortName, SortEmail:
		return true, false
	case SortExpirationDate, SortLastTrained:
		return false, true
	}
	return false, false
}

// Encode is the cursor's opaque wire form: base64url without padding.
func (c Cursor) Encode() string {
	w := cursorWire{Sort: c.Sort, Desc: c.Desc, ID: c.ID, Offset: c.Offset, Print: c.Fingerprint}
	str, num := sortKind(c.Sort)
	var err error
	switch {
	case (str || num) && c.Null:
		w.Value = json.RawMessage("null")
	case str:
		w.Value, err = json.Marshal(c.Str)
	case num:
		w.Value, err = json.Marshal(c.Int)
	}
	if err != nil {
		panic(err) // a string or an int always marshals
	}
	return encodeWire(w)
}

// encodeWire is a cursor's opaque form: base64url, without padding, of
// its wire struct w as JSON.
func encodeWire(w any) string {
	b, err := json.Marshal(w)
	if err != nil {
		panic(err) // strings and integers always marshal
	}
	return base64.RawURLEncoding.EncodeToString(b)
}

var errBadCursor = errors.New("malformed cursor")

// decodeWire reads what encodeWire wrote into w: one JSON object of w's
// members only, at most maxCursorLen long.
func decodeWire(s string, w any) error {
	if s == "" || len(s) > maxCursorLen {
		return errBadCursor
	}
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return errBadCursor
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(w); err != nil || dec.More() {
		return errBadCursor
	}
	return nil
}

// DecodeCursor reads a cursor that Encode wrote; anything else is an error.
func DecodeCursor(s string) (Cursor, error) {
	var w cursorWire
	if err := decodeWire(s, &w); err != nil {
		return Cursor{}, err
	}
	c := Cursor{Sort: w.Sort, Desc: w.Desc, ID: w.ID, Offset: w.Offset, Fingerprint: w.Print}
	if !sortKeys[c.Sort] || c.ID < 1 || c.Offset < 1 || c.Offset > maxCursorOffset || c.Fingerprint == "" {
		return Cursor{}, errBadCursor
	}
	str, num := sortKind(c.Sort)
	switch {
	case !str && !num:
		if w.Value != nil {
			return Cursor{}, errBadCursor
		}
	case bytes.Equal(w.Value, []byte("null")):
		c.Null = true
	case str:
		if json.Unmarshal(w.Value, &c.Str) != nil {
			return Cursor{}, errBadCursor
		}
	case num:
		if json.Unmarshal(w.Value, &c.Int) != nil {
			return Cursor{}, errBadCursor
		}
	}
	return c, nil
}

// Offset is the position of the search's first row: the cursor's, or
// page × size.
func (s Search) Offset() int64 {
	if s.Cursor != nil {
		return s.Cursor.Offset
	}
	return int64(s.Page) * int64(s.Size)
}

// NextCursor is the cursor of the page after content, the page this
// search read given total from the store (see SearchTrainees), or nil
// when content is the last page.
func (s Search) NextCursor(content []*Trainee, total int64) *string {
	if len(content) == 0 || total <= s.Offset()+int64(len(content)) {
		return nil
	}
	if s.Sort == "" {
		s.Sort = SortID
	}
	last := content[len(content)-1]
	c := Cursor{Sort: s.Sort, Desc: s.Desc, ID: last.ID, Offset: s.Offset() + int64(len(content)), Fingerprint: SearchFingerprint(s)}
	switch s.Sort {
	case SortName:
		c.Str = SearchName(last.Name)
	case SortEmail:
		c.Str = last.Email
	case SortExpirationDate:
		c.Null = last.ExpirationDate == nil
		if !c.Null {
			c.Int = last.ExpirationDate.Int()
		}
	case SortLastTrained:
		c.Null = last.LastTrained == nil
		if !c.Null {
			c.Int = last.LastTrained.Int()
		}
	}
	enc := c.Encode()
	return &enc
}
