package api

import (
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
)

// TraineePatch is a change of a trainee, declared once for every side: the
// body of PUT /trainees/{id} that the Go client sends and ParseUpdate
// reads, what the store applies, the form of the TUI and the flags of
// `traineectl update`. Each field is absent, null or a value.
//
// The tags say everything else about a field:
//   - json: its API name, always with omitzero; the field of Trainee with
//     the same JSON name and type holds its value (but for writeonly ones);
//   - patch: "nullable" when null clears it (null is a 1001 for the other
//     fields), "writeonly" when no field of Trainee shows it;
//   - enum: the values it takes, when it is an enum;
//   - flag and help: the flag of `traineectl update` that sets it (none:
//     no flag) and the flag's help;
//   - create: "required" or "optional" when a create takes it (the body of
//     POST /trainees, CreateRequest and NewTrainee, generated from this
//     table into create_gen.go, hold it under the same Go name, `traineectl create` has its flag and a bulk import its
//     column); createHelp is the help of create's flag, default the value
//     an absent optional field takes;
//   - label, hint and editHint: the field's line in the TUI's form (none:
//     not in the form), its placeholder in a new trainee's form and in an
//     edit's (editHint absent: the hint).
//
// So adding a field takes a field here (with its rule in patchRules when
// it has one), its field in Trainee (then `go test ./api -run
// TestCreateTypesGenerated -update-gen` when a create takes it), its column in the store's model and
// migrations, and its line in api/openapi.yaml, which a test holds to this
// type. See "How to add a trainee field" in docs/architecture.md.
//
// Password is in clear in a request; the server replaces it by its
// argon2id hash before the store sees it.
type TraineePatch struct {
	Name                Optional[string] `json:"name,omitzero" flag:"name" help:"new full name" create:"required" createHelp:"full name (required)" label:"Name" hint:"required: 1 to 100 characters" editHint:""`
	Email               Optional[string] `json:"email,omitzero" patch:"format" flag:"email" help:"new e-mail address (the login changes with it)" create:"required" createHelp:"e-mail address, also the login (required)" label:"E-mail" hint:"required: like ada@example.com" editHint:""`
	Password            Optional[string] `json:"password,omitzero" patch:"writeonly" flag:"password" help:"new password, 8 to 128 characters" create:"required" createHelp:"initial password, 8 to 128 characters; the trainee must change it at first login" label:"Password" hint:"required: 8 to 128 characters" editHint:"unchanged"`
	PhoneNumber         Optional[string] `json:"phoneNumber,omitzero" patch:"nullable,format" flag:"phone" help:"new phone number in international format, or \"none\" to clear it" create:"optional" createHelp:"phone number in international format, like +447700900123" label:"Phone" hint:"optional: like +447700900123" editHint:"empty: none"`
	DateOfBirth         Optional[Date]   `json:"dateOfBirth,omitzero" patch:"nullable" flag:"dob" help:"new date of birth, or \"none\" to clear it" create:"optional" createHelp:"date of birth" label:"Date of birth" hint:"dd-MM-yyyy or yyyy-MM-dd (optional)" editHint:"dd-MM-yyyy or yyyy-MM-dd (empty: none)"`
	ExpirationDate      Optional[Date]   `json:"expirationDate,omitzero" patch:"nullable" flag:"expires" help:"new expiration date, or \"none\" for no expiration" create:"optional" createHelp:"date on which the trainee's program expires" label:"Expires" hint:"dd-MM-yyyy, yyyy-MM-dd, today (empty: never)"`
	TrainerID           Optional[int64]  `json:"trainerId,omitzero" flag:"trainer" help:"the new trainer: its id or its whole name (traineectl trainers lists them)" create:"optional" createHelp:"the trainer: its id or its whole name (default: the company's first trainer)" label:"Trainer id" hint:"empty: the company's first trainer" editHint:""`
	WeightUnit          Optional[string] `json:"weightUnit,omitzero" enum:"KG,LB" flag:"weight-unit" help:"KG or LB" create:"optional" default:"KG" createHelp:"KG or LB (default KG)" label:"Weight unit" hint:"KG or LB (empty: KG)" editHint:"KG or LB"`
	Enabled             Optional[bool]   `json:"enabled,omitzero"`
	ForcePasswordChange Optional[bool]   `json:"forcePasswordChange,omitzero" flag:"force-password-change" help:"whether the trainee must change the password at the next login"`
}

