package textout

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"maps"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/apitest"
)

// stored is what a database may hold.
const stored = apitest.HostileStored

func TestTruncate(t *testing.T) {
	for _, tc := range []struct {
		in   string
		w    int
		want string
	}{{"abcdef", 6, "abcdef"}, {"abcdef", 5, "abcd…"}, {"héllo wörld", 6, "héllo…"}, {"abc", 1, "…"}, {"abc", 0, ""}} {
		if got := Truncate(tc.in, tc.w); got != tc.want {
			t.Errorf("Truncate(%q, %d) = %q, want %q", tc.in, tc.w, got, tc.want)
		}
	}
}

// JSON and YAML keep every string exactly, and write none of the
// characters a terminal acts on or that reorder text, the marks included:
// a string with only a bidirectional override or mark (which YAML counts
// as printable, and would write plain) or only DEL or a C1 control (which
// encoding/json writes raw) included; keys too.
func TestJSONAndYAMLEscapeExactly(t *testing.T) {
	v := map[string]string{"bidi": "Bidi \u202egnp.exe", "isolate": "a\u2066b\u2069", "del": "x\x7fy", "csi": "\u009b31m",
		"esc": "\x1b[2J", "mark": "\u200fok", "alm": "\u061c", "ls": "a\u2028b", "nl": "a\nb", "tab": "a\tb",
		"stored": stored, "plain": "Ada Park", "key \u202e\u200e": "k"}
	for name, write := range map[string]func(*bytes.Buffer) error{
		"json":      func(b *bytes.Buffer) error { return WriteJSON(b, v) },
		"json line": func(b *bytes.Buffer) error { return WriteJSONLine(b, v) },
		"yaml":      func(b *bytes.Buffer) error { return WriteYAML(b, v) },
	} {
		var b bytes.Buffer
		if err := write(&b); err != nil {
			t.Fatal(err)
		}
		if err := apitest.Unescaped(b.String(), "\n", true); err != nil {
			t.Errorf("%s: %v\n%s", name, err, b.String())
		}
		var back map[string]string
		if err := yaml.Unmarshal(b.Bytes(), &back); err != nil || !maps.Equal(back, v) {
			t.Errorf("%s read back as %q (%v):\n%s", name, back, err, b.String())
		}
		if name != "yaml" {
			back = nil
			if err := json.Unmarshal(b.Bytes(), &back); err != nil || !maps.Equal(back, v) {
				t.Errorf("%s: JSON read back as %q (%v)", name, back, err)
			}
		}
	}
	var b bytes.Buffer
	if err := WriteJSON(&b, map[string]string{"a": "<b>&"}); err != nil || b.String() != "{\n  \"a\": \"<b>&\"\n}\n" {
		t.Errorf("json escapes HTML: %q", b.String())
	}
}

// A table, on a terminal and off it, and CSV show a stored value escaped
// in its own cell: one line a row, the cells' own tabs the only ones off a
// terminal, nothing a terminal acts on; the implicit direction marks show
// as they are.
func TestTablesEscapeCells(t *testing.T) {
	cols := []Column{{Header: "ID"}, {Header: "NAME", Flex: true}, {Header: "UNIT " + stored}}
	rows := [][]string{{"1", stored, "kg"}, {"2", "Ada", stored}}
	for _, width := range []int{0, 80, 1000} {
		var b bytes.Buffer
		if err := WriteTable(&b, width, cols, rows); err != nil {
			t.Fatal(err)
		}
		framing := "\n"
		if width == 0 {
			framing = "\n\t"
		}
		if err := apitest.Unescaped(b.String(), framing, false); err != nil {
			t.Errorf("width %d: %v\n%s", width, err, b.String())
		}
		lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
		if len(lines) != 3 {
			t.Errorf("width %d: %d lines for 3 rows:\n%s", width, len(lines), b.String())
		}
		if width == 0 {
			for _, l := range lines {
				if n := strings.Count(l, "\t"); n != 2 {
					t.Errorf("a line of %d tabs: %q", n, l)
				}
			}
			if !strings.Contains(lines[1], "\t"+api.EscapeText(stored)+"\t") || !strings.Contains(lines[1], "\u200emark\u200f") {
				t.Errorf("the value not whole and escaped: %q", lines[1])
			}
		}
	}
	var b bytes.Buffer
	if err := WriteCSV(&b, []string{"id", "name"}, [][]string{{"1", stored}}); err != nil {
		t.Fatal(err)
	}
	if err := apitest.Unescaped(b.String(), "\n", false); err != nil {
		t.Errorf("csv: %v\n%s", err, b.String())
	}
	recs, err := csv.NewReader(&b).ReadAll()
	if err != nil || len(recs) != 2 || recs[1][1] != api.EscapeText(stored) {
		t.Errorf("csv read back as %q (%v)", recs, err)
	}
}

// A table too wide for the screen loses its empty columns first, then its
// last ones, never the first, and no line is wider than the screen.
func TestTableDropsEmptyColumnsFirst(t *testing.T) {
	cols := []Column{{Header: "ID"}, {Header: "WHEN"}, {Header: "EMPTY"}, {Header: "WHAT"}, {Header: "WHO"}}
	rows := [][]string{{"1", "2026-11-28 00:31", "-", "trainee.updated", "Maya Brooks"}, {"2", "2026-11-28 00:32", "", "trainee.created", "system"}}
	var b strings.Builder
	if err := WriteTable(&b, 50, cols, rows); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if strings.Contains(out, "EMPTY") || !strings.Contains(out, "WHO") || !strings.Contains(out, "2026-11-28 00:31") {
		t.Errorf("at 50 columns the empty column goes, the others stay:\n%s", out)
	}
	b.Reset()
	if err := WriteTable(&b, 36, cols, rows); err != nil {
		t.Fatal(err)
	}
	out = b.String()
	if strings.Contains(out, "WHO") || !strings.Contains(out, "ID") || !strings.Contains(out, "2026-11-28 00:31") {
		t.Errorf("at 36 columns the last column goes, whole cells stay:\n%s", out)
	}
	for _, l := range strings.Split(out, "\n") {
		if len([]rune(l)) > 36 {
			t.Errorf("a line of %d: %q", len([]rune(l)), l)
		}
	}
}
