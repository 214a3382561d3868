package form

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/tui/internal/common"
)

// The form's inputs read as a request: the create's, checked by the API's
// own rules, or an edit's changes, and the problems of each field.

// request builds the create request from the inputs and checks it with the
// API's own rules (api.ValidateCreate), plus the parsing of dates and
// numbers. It returns the normalised request and the problem of each
// field. A blank input is an absent field; when editing, a blank password
// keeps the old one, and an optional field that cannot be null (the
// trainer, the weight unit) cannot be emptied.
func (f *Model) request() (api.CreateRequest, map[string]string) {
	errs := map[string]string{}
	var p api.TraineePatch
	for _, fl := range f.Fields {
		pf := api.PatchFieldNamed(fl.Name)
		if err := f.formValue(&p, pf, fl.Input.Value()); err != "" {
			errs[fl.Name] = err
		}
	}
	r := api.CreateRequestOf(p)
	var ve *api.ValidationError
	if err := api.ValidateCreate(&r, f.Today()); errors.As(err, &ve) {
		for _, e := range ve.Errors {
			if _, seen := errs[e.Field]; !seen {
				errs[e.Field] = api.EscapeText(fmt.Sprintf("%d %s", e.ErrorCode, e.Message))
			}
		}
	}
	for _, fl := range f.Fields {
		if fl.untouchedStored() {
			delete(errs, fl.Name)
		}
	}
	return r, errs
}

// formValue sets the field pf of p from the text of its input, or says
// what is wrong with the text ("": nothing): free text as typed, an enum
// upper-cased, a date in any form api.ParseDateInput reads (what
// traineectl's flags take).
func (f *Model) formValue(p *api.TraineePatch, pf *api.PatchField, text string) string {
	trimmed := strings.TrimSpace(text)
	if trimmed == "" {
		return f.emptyValue(p, pf)
	}
	v, problem := f.parseValue(pf, text, trimmed)
	if problem != "" {
		return problem
	}
	pf.Set(p, v)
	return ""
}

// emptyValue is formValue for an empty input: nothing on a create; on an
// edit, a password kept, or a field that may not be removed refused.
func (f *Model) emptyValue(p *api.TraineePatch, pf *api.PatchField) string {
	if f.Orig == nil {
		return ""
	}
	optional := pf.Create == api.CreateOptional && !pf.Nullable
	switch {
	case pf.WriteOnly:
		pf.Set(p, "unchanged"+strings.Repeat("*", api.MinPasswordLength)) // only to pass the check
	case optional && len(pf.Enum) > 0:
		return fmt.Sprintf("%d %s must be %s", api.CodeInvalidEnum, pf.Name, strings.Join(pf.Enum, " or "))
	case optional && pf.Of(f.Orig) != nil:
		return fmt.Sprintf("%d a trainee's %s can be changed, not removed", api.CodeRequired, strings.ToLower(pf.Label))
	}
	return ""
}

// parseValue reads the text of a non-empty input as pf's value, or says
// what is wrong with it.
func (f *Model) parseValue(pf *api.PatchField, text, trimmed string) (any, string) {
	switch {
	case pf.Name == FTrainerID:
		n, err := f.trainerID(trimmed)
		if err != nil {
			return nil, err.Error()
		}
		return n, ""
	case pf.Kind == api.KindDate:
		d, err := api.ParseDateInput(trimmed, f.Today().Time())
		if err != nil {
			return nil, fmt.Sprintf("%d %v", api.CodeInvalidDate, err)
		}
		return d, ""
	case pf.Kind == api.KindInteger:
		n, err := strconv.ParseInt(trimmed, 10, 64)
		if err != nil {
			return nil, fmt.Sprintf("%d %s must be a whole number", api.CodeBadJSON, pf.Name)
		}
		return n, ""
	case len(pf.Enum) > 0:
		return strings.ToUpper(trimmed), ""
	case pf.Name == "phoneNumber":
		return f.phoneValue(text)
	case pf.Kind == api.KindString:
		return text, ""
	}
	v, err := pf.ParseText(trimmed, f.Today().Time())
	if err != nil {
		return nil, fmt.Sprintf("%d %v", api.CodeBadJSON, err)
	}
	return v, ""
}

// untouchedStored reports whether fl still shows the stored text it opened
// with escaped: it is not checked, and not sent.
func (fl *FormField) untouchedStored() bool { return fl.Stored && fl.Input.Value() == fl.Initial }

// Check runs the validation and puts each problem by its field.
func (f *Model) Check() (api.CreateRequest, int) {
	r, errs := f.request()
	for i := range f.Fields {
		f.Fields[i].Err = errs[f.Fields[i].Name]
	}
	return r, len(errs)
}

// Changes is the PUT body of an edit: only what differs from the trainee.
// Every input names a field of api.TraineePatch; a cleared input clears a
// nullable field (a cleared password keeps the old one). The inputs are
// valid by now (request checked them), and normalised like the server
// normalises them before they are compared.
func (f *Model) Changes() (api.TraineePatch, []string) {
	var p api.TraineePatch
	for _, fl := range f.Fields {
		pf := api.PatchFieldNamed(fl.Name)
		text := fl.Input.Value()
		if fl.Name == FTrainerID && strings.TrimSpace(text) != "" {
			if id, err := f.trainerID(strings.TrimSpace(text)); err == nil {
				text = strconv.FormatInt(id, 10)
			}
		}
		switch {
		case pf == nil, fl.untouchedStored():
		case strings.TrimSpace(text) == "":
			if pf.Nullable {
				pf.Set(&p, nil)
			}
		default:
			if v, err := pf.ParseText(text, f.Today().Time()); err == nil {
				pf.Set(&p, v)
			}
		}
	}
	p.Normalize()
	p = p.Without(f.Orig)
	return p, p.Names()
}

// ServerErrors puts a 400's problems by their fields.
func (f *Model) ServerErrors(err error) {
	for i := range f.Fields {
		f.Fields[i].server = ""
	}
	first := -1
	for _, e := range common.RefusalFields(err) {
		fl := f.Field(e.Field)
		if fl == nil {
			continue
		}
		if fl.server == "" {
			fl.server = api.EscapeText(fmt.Sprintf("%d %s", e.ErrorCode, e.Message))
		}
		for i := range f.Fields {
			if &f.Fields[i] == fl && (first < 0 || i < first) {
				first = i
			}
		}
	}
	if first >= 0 {
		f.FocusOn(first)
	}
}

// canonicalDate rewrites a valid date input as dd-MM-yyyy, the form every
// screen shows (1990-02-03 and today are accepted as typed).
func (f *Model) canonicalDate(fl *FormField) {
	if pf := api.PatchFieldNamed(fl.Name); pf == nil || pf.Kind != api.KindDate {
		return
	}
	s := strings.TrimSpace(fl.Input.Value())
	if s == "" {
		return
	}
	if d, err := api.ParseDateInput(s, f.Today().Time()); err == nil && d.String() != fl.Input.Value() {
		fl.Input.SetValue(d.String())
	}
}
