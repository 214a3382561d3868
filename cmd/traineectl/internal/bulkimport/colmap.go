package bulkimport

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/traineed/traineed/api"
)

// ColumnMap says which column of another system's export fills which
// field: --map 'Client Name=name,E-mail Address=email,Birthday=dateOfBirth:MM/DD/YYYY'
// or the same entries one a line in a --map-file. A column mapped to "-"
// is ignored on purpose. With a map, columns neither mapped nor named like
// a field are ignored and reported once (Input.Ignored).
type ColumnMap struct {
	entries []MapEntry
	byKey   map[string]int // lower-cased, trimmed header -> index in entries
}

// MapEntry is one column of a map.
type MapEntry struct {
	Column string // the header as the map writes it
	Field  string // the API field, "" to ignore the column
	// Layout is the date layout as written (MM/DD/YYYY), "" for the
	// default; goLayout is it for time.Parse.
	Layout   string
	goLayout string
}

// ParseMap reads --map: entries separated by commas.
func ParseMap(s string) (*ColumnMap, error) {
	m := &ColumnMap{byKey: map[string]int{}}
	for _, part := range strings.Split(s, ",") {
		if strings.TrimSpace(part) == "" {
			continue
		}
		if err := m.add(part); err != nil {
			return nil, fmt.Errorf("--map: %w", err)
		}
	}
	if len(m.entries) == 0 {
		return nil, fmt.Errorf("--map: no entries (write 'Column=field,...')")
	}
	return m, nil
}

// ReadMap reads a --map-file: an entry a line (so a column name may hold
// a comma), blank lines and lines starting with # ignored.
func ReadMap(r io.Reader, name string) (*ColumnMap, error) {
	m := &ColumnMap{byKey: map[string]int{}}
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if n == 1 {
			line = strings.TrimPrefix(line, "\ufeff")
		}
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if err := m.add(line); err != nil {
			return nil, fmt.Errorf("%s line %d: %w", name, n, err)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	if len(m.entries) == 0 {
		return nil, fmt.Errorf("%s has no entries (write Column=field, one a line)", name)
	}
	return m, nil
}

// add reads one entry: Column=field or Column=field:LAYOUT or Column=-.
// The column is what precedes the last "=", so a header may hold one.
func (m *ColumnMap) add(s string) error {
	i := strings.LastIndex(s, "=")
	if i < 0 {
		return fmt.Errorf("%q is not Column=field", strings.TrimSpace(s))
	}
	col, target := strings.TrimSpace(s[:i]), strings.TrimSpace(s[i+1:])
	if col == "" {
		return fmt.Errorf("%q names no column", strings.TrimSpace(s))
	}
	e := MapEntry{Column: col}
	if target != "-" {
		name, layout, hasLayout := strings.Cut(target, ":")
		f, ok := columns[strings.ToLower(strings.TrimSpace(name))]
		if !ok {
			return fmt.Errorf("%q: unknown field %q; the fields are %s", col, name, ColumnNames)
		}
		e.Field = f
		if hasLayout {
			if !isDateField(f) {
				return fmt.Errorf("%q: a date layout is for dateOfBirth and expirationDate, not %s", col, f)
			}
			gl, err := goDateLayout(strings.TrimSpace(layout))
			if err != nil {
				return fmt.Errorf("%q: %w", col, err)
			}
			e.Layout, e.goLayout = strings.TrimSpace(layout), gl
		}
	}
	key := strings.ToLower(col)
	if _, dup := m.byKey[key]; dup {
		return fmt.Errorf("column %q is mapped twice", col)
	}
	m.byKey[key] = len(m.entries)
	m.entries = append(m.entries, e)
	return nil
}

// Entries are the map's entries in the order written.
func (m *ColumnMap) Entries() []MapEntry { return m.entries }

// lookup returns the entry of a header (any case), or nil.
func (m *ColumnMap) lookup(header string) *MapEntry {
	if m == nil {
		return nil
	}
	i, ok := m.byKey[strings.ToLower(strings.TrimSpace(header))]
	if !ok {
		return nil
	}
	return &m.entries[i]
}

// missing lists the map's columns that headers lacks.
func (m *ColumnMap) missing(headers []string) []string {
	if m == nil {
		return nil
	}
	have := map[string]bool{}
	for _, h := range headers {
		have[strings.ToLower(strings.TrimSpace(h))] = true
	}
	var out []string
	for _, e := range m.entries {
		if !have[strings.ToLower(e.Column)] {
			out = append(out, fmt.Sprintf("%q", e.Column))
		}
	}
	return out
}

func isDateField(f string) bool { return f == "dateOfBirth" || f == "expirationDate" }

// dateTokens are the parts of a date layout and Go's for them, longest
// first; part is 'y', 'm' or 'd'.
var dateTokens = []struct {
	token, goForm string
	part          byte
}{{"YYYY", "2006", 'y'}, {"YY", "06", 'y'}, {"MM", "01", 'm'}, {"M", "1", 'm'}, {"DD", "02", 'd'}, {"D", "2", 'd'}}

// goDateLayout turns a layout written with YYYY, YY, MM, M, DD and D (any
// other character kept as it is) into time.Parse's; a layout already in
// Go's form (holding 2006) is taken as it is.
func goDateLayout(l string) (string, error) {
	if l == "" {
		return "", fmt.Errorf("empty date layout")
	}
	if strings.Contains(l, "2006") {
		return l, nil
	}
	var b strings.Builder
	up := strings.ToUpper(l)
	parts := map[byte]bool{}
next:
	for i := 0; i < len(up); {
		for _, t := range dateTokens {
			if strings.HasPrefix(up[i:], t.token) {
				b.WriteString(t.goForm)
				i, parts[t.part] = i+len(t.token), true
				continue next
			}
		}
		if up[i] >= 'A' && up[i] <= 'Z' || up[i] >= '0' && up[i] <= '9' {
			return "", fmt.Errorf("date layout %q: use YYYY (or YY), MM (or M) and DD (or D) and separators", l)
		}
		b.WriteByte(l[i])
		i++
	}
	if len(parts) < 3 {
		return "", fmt.Errorf("date layout %q needs a year, a month and a day", l)
	}
	return b.String(), nil
}

// parseDate reads a cell with the entry's layout and gives the API's
// dd-MM-yyyy.
func (e *MapEntry) parseDate(cell string) (string, error) {
	t, err := time.Parse(e.goLayout, cell)
	if err != nil {
		return "", fmt.Errorf("%s: %q does not match the date layout %s of column %q", e.Field, cell, e.Layout, e.Column)
	}
	return t.Format(api.DateLayout), nil
}