// Kinds of patch fields: the JSON type of their value.
const (
	KindString  = "string"
	KindDate    = "date" // a dd-MM-yyyy string
	KindInteger = "integer"
	KindBoolean = "boolean"
)

// Values of PatchField.Create.
const (
	CreateRequired = "required"
	CreateOptional = "optional"
)

// PatchField describes one field of TraineePatch, as its tags declare it.
type PatchField struct {
	Name      string // the API name
	Kind      string // KindString, KindDate, KindInteger or KindBoolean
	Nullable  bool   // null clears it
	WriteOnly bool   // never shown in a Trainee (the password)
	// Format: a string field whose validation refuses free text (an
	// e-mail address, a phone number): tag patch:"format". See FreeText.
	Format bool
	Enum   []string // the values of an enum field
	Flag   string   // traineectl update's flag, "" for none
	Help   string
	// Create is CreateRequired or CreateOptional when a create takes the
	// field, "" when it does not.
	Create     string
	CreateHelp string // the help of traineectl create's flag
	Default    string // the value of an absent optional field in a create ("": none)
	Label      string // the TUI form's label, "" when not in the form
	Hint       string // the form's placeholder for a new trainee
	EditHint   string // the form's placeholder when editing

	goName  string // the Go name, shared by CreateRequest and NewTrainee
	index   int    // in TraineePatch
	trainee int    // index of the Trainee field of the same name, -1 for write-only ones
}

// TraineePatchFields are the fields of TraineePatch, in declaration order
// (the order a body is written in, and its problems reported in).
var TraineePatchFields = patchFields()

var patchFieldByName = func() map[string]*PatchField {
	m := map[string]*PatchField{}
	for i := range TraineePatchFields {
		m[TraineePatchFields[i].Name] = &TraineePatchFields[i]
	}
	return m
}()

// FreeText reports whether the field takes any text: a string that is
// neither an enum nor of a format. A bulk file's column that merely
// resembles such a field's name is never taken for it (a CRM's "Notes").
func (f *PatchField) FreeText() bool {
	return f.Kind == KindString && len(f.Enum) == 0 && !f.Format
}

// PatchFieldNamed returns the field of an API name, or nil.
func PatchFieldNamed(name string) *PatchField { return patchFieldByName[name] }

var (
	traineeType = reflect.TypeFor[Trainee]()
	dateType    = reflect.TypeFor[Date]()
)

// jsonName is the name a json tag gives a struct field ("" for none).
func jsonName(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	if name == "-" {
		return ""
	}
	return name
}

// traineeFieldIndex maps the JSON names of Trainee to field indexes.
var traineeFieldIndex = func() map[string]int {
	m := map[string]int{}
	for i := range traineeType.NumField() {
		m[jsonName(traineeType.Field(i))] = i
	}
	return m
}()

