package api

import (
	"encoding/json"
	"reflect"
	"slices"
	"sort"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
)

// TestPatchMatchesDocument holds TraineePatch and the document's
// UpdateTraineeRequest to one another: the same fields, each of the same
// JSON type, nullable alike, write-only alike, with the same enum values;
// and Trainee's fields to the Trainee schema's properties.
func TestPatchMatchesDocument(t *testing.T) {
	doc := loadOpenAPI(t)
	schema := func(name string) *openapi3.Schema {
		ref := doc.Components.Schemas[name]
		if ref == nil || ref.Value == nil {
			t.Fatalf("openapi.yaml has no schema %s", name)
		}
		return ref.Value
	}
	req := schema("UpdateTraineeRequest")

	var inDoc, inType []string
	for name := range req.Properties {
		inDoc = append(inDoc, name)
	}
	for _, f := range TraineePatchFields {
		inType = append(inType, f.Name)
	}
	sort.Strings(inDoc)
	sort.Strings(inType)
	if !slices.Equal(inDoc, inType) {
		t.Fatalf("UpdateTraineeRequest has %v, TraineePatch has %v", inDoc, inType)
	}

	wantType := map[string]string{KindString: "string", KindDate: "string", KindInteger: "integer", KindBoolean: "boolean"}
	for _, f := range TraineePatchFields {
		p := req.Properties[f.Name].Value
		types := p.Type.Slice()
		if len(types) == 0 && len(p.AllOf) == 0 && req.Properties[f.Name].Ref == "" {
			t.Errorf("%s: no type in the document", f.Name)
			continue
		}
		if len(types) > 0 {
			if !slices.Contains(types, wantType[f.Kind]) {
				t.Errorf("%s: document type %v, the patch's is %s", f.Name, types, wantType[f.Kind])
			}
			if got := slices.Contains(types, "null"); got != f.Nullable {
				t.Errorf("%s: nullable in the document %v, in the patch %v", f.Name, got, f.Nullable)
			}
		} else if f.Nullable {
			t.Errorf("%s: nullable in the patch but a plain reference in the document", f.Name)
		}
		if f.Kind == KindDate && p.Pattern != `^\d{2}-\d{2}-\d{4}$` {
			t.Errorf("%s: a date without the dd-MM-yyyy pattern: %q", f.Name, p.Pattern)
		}
		if p.WriteOnly != f.WriteOnly {
			t.Errorf("%s: writeOnly %v in the document, %v in the patch", f.Name, p.WriteOnly, f.WriteOnly)
		}
		var enum []string
		for _, v := range p.Enum {
			enum = append(enum, v.(string))
		}
		if !slices.Equal(enum, f.Enum) {
			t.Errorf("%s: enum %v in the document, %v in the patch", f.Name, enum, f.Enum)
		}
	}

	// The representation: every field of Trainee and nothing else.
	var props, fields []string
	for name := range schema("Trainee").Properties {
		props = append(props, name)
	}
	tt := reflect.TypeFor[Trainee]()
	for i := range tt.NumField() {
		fields = append(fields, jsonName(tt.Field(i)))
	}
	sort.Strings(props)
	sort.Strings(fields)
	if !slices.Equal(props, fields) {
		t.Errorf("schema Trainee has %v, api.Trainee has %v", props, fields)
	}
}

// TestPatchEncodesItself checks the three states of every kind of field
// through JSON, and that decoding marks what was present.
func TestPatchEncodesItself(t *testing.T) {
	var p TraineePatch
	if b, _ := jsonMarshal(p); b != `{}` {
		t.Errorf("empty patch: %s", b)
	}
	p = TraineePatch{Name: Val("Ada"), PhoneNumber: Null[string](), ExpirationDate: Val(Date{2027, 1, 31}), TrainerID: Val(int64(7)), Enabled: Val(false)}
	want := `{"name":"Ada","phoneNumber":null,"expirationDate":"31-01-2027","trainerId":7,"enabled":false}`
	b, err := jsonMarshal(p)
	if err != nil || b != want {
		t.Fatalf("got %s %v, want %s", b, err, want)
	}
	var back TraineePatch
	if err := jsonUnmarshal(want, &back); err != nil || !reflect.DeepEqual(back, p) {
		t.Fatalf("decoded %+v %v, want %+v", back, err, p)
	}
	if names := back.Names(); !slices.Equal(names, []string{"name", "phoneNumber", "expirationDate", "trainerId", "enabled"}) {
		t.Errorf("Names = %v", names)
	}
}

func TestPatchWithout(t *testing.T) {
	phone := "+447700900123"
	tr := &Trainee{Name: "Ada", Email: "ada@example.com", PhoneNumber: &phone, WeightUnit: UnitKG, Enabled: true}
	p := TraineePatch{
		Name: Val("Ada"), Email: Val("ada.new@example.com"), PhoneNumber: Val(phone), DateOfBirth: Null[Date](),
		ExpirationDate: Val(Date{2027, 1, 1}), WeightUnit: Val(UnitKG), Password: Val("new-password"),
	}
	got := p.Without(tr)
	if names := got.Names(); !slices.Equal(names, []string{"email", "password", "expirationDate"}) {
		t.Errorf("Without = %v", names)
	}
}

func jsonMarshal(v any) (string, error) {
	b, err := json.Marshal(v)
	return string(b), err
}

func jsonUnmarshal(s string, v any) error { return json.Unmarshal([]byte(s), v) }
