package bulkexport

import (
	"bytes"
	"testing"

	"github.com/traineed/traineed/api"
)

func TestFormats(t *testing.T) {
	for in, want := range map[string]Format{"a.csv": CSV, "A.CSV": CSV, "x.jsonl": JSONL, "x.ndjson": JSONL, "x.yaml": YAML, "x.yml": YAML} {
		if got, ok := FormatOf(in); !ok || got != want {
			t.Errorf("FormatOf(%q) = %q, %v", in, got, ok)
		}
	}
	for _, in := range []string{"x", "x.txt", "x.json", "csv"} {
		if got, ok := FormatOf(in); ok {
			t.Errorf("FormatOf(%q) = %q", in, got)
		}
	}
	if _, err := ParseFormat("xml"); err == nil {
		t.Error("ParseFormat(xml) accepted")
	}
	if w, err := ParseWith([]string{"Steps", "weight", "steps"}); err != nil || len(w) != 2 {
		t.Errorf("ParseWith: %v %v", w, err)
	}
	if _, err := ParseWith([]string{"pulse"}); err == nil {
		t.Error("ParseWith(pulse) accepted")
	}
}

// Text that a YAML parser refuses raw (DEL, C1) is written escaped; an
// empty YAML export is the empty list; CSV refuses tracked data.
func TestWriterEdges(t *testing.T) {
	var b bytes.Buffer
	w, err := NewWriter(&b, YAML)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil || b.String() != "[]\n" {
		t.Fatalf("empty yaml %q %v", b.String(), err)
	}
	b.Reset()
	w, _ = NewWriter(&b, YAML)
	r := FromTrainee(&api.Trainee{Name: "A\u009bB \u202e", Email: "a@example.com", WeightUnit: api.UnitKG})
	if err := w.Write(&r); err != nil {
		t.Fatal(err)
	}
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(w.Close())
	want := "- name: \"A\\u009bB \\u202e\"\n  email: \"a@example.com\"\n  weightUnit: \"KG\"\n  enabled: false\n  forcePasswordChange: false\n"
	if b.String() != want {
		t.Errorf("yaml %q, want %q", b.String(), want)
	}
	w, _ = NewWriter(&b, CSV)
	r.Steps = &[]api.ExportSteps{}
	if err := w.Write(&r); err == nil {
		t.Error("CSV took tracked data")
	}
}
