package api

import (
	"flag"
	"fmt"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
)

var updateDocs = flag.Bool("update-docs", false, "rewrite docs/api.md's table of the trainee's fields from the field table")

// The surfaces of the field table that are documents: openapi.yaml's
// Trainee, CreateTraineeRequest and UpdateTraineeRequest have exactly the
// table's fields (required where the table says so), and docs/api.md's
// table of the trainee's fields is the one the table renders. A field
// added to the table, or dropped from it, fails here until both say so
// (`go test ./api -run TestFieldTableSurfaces -update-docs` rewrites the
// docs' table; the schema's property is written by hand).
func TestFieldTableSurfaces(t *testing.T) {
	doc, err := openapi3.NewLoader().LoadFromData(OpenAPIDocument)
	if err != nil {
		t.Fatal(err)
	}
	schema := func(name string) *openapi3.Schema {
		ref, ok := doc.Components.Schemas[name]
		if !ok || ref.Value == nil {
			t.Fatalf("openapi.yaml has no schema %s", name)
		}
		return ref.Value
	}
	props := func(s *openapi3.Schema) []string {
		var out []string
		for name := range s.Properties {
			out = append(out, name)
		}
		slices.Sort(out)
		return out
	}
	sorted := func(names []string) []string { return slices.Sorted(slices.Values(names)) }
	var create, required, update []string
	for _, pf := range TraineePatchFields {
		update = append(update, pf.Name)
		if pf.Create != "" {
			create = append(create, pf.Name)
		}
		if pf.Create == CreateRequired {
			required = append(required, pf.Name)
		}
	}
	for _, c := range []struct {
		schema         string
		props, require []string
	}{
		{"Trainee", TraineeFieldNames, TraineeFieldNames},
		{"CreateTraineeRequest", create, required},
		{"UpdateTraineeRequest", update, nil},
	} {
		s := schema(c.schema)
		if got, want := props(s), sorted(c.props); !slices.Equal(got, want) {
			t.Errorf("openapi.yaml's %s has the properties %v; the field table's are %v", c.schema, got, want)
		}
		if got, want := sorted(s.Required), sorted(c.require); !slices.Equal(got, want) {
			t.Errorf("openapi.yaml's %s requires %v; the field table requires %v", c.schema, got, want)
		}
	}

	const path = "../docs/api.md"
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	text := string(raw)
	const begin, end = "<!-- fields: begin (go test ./api -run TestFieldTableSurfaces -update-docs) -->\n", "<!-- fields: end -->\n"
	i, j := strings.Index(text, begin), strings.Index(text, end)
	if i < 0 || j < i {
		t.Fatalf("%s has no table of the trainee's fields between %q and %q", path, begin, end)
	}
	want := fieldsTable()
	if got := text[i+len(begin) : j]; got != want {
		if *updateDocs {
			if err := os.WriteFile(path, []byte(text[:i+len(begin)]+want+text[j:]), 0o644); err != nil {
				t.Fatal(err)
			}
			return
		}
		t.Errorf("%s's table of the trainee's fields is not the field table's; run go test ./api -run TestFieldTableSurfaces -update-docs\nwant:\n%s\ngot:\n%s", path, want, got)
	}
}

// fieldsTable renders the field table as docs/api.md shows it: every field
// of Trainee in its order, then the write-only ones.
func fieldsTable() string {
	var b strings.Builder
	b.WriteString("| Field | Type | `null` when unset | In a create | In an update (`PUT`) |\n|---|---|---|---|---|\n")
	row := func(name, typ, null, create, update string) {
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s |\n", name, typ, null, create, update)
	}
	yesNo := map[bool]string{true: "yes", false: "no"}
	for i, name := range TraineeFieldNames {
		f := traineeType.Field(i)
		null := yesNo[f.Type.Kind() == reflect.Pointer]
		if pf := PatchFieldNamed(name); pf != nil {
			row(name, patchType(pf), null, createText(pf), updateText(pf))
		} else {
			row(name, readOnlyType(f.Type), null, "ignored: the server sets it", "ignored")
		}
	}
	for _, pf := range TraineePatchFields {
		if pf.WriteOnly {
			row(pf.Name, patchType(&pf), "never shown", createText(&pf), updateText(&pf))
		}
	}
	return b.String()
}

func patchType(pf *PatchField) string {
	typ := pf.Kind
	if pf.Kind == KindDate {
		typ = "date (`dd-MM-yyyy`)"
	}
	if len(pf.Enum) > 0 {
		typ += ": `" + strings.Join(pf.Enum, "`, `") + "`"
	}
	return typ
}

func readOnlyType(t reflect.Type) string {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case t == dateType:
		return "date (`dd-MM-yyyy`)"
	case t.Kind() == reflect.Slice:
		return "array of strings"
	case t.Kind() == reflect.Int64:
		return KindInteger
	case t.Kind() == reflect.Bool:
		return KindBoolean
	}
	return KindString
}

func createText(pf *PatchField) string {
	switch {
	case pf.Create == CreateRequired:
		return "required"
	case pf.Create == "":
		return "ignored"
	case pf.Default != "":
		return "optional (default `" + pf.Default + "`)"
	}
	return "optional"
}

func updateText(pf *PatchField) string {
	if pf.Nullable {
		return "yes; `null` clears it"
	}
	return "yes"
}
