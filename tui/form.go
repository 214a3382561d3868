package tui

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/client"
)

// The form's fields are api.FormFields (the fields of api.TraineePatch
// with a label), each named as the API names it so that a 400's field
// lands on its input.

type formField struct {
	name    string
	label   string
	input   textinput.Model
	initial string // the value the form opened with
	// stored: the value the form opened with is stored text that the
	// rules refuse today, kept from before them: shown escaped
	// (api.EscapeText) when it holds a control character, as it is when
	// the field's own characters refuse it (an invisible character in a
	// name, an e-mail address or a phone number: api.PatchField.CheckText).
	// Left as it is, it is neither checked nor sent.
	stored  bool
	touched bool
	err     string // the API's rule, checked here before sending
	server  string // what a 400 said about the field
}

// formModel is the form page: it creates (orig nil) or edits a trainee.
type formModel struct {
	*common

	open    bool
	orig    *api.Trainee
	back    screen
	fields  []formField
	focus   int
	sending bool
	tried   bool // a save was attempted: every error shows
	// discarding: esc was pressed on a changed form; y discards, n keeps.
	discarding bool
	// changedMeanwhile: live mode saw another change of the trainee
	// since the form opened.
	changedMeanwhile bool
	// etag is the version of orig the form edits (read when it opens):
	// the save sends it as If-Match.
	etag  string
	today func() api.Date
	th    theme
}

// fTrainerID is the trainer's field: shown and typed by name.
const fTrainerID = "trainerId"

// openForm opens the create form (t nil) or the edit form of t.
func (m *Model) openForm(t *api.Trainee, back screen) tea.Cmd {
	f := formModel{common: m.common, open: true, orig: t, back: back, today: m.today, th: m.th}
	add := func(name, label, placeholder, value string) {
		in := textinput.New()
		in.Prompt = ""
		in.Placeholder = placeholder
		shown := api.EscapeText(value)
		in.CharLimit = max(254, len([]rune(shown)))
		in.SetValue(shown)
		stored := shown != value
		if pf := api.PatchFieldNamed(name); value != "" && pf != nil && pf.Kind == api.KindString && len(pf.Enum) == 0 && pf.CheckText(value) != nil {
			stored = true
		}
		f.fields = append(f.fields, formField{name: name, label: label, input: in, initial: shown, stored: stored})
	}
	for _, pf := range api.FormFields {
		switch {
		case pf.Name == fTrainerID && t == nil:
			add(pf.Name, "Trainer", "name or id (empty: the first trainer)", "")
		case pf.Name == fTrainerID:
			trainer := ""
			if t.TrainerID != nil {
				trainer = m.trainerText(*t.TrainerID)
			}
			add(pf.Name, "Trainer", "name or id", trainer)
		case t == nil:
			add(pf.Name, pf.Label, pf.Hint, "")
		default:
			add(pf.Name, pf.Label, pf.EditHint, api.FormatText(pf.Of(t)))
		}
		if pf.WriteOnly {
			f.fields[len(f.fields)-1].input.EchoMode = textinput.EchoPassword
		}
	}
	f.restyle(m.th)
	f.resize(m.width)
	m.form = f
	m.screen = screenForm
	m.form.check()
	focus := m.form.fields[0].input.Focus()
	if t == nil {
		return focus
	}
	return tea.Batch(focus, m.readForEdit(t.ID, false))
}

func (f *formModel) restyle(th theme) {
	f.th = th
	st := th.inputStyles()
	for i := range f.fields {
		f.fields[i].input.SetStyles(st)
	}
}

func (f *formModel) resize(w int) {
	for i := range f.fields {
		f.fields[i].input.SetWidth(min(max(w-24, 10), 50))
	}
}

func (f *formModel) field(name string) *formField {
	for i := range f.fields {
		if f.fields[i].name == name {
			return &f.fields[i]
		}
	}
	return nil
}

func (f *formModel) value(name string) string {
	return strings.TrimSpace(f.field(name).input.Value())
}

// request builds the create request from the inputs and checks it with the
// API's own rules (api.ValidateCreate), plus the parsing of dates and
// numbers. It returns the normalised request and the problem of each
// field. A blank input is an absent field; when editing, a blank password
// keeps the old one, and an optional field that cannot be null (the
// trainer, the weight unit) cannot be emptied.
func (f *formModel) request() (api.CreateRequest, map[string]string) {
	errs := map[string]string{}
	var p api.TraineePatch
	for _, fl := range f.fields {
		pf := api.PatchFieldNamed(fl.name)
		if err := f.formValue(&p, pf, fl.input.Value()); err != "" {
			errs[fl.name] = err
		}
	}
	r := api.CreateRequestOf(p)
	var ve *api.ValidationError
	if err := api.ValidateCreate(&r, f.today()); errors.As(err, &ve) {
		for _, e := range ve.Errors {
			if _, seen := errs[e.Field]; !seen {
				errs[e.Field] = api.EscapeText(fmt.Sprintf("%d %s", e.ErrorCode, e.Message))
			}
		}
	}
	for _, fl := range f.fields {
		if fl.untouchedStored() {
			delete(errs, fl.name)
		}
	}
	return r, errs
}

