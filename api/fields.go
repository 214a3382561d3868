package api

import (
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// The fields of a trainee are declared once, in TraineePatch (what a
// create or an update writes, with its tags) and in Trainee (what is
// shown). What a create carries, CreateRequest on the wire and NewTrainee
// in the store, holds each create field of TraineePatch under the same Go
// name, as a value (required ones, and optional ones with a default) or a
// pointer (nil: absent); the functions below copy between them by those
// names, so no code lists the fields again.

// CreateFields are the fields of TraineePatch that a create takes, in
// order: the flags of `traineectl create`, the columns of a bulk import.
var CreateFields = func() []*PatchField {
	var out []*PatchField
	for i := range TraineePatchFields {
		if TraineePatchFields[i].Create != "" {
			out = append(out, &TraineePatchFields[i])
		}
	}
	return out
}()

// FormFields are the fields of TraineePatch in the TUI's form, in order.
var FormFields = func() []*PatchField {
	var out []*PatchField
	for i := range TraineePatchFields {
		if TraineePatchFields[i].Label != "" {
			out = append(out, &TraineePatchFields[i])
		}
	}
	return out
}()

// ReadOnlyFields are the fields of Trainee that no create or update
// writes: the server sets them. Every other field of Trainee is a field of
// TraineePatch (a test holds the two lists to Trainee).
var ReadOnlyFields = []string{"id", "userId", "username", "companyId", "createdByType", "authorities", "lastTrained"}

// TraineeLabels are the label tags of Trainee's fields by JSON name: how
// people read each field.
var TraineeLabels = func() map[string]string {
	m := map[string]string{}
	for i := range traineeType.NumField() {
		f := traineeType.Field(i)
		m[jsonName(f)] = f.Tag.Get("label")
	}
	return m
}()

// ProfileFields are the JSON names of Trainee in the order a profile
// shows them: Trainee's order, the identifiers (id, userId, companyId)
// last.
var ProfileFields = func() []string {
	var out, ids []string
	for _, name := range TraineeFieldNames {
		if name == "id" || strings.HasSuffix(name, "Id") && slices.Contains(ReadOnlyFields, name) {
			ids = append(ids, name)
			continue
		}
		out = append(out, name)
	}
	return append(out, ids...)
}()

// TraineeFieldNames are the JSON names of Trainee, in its order.
var TraineeFieldNames = func() []string {
	out := make([]string, traineeType.NumField())
	for i := range out {
		out[i] = jsonName(traineeType.Field(i))
	}
	return out
}()

// TraineeValue is the value of the Trainee field of JSON name name (nil
// when null or when Trainee has no such field).
func TraineeValue(t *Trainee, name string) any {
	i, ok := traineeFieldIndex[name]
	if !ok {
		return nil
	}
	v := reflect.ValueOf(t).Elem().Field(i)
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return nil
		}
		v = v.Elem()
	}
	return v.Interface()
}

// FormatText is a value of a field as ParseText reads it back, and as a
// CSV cell shows it: "" for nil, a date dd-MM-yyyy, a list joined by ";".
func FormatText(v any) string {
	switch v := v.(type) {
	case nil:
		return ""
	case string:
		return v
	case Date:
		return v.String()
	case int64:
		return strconv.FormatInt(v, 10)
	case bool:
		return strconv.FormatBool(v)
	case []string:
		return strings.Join(v, ";")
	}
	return fmt.Sprint(v)
}

// patchOf reads the create fields of a struct (CreateRequest,
// NewTrainee): a non-nil pointer or a non-empty value is set.
func patchOf(src reflect.Value) TraineePatch {
	var p TraineePatch
	for _, pf := range CreateFields {
		v := src.FieldByName(pf.goName)
		if !v.IsValid() || v.IsZero() {
			continue
		}
		if v.Kind() == reflect.Pointer {
			v = v.Elem()
		}
		pf.Set(&p, v.Interface())
	}
	return p
}

// setFrom writes the create fields p sets into a struct (CreateRequest,
// NewTrainee); a null clears the field.
func setFrom(dst reflect.Value, p *TraineePatch) {
	for _, pf := range CreateFields {
		v := dst.FieldByName(pf.goName)
		set, _, val := pf.Get(p)
		if !v.IsValid() || !set {
			continue
		}
		if val == nil {
			v.SetZero()
			continue
		}
		if v.Kind() == reflect.Pointer {
			n := reflect.New(v.Type().Elem())
			n.Elem().Set(reflect.ValueOf(val))
			v.Set(n)
			continue
		}
		v.Set(reflect.ValueOf(val))
	}
}

// Patch is the create fields r sets, as a TraineePatch.
func (r *CreateRequest) Patch() TraineePatch { return patchOf(reflect.ValueOf(r).Elem()) }

// CreateRequestOf is the create request of the create fields p sets.
func CreateRequestOf(p TraineePatch) CreateRequest {
	var r CreateRequest
	setFrom(reflect.ValueOf(&r).Elem(), &p)
	return r
}

// Patch is the create fields nt sets, as a TraineePatch (the password,
// hashed, is in PasswordHash).
func (nt *NewTrainee) Patch() TraineePatch { return patchOf(reflect.ValueOf(nt).Elem()) }

// NewTraineeOf is the trainee a validated create request makes through the
// API, its password hashed: created by the company's admin, enabled.
func NewTraineeOf(r *CreateRequest, passwordHash string) NewTrainee {
	nt := NewTrainee{PasswordHash: passwordHash, CreatedByType: CreatedByAdmin, Enabled: true}
	p := r.Patch()
	setFrom(reflect.ValueOf(&nt).Elem(), &p)
	return nt
}

// validateCreateFields checks the create fields of p that parsing did not
// already report (skip) and gives the absent optional ones their default:
// first the text of every string field (1016, and no other check of that
// field), then each field's enum and rule (patchRules), in the order of
// TraineePatch. A required field that is absent is checked as empty.
func validateCreateFields(v *ValidationError, p *TraineePatch, today Date, skip map[string]bool) {
	for _, pf := range CreateFields {
		if set, _, val := pf.Get(p); set && pf.Kind == KindString && !skip[pf.Name] && !checkText(v, pf.Name, val.(string)) {
			skip[pf.Name] = true
		}
	}
	for _, pf := range CreateFields {
		if skip[pf.Name] {
			continue
		}
		set, _, val := pf.Get(p)
		switch {
		case !set && pf.Create == CreateRequired:
			pf.Set(p, reflect.Zero(reflect.TypeFor[TraineePatch]().Field(pf.index).Type.Field(2).Type).Interface())
		case !set && pf.Default != "":
			pf.Set(p, pf.Default)
			continue
		case !set:
			continue
		case len(pf.Enum) > 0 && !slices.Contains(pf.Enum, val.(string)):
			v.Add(CodeInvalidEnum, pf.Name, "%s must be %s", pf.Name, strings.Join(pf.Enum, " or "))
			continue
		}
		if rule := patchRules[pf.Name]; rule != nil {
			rule(v, p, today)
		}
	}
}

// SetDefaults gives every create field that p leaves absent and that has
// a default (Default) its default.
func (p *TraineePatch) SetDefaults() {
	for _, pf := range CreateFields {
		if set, _, _ := pf.Get(p); !set && pf.Default != "" {
			pf.Set(p, pf.Default)
		}
	}
}