// patchFields reads the tags of TraineePatch; a field that breaks the
// rules of its documentation panics at start-up (and in every test).
func patchFields() []PatchField {
	t := reflect.TypeFor[TraineePatch]()
	out := make([]PatchField, 0, t.NumField())
	for i := range t.NumField() {
		sf := t.Field(i)
		opts := strings.Split(sf.Tag.Get("patch"), ",")
		f := PatchField{
			Name: jsonName(sf), Nullable: slices.Contains(opts, "nullable"), WriteOnly: slices.Contains(opts, "writeonly"),
			Format: slices.Contains(opts, "format"),
			Flag:   sf.Tag.Get("flag"), Help: sf.Tag.Get("help"), index: i, trainee: -1,
			Create: sf.Tag.Get("create"), CreateHelp: sf.Tag.Get("createHelp"), Default: sf.Tag.Get("default"),
			Label: sf.Tag.Get("label"), Hint: sf.Tag.Get("hint"), goName: sf.Name,
		}
		f.EditHint = f.Hint
		if h, ok := sf.Tag.Lookup("editHint"); ok {
			f.EditHint = h
		}
		if f.Create != "" && f.Create != CreateRequired && f.Create != CreateOptional {
			panic(fmt.Sprintf("api: TraineePatch.%s: create must be %q or %q", sf.Name, CreateRequired, CreateOptional))
		}
		if e := sf.Tag.Get("enum"); e != "" {
			f.Enum = strings.Split(e, ",")
		}
		vt := sf.Type.Field(2).Type // Optional[T].Value
		switch {
		case vt == dateType:
			f.Kind = KindDate
		case vt.Kind() == reflect.String:
			f.Kind = KindString
		case vt.Kind() == reflect.Int64:
			f.Kind = KindInteger
		case vt.Kind() == reflect.Bool:
			f.Kind = KindBoolean
		default:
			panic(fmt.Sprintf("api: TraineePatch.%s: unsupported type %s", sf.Name, vt))
		}
		if !f.WriteOnly {
			ti, ok := traineeFieldIndex[f.Name]
			if !ok {
				panic(fmt.Sprintf("api: TraineePatch.%s: Trainee has no field %q", sf.Name, f.Name))
			}
			tt := traineeType.Field(ti).Type
			if tt != vt && tt != reflect.PointerTo(vt) {
				panic(fmt.Sprintf("api: TraineePatch.%s is %s but Trainee.%s is %s", sf.Name, vt, traineeType.Field(ti).Name, tt))
			}
			f.trainee = ti
		}
		out = append(out, f)
	}
	return out
}

// optional returns the Optional of field f in p (addressable when p is).
func (f *PatchField) optional(p reflect.Value) (set, null, value reflect.Value) {
	o := p.Field(f.index)
	return o.Field(0), o.Field(1), o.Field(2)
}

// Get returns the field's state in p: set, null, and the value (nil when
// absent or null).
func (f *PatchField) Get(p *TraineePatch) (set, null bool, value any) {
	s, n, v := f.optional(reflect.ValueOf(p).Elem())
	if !s.Bool() {
		return false, false, nil
	}
	if n.Bool() {
		return true, true, nil
	}
	return true, false, v.Interface()
}

// Set sets the field to value (nil: null), which must be of the field's
// type.
func (f *PatchField) Set(p *TraineePatch, value any) {
	s, n, v := f.optional(reflect.ValueOf(p).Elem())
	s.SetBool(true)
	n.SetBool(value == nil)
	if value == nil {
		v.SetZero()
		return
	}
	v.Set(reflect.ValueOf(value))
}

// Clear makes the field absent.
func (f *PatchField) Clear(p *TraineePatch) {
	reflect.ValueOf(p).Elem().Field(f.index).SetZero()
}

// Of returns the field's value in a trainee (nil when null there);
// write-only fields have none.
func (f *PatchField) Of(t *Trainee) any {
	if f.trainee < 0 {
		return nil
	}
	v := reflect.ValueOf(t).Elem().Field(f.trainee)
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return nil
		}
		v = v.Elem()
	}
	return v.Interface()
}

// ParseText reads a value of the field as a person types it: a date in
// any form ParseDateInput takes (now gives "today"), a decimal integer,
// true or false, an enum in any case, a string as it is.
func (f *PatchField) ParseText(text string, now time.Time) (any, error) {
	switch f.Kind {
	case KindDate:
		return ParseDateInput(text, now)
	case KindInteger:
		n, err := strconv.ParseInt(strings.TrimSpace(text), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%s must be a whole number, not %q", f.Name, text)
		}
		return n, nil
	case KindBoolean:
		b, err := strconv.ParseBool(strings.TrimSpace(text))
		if err != nil {
			return nil, fmt.Errorf("%s must be true or false, not %q", f.Name, text)
		}
		return b, nil
	}
	if len(f.Enum) > 0 {
		for _, e := range f.Enum {
			if strings.EqualFold(strings.TrimSpace(text), e) {
				return e, nil
			}
		}
		return nil, fmt.Errorf("%s must be %s, not %q", f.Name, strings.Join(f.Enum, " or "), text)
	}
	if err := f.CheckText(text); err != nil {
		return nil, err
	}
	return text, nil
}