// formValue sets the field pf of p from the text of its input, or says
// what is wrong with the text ("": nothing): free text as typed, an enum
// upper-cased, a date in any form api.ParseDateInput reads (what
// traineectl's flags take).
func (f *formModel) formValue(p *api.TraineePatch, pf *api.PatchField, text string) string {
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
func (f *formModel) emptyValue(p *api.TraineePatch, pf *api.PatchField) string {
	if f.orig == nil {
		return ""
	}
	optional := pf.Create == api.CreateOptional && !pf.Nullable
	switch {
	case pf.WriteOnly:
		pf.Set(p, "unchanged"+strings.Repeat("*", api.MinPasswordLength)) // only to pass the check
	case optional && len(pf.Enum) > 0:
		return fmt.Sprintf("%d %s must be %s", api.CodeInvalidEnum, pf.Name, strings.Join(pf.Enum, " or "))
	case optional && pf.Of(f.orig) != nil:
		return fmt.Sprintf("%d a trainee's %s can be changed, not removed", api.CodeRequired, strings.ToLower(pf.Label))
	}
	return ""
}

// parseValue reads the text of a non-empty input as pf's value, or says
// what is wrong with it.
func (f *formModel) parseValue(pf *api.PatchField, text, trimmed string) (any, string) {
	switch {
	case pf.Name == fTrainerID:
		n, err := f.trainerID(trimmed)
		if err != nil {
			return nil, err.Error()
		}
		return n, ""
	case pf.Kind == api.KindDate:
		d, err := api.ParseDateInput(trimmed, f.today().Time())
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
	case pf.Kind == api.KindString:
		return text, ""
	}
	v, err := pf.ParseText(trimmed, f.today().Time())
	if err != nil {
		return nil, fmt.Sprintf("%d %v", api.CodeBadJSON, err)
	}
	return v, ""
}

// untouchedStored reports whether fl still shows the stored text it opened
// with escaped: it is not checked, and not sent.
func (fl *formField) untouchedStored() bool { return fl.stored && fl.input.Value() == fl.initial }

// check runs the validation and puts each problem by its field.
func (f *formModel) check() (api.CreateRequest, int) {
	r, errs := f.request()
	for i := range f.fields {
		f.fields[i].err = errs[f.fields[i].name]
	}
	return r, len(errs)
}

// changes is the PUT body of an edit: only what differs from the trainee.
// Every input names a field of api.TraineePatch; a cleared input clears a
// nullable field (a cleared password keeps the old one). The inputs are
// valid by now (request checked them), and normalised like the server
// normalises them before they are compared.
func (f *formModel) changes() (api.TraineePatch, []string) {
	var p api.TraineePatch
	for _, fl := range f.fields {
		pf := api.PatchFieldNamed(fl.name)
		text := fl.input.Value()
		if fl.name == fTrainerID && strings.TrimSpace(text) != "" {
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
			if v, err := pf.ParseText(text, f.today().Time()); err == nil {
				pf.Set(&p, v)
			}
		}
	}
	p.Normalize()
	p = p.Without(f.orig)
	return p, p.Names()
}

// refusalFields are the problems a refusal names, each with its field
// (a 400's list, or the one error of another refusal); none for another
// error.
func refusalFields(err error) []api.FieldError {
	var rej *client.RejectedError
	if !errors.As(err, &rej) {
		return nil
	}
	if len(rej.Errors) == 0 && rej.ErrorCode != 0 {
		return []api.FieldError{{ErrorCode: rej.ErrorCode, Message: rej.Message, Field: rej.Field}}
	}
	return rej.Errors
}

// serverErrors puts a 400's problems by their fields.
func (f *formModel) serverErrors(err error) {
	for i := range f.fields {
		f.fields[i].server = ""
	}
	first := -1
	for _, e := range refusalFields(err) {
		fl := f.field(e.Field)
		if fl == nil {
			continue
		}
		if fl.server == "" {
			fl.server = api.EscapeText(fmt.Sprintf("%d %s", e.ErrorCode, e.Message))
		}
		for i := range f.fields {
			if &f.fields[i] == fl && (first < 0 || i < first) {
				first = i
			}
		}
	}
	if first >= 0 {
		f.focusOn(first)
	}
}

// dirty reports whether any input differs from what the form opened with.
func (f *formModel) dirty() bool {
	for _, fl := range f.fields {
		if fl.input.Value() != fl.initial {
			return true
		}
	}
	return false
}

// canonicalDate rewrites a valid date input as dd-MM-yyyy, the form every
// screen shows (1990-02-03 and today are accepted as typed).
func (f *formModel) canonicalDate(fl *formField) {
	if pf := api.PatchFieldNamed(fl.name); pf == nil || pf.Kind != api.KindDate {
		return
	}
	s := strings.TrimSpace(fl.input.Value())
	if s == "" {
		return
	}
	if d, err := api.ParseDateInput(s, f.today().Time()); err == nil && d.String() != fl.input.Value() {
		fl.input.SetValue(d.String())
	}
}

func (f *formModel) focusOn(i int) tea.Cmd {
	f.canonicalDate(&f.fields[f.focus])
	f.fields[f.focus].input.Blur()
	f.focus = i
	return f.fields[i].input.Focus()
}

// update passes other messages (paste, cursor) to the focused input.
func (f *formModel) update(msg tea.Msg) tea.Cmd {
	if !f.open {
		return nil
	}
	var cmd tea.Cmd
	fl := &f.fields[f.focus]
	fl.input, cmd = fl.input.Update(msg)
	return cmd
}

func (f *formModel) key(msg tea.KeyPressMsg) tea.Cmd {
	k := f.keys
	switch {
	case f.discarding:
		switch {
		case key.Matches(msg, k.Yes):
			f.close("Changes discarded: nothing was sent.")
		case key.Matches(msg, k.No):
			f.discarding = false
			f.setStatus(statusInfo, "Still editing: ctrl+s saves, esc leaves.")
		}
		return nil
	case key.Matches(msg, k.Back):
		if f.dirty() && !f.sending {
			f.discarding = true
			f.setStatus(statusInfo, "Discard your changes? y discards them, n keeps editing.")
			return nil
		}
		f.close("Cancelled: nothing was sent.")
		return nil
	case key.Matches(msg, k.Save):
		return f.submit()
	case msg.String() == "enter" && f.focus == len(f.fields)-1:
		return f.submit()
	case key.Matches(msg, k.NextField):
		return f.focusOn((f.focus + 1) % len(f.fields))
	case key.Matches(msg, k.PrevField):
		return f.focusOn((f.focus + len(f.fields) - 1) % len(f.fields))
	}
	if f.sending {
		return nil
	}
	fl := &f.fields[f.focus]
	before := fl.input.Value()
	var cmd tea.Cmd
	fl.input, cmd = fl.input.Update(msg)
	if fl.input.Value() != before {
		fl.touched = true
		fl.server = ""
		f.check()
	}
	return cmd
}

// close leaves the form for the page it was opened from, saying note.
func (f *formModel) close(note string) {
	f.forget(slotMutate)
	f.setStatus(statusInfo, "%s", note)
	f.leave()
}

// leave empties the form and shows the page it was opened from.
func (f *formModel) leave() {
	back, nav := f.back, f.nav
	*f = formModel{common: f.common}
	nav.show(back)
}

func (f *formModel) submit() tea.Cmd {
	if f.sending {
		return nil
	}
	f.tried = true
	r, n := f.check()
	if n > 0 {
		for i, fl := range f.fields {
			if fl.err != "" {
				f.focusOn(i)
				break
			}
		}
		if n == 1 {
			f.setStatus(statusError, "1 field breaks the API's rules: fix it first. Nothing was sent.")
		} else {
			f.setStatus(statusError, "%d fields break the API's rules: fix them first. Nothing was sent.", n)
		}
		return nil
	}
	for i := range f.fields {
		f.fields[i].server = ""
	}
	c := f.c
	if f.orig == nil {
		f.sending = true
		f.setStatus(statusInfo, "Creating %s…", r.Name)
		return f.call(slotMutate, func(ctx context.Context) (any, error) {
			t, err := c.CreateTrainee(ctx, r)
			return mutation{kind: "created", t: t}, err
		})
	}
	u, changed := f.changes()
	if len(changed) == 0 {
		f.setStatus(statusInfo, "Nothing changed: nothing was sent.")
		f.leave()
		return nil
	}
	f.sending = true
	f.setStatus(statusInfo, "Saving %s…", strings.Join(changed, ", "))
	return f.save(f.orig.ID, f.etag, u, changed)
}

// save sends an edit: with If-Match when the form knows the version it
// edits (a 412 then shows the conflict), else as it is.
func (f *formModel) save(id int64, etag string, u api.TraineePatch, changed []string) tea.Cmd {
	c := f.c
	return f.call(slotMutate, func(ctx context.Context) (any, error) {
		if etag == "" {
			t, err := c.UpdateTrainee(ctx, id, u)
			return mutation{kind: "updated", t: t, changed: changed}, err
		}
		t, _, err := c.UpdateTraineeIf(ctx, id, etag, u)
		return mutation{kind: "updated", t: t, changed: changed}, err
	})
}

func (f *formModel) view() (top, sub, body string) {
	th := f.th
	title := "New trainee"
	if f.orig != nil {
		title = "Edit " + api.EscapeText(f.orig.Name) + th.dim.Render(fmt.Sprintf("  #%d", f.orig.ID))
	}
	top = f.topBar(th.title.Render(title), f.spinnerView()+" ")
	sub = th.dim.Render("Each field is checked with the API's rules as you type; ctrl+s saves.")
	if f.changedMeanwhile {
		sub = th.warnText.Render("⚠ Changed on the server since this form opened: ctrl+s shows what changed.")
	}
	var b strings.Builder
	for i, fl := range f.fields {
		marker := "  "
		label := th.label.Render(padRight(fl.label, 14))
		if i == f.focus {
			marker = th.accent.Render("▸ ")
			label = th.accent.Render(padRight(fl.label, 14))
		}
		b.WriteString(marker + label + " " + fl.input.View() + "\n")
		b.WriteString(strings.Repeat(" ", 17) + f.verdict(&fl) + "\n")
	}
	if f.sending {
		b.WriteString("\n  " + f.spin.View() + " Sending…")
	}
	return top, sub, b.String()
}

// verdict is the line under a field: the server's refusal, the check's,
// or a tick once the field was touched (or a save tried).
func (f *formModel) verdict(fl *formField) string {
	th := f.th
	switch {
	case fl.server != "":
		return th.errText.Render("✗ " + fl.server + " (server)")
	case fl.err != "" && (fl.touched || f.tried):
		return th.errText.Render("✗ " + fl.err)
	case fl.err == "" && fl.name == fTrainerID && f.value(fTrainerID) != "":
		return th.okText.Render("✓ " + f.trainerShown())
	case fl.err == "" && (fl.touched || f.tried):
		return th.okText.Render("✓")
	}
	return ""
}

func (f *formModel) help() helpKeys {
	if f.discarding {
		return f.keys.confirmHelp()
	}
	return f.keys.formHelp()
}

func (f *formModel) takesKeys() bool { return true }

func (f *formModel) shows() (*api.Trainee, int) { return f.orig, 0 }

// trainerText is how the form shows trainer id: its name when the
// company's trainers are known and the name is theirs alone, else the id.
func (c *common) trainerText(id int64) string {
	for _, t := range c.trainerList {
		if t.ID == id {
			if n, err := c.trainerByText(t.Name); err == nil && n == id {
				return t.Name
			}
		}
	}
	return strconv.FormatInt(id, 10)
}

// trainerID reads the trainer input: an id, or a trainer's name (the
// whole name or the start of one name, in any case).
func (f *formModel) trainerID(s string) (int64, error) { return f.trainerByText(s) }

func (c *common) trainerByText(s string) (int64, error) {
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return n, nil
	}
	if len(c.trainerList) == 0 {
		return 0, fmt.Errorf("%d trainerId must be a whole number", api.CodeBadJSON)
	}
	var exact, prefix []int64
	for _, t := range c.trainerList {
		switch {
		case strings.EqualFold(t.Name, s):
			exact = append(exact, t.ID)
		case len(s) <= len(t.Name) && strings.EqualFold(t.Name[:len(s)], s):
			prefix = append(prefix, t.ID)
		}
	}
	switch {
	case len(exact) == 1:
		return exact[0], nil
	case len(exact) == 0 && len(prefix) == 1:
		return prefix[0], nil
	case len(exact)+len(prefix) > 1:
		return 0, fmt.Errorf("%d more than one trainer is named %s: give the id", api.CodeBadJSON, api.EscapeText(s))
	}
	return 0, fmt.Errorf("%d no trainer is named %s", api.CodeBadJSON, api.EscapeText(s))
}

// trainerShown is the trainer the input names: "Maya Brown (#1)".
func (f *formModel) trainerShown() string {
	id, err := f.trainerID(f.value(fTrainerID))
	if err != nil {
		return ""
	}
	if f.trainers[id] == "" {
		return fmt.Sprintf("#%d", id)
	}
	return f.trainers[id] + fmt.Sprintf(" (#%d)", id)
}