// CheckText checks the characters of a text value of the field, as the
// server does before anything else: no character that text may not hold
// (CheckText, 1016), then, for a person's name, an e-mail address and a
// phone number, no invisible character (see invisibleChar: 1016, 1002,
// 1006). traineectl's flags and ParseText check a field's text with it
// before sending anything; the field's other rules (length, format) are
// the server's.
func (f *PatchField) CheckText(text string) error {
	v := &ValidationError{}
	if checkText(v, f.Name, text) {
		if rule := charRules[f.Name]; rule != nil {
			rule(v, text)
		}
	}
	return v.Err()
}

// charRules are the fields of TraineePatch whose text may not hold
// invisible characters, with the check of each (the first part of its
// rule in patchRules).
var charRules = map[string]func(v *ValidationError, s string) bool{
	"name":        func(v *ValidationError, s string) bool { return checkNameChars(v, "name", s) },
	"email":       checkEmailChars,
	"phoneNumber": checkPhoneChars,
}

// Names lists the API names of the fields p sets, in order.
func (p *TraineePatch) Names() []string {
	var out []string
	for i := range TraineePatchFields {
		if set, _, _ := TraineePatchFields[i].Get(p); set {
			out = append(out, TraineePatchFields[i].Name)
		}
	}
	return out
}

// IsEmpty reports whether p sets no field.
func (p *TraineePatch) IsEmpty() bool { return len(p.Names()) == 0 }

// Without returns p without the fields whose value t has already: what a
// form or an import must send to make t look like p. Write-only fields
// stay.
func (p TraineePatch) Without(t *Trainee) TraineePatch {
	for i := range TraineePatchFields {
		f := &TraineePatchFields[i]
		set, _, v := f.Get(&p)
		if set && !f.WriteOnly && v == f.Of(t) {
			f.Clear(&p)
		}
	}
	return p
}

// Normalize writes the fields of p in their stored form, as validation
// does: the name trimmed, the e-mail trimmed and lower-cased, the phone
// in E.164 (api.PhoneE164) when it parses, else without separators.
func (p *TraineePatch) Normalize() {
	if p.Name.Set {
		p.Name.Value = strings.TrimSpace(p.Name.Value)
	}
	if p.Email.Set {
		p.Email.Value = NormalizeEmail(p.Email.Value)
	}
	if p.PhoneNumber.Set && !p.PhoneNumber.Null {
		p.PhoneNumber.Value = NormalizePhone(p.PhoneNumber.Value)
	}
}

// ChangedFields lists the API names of the updatable fields whose values
// differ between before and after, in the order of the trainee
// representation (webhooks' changedFields). username follows email and is
// not listed on its own.
func ChangedFields(before, after *Trainee) []string {
	var out []string
	for _, f := range traineeOrder {
		if f.Of(before) != f.Of(after) {
			out = append(out, f.Name)
		}
	}
	return out
}

// CreatedFields is ChangedFields of a create: every updatable field the new
// trainee has a value for, in the same order, and "password" when one was
// set.
func CreatedFields(t *Trainee, password bool) []string {
	var out []string
	for _, f := range traineeOrder {
		if f.Of(t) != nil {
			out = append(out, f.Name)
		}
	}
	if password {
		out = append(out, "password")
	}
	return out
}

// traineeOrder is the readable patch fields in the order of Trainee.
var traineeOrder = func() []*PatchField {
	var out []*PatchField
	for i := range TraineePatchFields {
		if !TraineePatchFields[i].WriteOnly {
			out = append(out, &TraineePatchFields[i])
		}
	}
	slices.SortFunc(out, func(a, b *PatchField) int { return a.trainee - b.trainee })
	return out
}()
