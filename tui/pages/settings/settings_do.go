package settings

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/tui/components/dialog"
	"github.com/traineed/traineed/tui/components/layout"
	"github.com/traineed/traineed/tui/components/requests"
	"github.com/traineed/traineed/tui/components/statusline"
	"github.com/traineed/traineed/tui/internal/common"
)

// The changes of the Settings page: each asks first (a form, a question,
// a picker), sends one request (slotAdmin), and its answer or refusal
// says what happened in the status line; a new secret shows once.

// adminChange is one change the Settings page sends, and its answer.
type adminChange struct {
	kind    changeKind
	key     *api.APIKey         // the key it concerns
	trainer *api.TrainerSummary // the trainer it concerns
	to      *api.TrainerSummary // who takes the trainer's trainees
	env     *api.KeyEnvelope    // a created or rotated key, with its secret
	moved   int                 // trainees moved (soft-deleted ones too)
	// disabled are the ids of the keys a deactivation disabled, as its
	// answer says.
	disabled []int64
	company  *api.Company // the company saved
	newName  string       // the key or trainer created
}

type changeKind int

const (
	keyCreated changeKind = iota
	keyRotated
	keyRevoked
	keyEnabled
	keyDisabled
	trainerCreated
	traineesMoved
	trainerDeactivated
	trainerActivated
	companySaved
)

// send runs one change (slotAdmin): do sends its request and fills in
// the answer.
func (s *Model) send(a adminChange, do func(ctx context.Context, c common.Client, a *adminChange) error) tea.Cmd {
	c := s.C
	return s.Call(requests.SlotAdmin, func(ctx context.Context) (any, error) {
		err := do(ctx, c, &a)
		return a, err
	})
}

// add creates a key or a trainer, after a form.
func (s *Model) add() tea.Cmd {
	if s.Section == sectionKeys {
		s.Nav.Ask(s.newKeyForm())
		return nil
	}
	entries := []dialog.Entry{dialog.TextEntry(s.Common, "Name", "first and last name", ""), dialog.TextEntry(s.Common, "E-mail", "name@example.com", "")}
	check := func(v []string) dialog.Verdicts {
		return ruleVerdicts(api.NewTrainer{Name: v[0], Email: v[1]}, func(b []byte) error {
			_, err := api.ParseNewTrainer(b)
			return err
		}, trainerFields, dialog.Verdicts{})
	}
	submit := func(v []string) tea.Cmd {
		s.SetStatus(statusline.StatusInfo, "Adding trainer %s…", v[0])
		return s.send(adminChange{kind: trainerCreated, newName: v[0]}, func(ctx context.Context, c common.Client, a *adminChange) error {
			t, err := c.CreateTrainer(ctx, api.NewTrainer{Name: v[0], Email: v[1]})
			a.trainer = t
			return err
		})
	}
	s.Nav.Ask(dialog.NewEntryForm(s.Common, "New trainer", nil, entries, trainerFields, check, submit, "No trainer was added."))
	return nil
}

// The API's names of the forms' entries, in order: a refusal's field
// lands by its entry.
var (
	trainerFields = []string{"name", "email"}
	keyFields     = []string{"name", "scope", "trainerId", "ownTraineesOnly", "expiresAt"}
	companyFields = []string{"name", "timeZone"}
)

// ruleVerdicts checks req, as the JSON a client sends, with the API's own
// parser, and puts each problem by its entry (fields[i] is the API's name
// of entry i) unless v has one there already.
func ruleVerdicts(req any, parse func([]byte) error, fields []string, v dialog.Verdicts) dialog.Verdicts {
	if v.Errs == nil {
		v.Errs = map[int]error{}
	}
	body, err := json.Marshal(req)
	if err != nil {
		return v
	}
	var ve *api.ValidationError
	if !errors.As(parse(body), &ve) {
		return v
	}
	for _, fe := range ve.Errors {
		for i, f := range fields {
			if f == fe.Field && v.Errs[i] == nil {
				v.Errs[i] = fmt.Errorf("%d %s", fe.ErrorCode, api.EscapeText(fe.Message))
			}
		}
	}
	return v
}

// Entries of the new key's form.
const (
	keyEntryName = iota
	keyEntryScope
	keyEntryTrainer
	keyEntryOwn
	keyEntryExpires
)

// newKeyForm is the form of a new key: its name, scope, the trainer it
// acts as (by name), whether it is limited to that trainer's trainees,
// and the last day it works.
func (s *Model) newKeyForm() *dialog.EntryForm {
	entries := []dialog.Entry{
		dialog.TextEntry(s.Common, "Name", "who or what uses it: crm, sam-phone", ""),
		dialog.ChoiceEntry("Scope", api.KeyScopeFull, api.KeyScopeRead, api.KeyScopeAdmin),
		dialog.TextEntry(s.Common, "Trainer", "name or id (empty: the company's)", ""),
		dialog.ChoiceEntry("Own trainees only", "no", "yes"),
		dialog.TextEntry(s.Common, "Expires", "last day, dd-MM-yyyy (empty: never)", ""),
	}
	check := func(v []string) dialog.Verdicts {
		_, vs := s.keyRequest(v)
		return vs
	}
	submit := func(v []string) tea.Cmd {
		k, _ := s.keyRequest(v)
		s.SetStatus(statusline.StatusInfo, "Creating key %s…", k.Name)
		return s.send(adminChange{kind: keyCreated, newName: k.Name}, func(ctx context.Context, c common.Client, a *adminChange) error {
			env, err := c.CreateKey(ctx, k)
			a.env = env
			return err
		})
	}
	return dialog.NewEntryForm(s.Common, "New API key", []string{"Its secret is shown once, when it is made."}, entries, keyFields, check, submit, "No key was created.")
}

// keyRequest is the key the form's values describe, checked with the
// API's rules (api.ParseNewKey): the trainer given by name, the expiry a
// last day (the key works until that day ends where the TUI shows
// instants).
func (s *Model) keyRequest(v []string) (api.NewKey, dialog.Verdicts) {
	vs := dialog.Verdicts{Said: map[int]string{}, Errs: map[int]error{}}
	k := api.NewKey{Name: v[keyEntryName], Scope: v[keyEntryScope], OwnTraineesOnly: v[keyEntryOwn] == "yes"}
	if v[keyEntryTrainer] != "" {
		if id, err := s.TrainerByText(v[keyEntryTrainer]); err != nil {
			vs.Errs[keyEntryTrainer] = err
		} else {
			k.TrainerID = &id
			vs.Said[keyEntryTrainer] = common.TrainerName(s.Trainers, &id) + fmt.Sprintf(" (#%d)", id)
		}
	}
	if v[keyEntryExpires] != "" {
		if d, err := api.ParseDateInput(v[keyEntryExpires], s.Today().Time()); err != nil {
			// ParseDateInput's words offer today or yesterday: not a
			// key's last day.
			vs.Errs[keyEntryExpires] = fmt.Errorf("%d %q is not a day: give the last day it works, dd-MM-yyyy or yyyy-MM-dd, "+
				"such as %s", api.CodeInvalidDate, v[keyEntryExpires], s.Today().AddDays(365).String())
		} else {
			end := time.Date(d.Year, d.Month, d.Day+1, 0, 0, 0, 0, s.Zone())
			k.ExpiresAt = &end
			vs.Said[keyEntryExpires] = "works through " + d.String() + ", refused from " + s.Stamp(end)
		}
	}
	now := s.Today().Time()
	return k, ruleVerdicts(k, func(b []byte) error {
		_, err := api.ParseNewKey(b, now)
		return err
	}, keyFields, vs)
}

// rotateOrReassign is r: rotate the selected key, or move the selected
// trainer's trainees to another trainer.
func (s *Model) rotateOrReassign() tea.Cmd {
	if s.Section == SectionTrainers {
		return s.reassign()
	}
	k := s.SelectedKey()
	if k == nil {
		return nil
	}
	name := api.EscapeText(k.Name)
	notes := []string{"It gets a new secret, shown once. The old secret keeps working for 24 hours, until " +
		s.Stamp(time.Now().Add(api.DefaultKeyOverlap)) + ", then is refused."}
	if s.ownKey(k) {
		notes = append(notes, "This TUI uses this key: it goes on with the old secret until then; save the new one in your profile.")
	}
	s.Nav.Ask(&dialog.Question{Common: s.Common, Text: "Rotate key " + name + "?", Notes: notes, Yes: "rotate", No: "keep",
		NoNote: "Not rotated.", OnYes: func() tea.Cmd {
			s.SetStatus(statusline.StatusInfo, "Rotating key %s…", k.Name)
			return s.send(adminChange{kind: keyRotated, key: k}, func(ctx context.Context, c common.Client, a *adminChange) error {
				env, err := c.RotateKey(ctx, k.ID, nil)
				a.env = env
				return err
			})
		}})
	return nil
}

// revokeOrDeactivate is d: revoke the selected key (typing its name when
// it is the key this TUI uses), or deactivate the selected trainer.
func (s *Model) revokeOrDeactivate() tea.Cmd {
	if s.Section == SectionTrainers {
		return s.deactivate()
	}
	k := s.SelectedKey()
	if k == nil {
		return nil
	}
	revoke := func() tea.Cmd {
		s.SetStatus(statusline.StatusInfo, "Revoking key %s…", k.Name)
		return s.send(adminChange{kind: keyRevoked, key: k}, func(ctx context.Context, c common.Client, a *adminChange) error {
			_, err := c.RevokeKey(ctx, k.ID)
			return err
		})
	}
	s.confirmKeyChange(k, "revoke", "Every request with it is refused from the next one on, for good.",
		"Every request with it is refused from then on, for good: this TUI's too.", revoke)
	return nil
}

// confirmKeyChange asks before a change that stops key k working (verb:
// revoke, disable): y for another key, its name typed for the key this
// TUI uses (ownNote then says what it does to the TUI).
func (s *Model) confirmKeyChange(k *api.APIKey, verb, note, ownNote string, do func() tea.Cmd) {
	name, noNote := api.EscapeText(k.Name), "Not "+verb+"d."
	if s.ownKey(k) {
		s.Nav.Ask(dialog.NewTypedQuestion(s.Common, common.Capitalized(verb)+" key "+name+", the key this TUI uses?",
			[]string{ownNote, "Type its name to " + verb + " it:"}, name, do, noNote))
		return
	}
	s.Nav.Ask(&dialog.Question{Common: s.Common, Text: common.Capitalized(verb) + " key " + name + "?", Notes: []string{note},
		Yes: verb, No: "keep", NoNote: noNote, OnYes: do})
}

// toggleKey is e: enable the selected key when it is disabled, else
// disable it after a question (typing its name when it is the key this
// TUI uses).
func (s *Model) toggleKey() tea.Cmd {
	k := s.SelectedKey()
	if k == nil {
		return nil
	}
	on := k.State == api.KeyDisabled
	kind, verb := keyDisabled, "Disabling"
	if on {
		kind, verb = keyEnabled, "Enabling"
	}
	toggle := func() tea.Cmd {
		s.SetStatus(statusline.StatusInfo, "%s key %s…", verb, k.Name)
		return s.send(adminChange{kind: kind, key: k}, func(ctx context.Context, c common.Client, a *adminChange) error {
			_, err := c.UpdateKey(ctx, k.ID, api.KeyPatch{Enabled: &on})
			return err
		})
	}
	if on {
		return toggle()
	}
	s.confirmKeyChange(k, "disable", "Every request with it is refused until e enables it again.",
		"Every request with it is refused until another admin key enables it again: this TUI's too.", toggle)
	return nil
}

// others are the active trainers but t, as a picker's choices.
func (s *Model) others(t *api.TrainerSummary) []dialog.Choice {
	var out []dialog.Choice
	for _, o := range s.staff {
		if o.ID != t.ID && o.Active {
			out = append(out, dialog.Choice{Label: fmt.Sprintf("%s (%s)", api.EscapeText(o.Name), layout.Plural(derefCount(o.Trainees), "trainee")), Id: o.ID})
		}
	}
	return out
}

func derefCount(n *int) int {
	if n == nil {
		return 0
	}
	return *n
}

// trainerByID is the trainer of id among those read.
func (s *Model) trainerByID(id int64) *api.TrainerSummary {
	for i := range s.staff {
		if s.staff[i].ID == id {
			return &s.staff[i]
		}
	}
	return nil
}

// theirTrainees is "Maya Brooks's 12 live trainees" (the count when
// known: the server counts the live ones); whose "their" gives "their 12
// live trainees".
func theirTrainees(t *api.TrainerSummary, whose ...string) string {
	owner := api.EscapeText(t.Name) + "'s"
	if len(whose) > 0 {
		owner = whose[0]
	}
	if t.Trainees == nil {
		return owner + " trainees"
	}
	return owner + " " + layout.Plural(*t.Trainees, "live trainee")
}

// softDeletedToo is what a move takes besides the live trainees counted.
const softDeletedToo = " and any soft-deleted ones"

// boundKeys are the keys read that act as trainer id; live: only those a
// deactivation disables (not disabled yet).
func (s *Model) boundKeys(id int64, live bool) []*api.APIKey {
	var out []*api.APIKey
	for _, k := range s.apiKeys {
		if k.TrainerID != nil && *k.TrainerID == id && (k.State != api.KeyDisabled) == live {
			out = append(out, k)
		}
	}
	return out
}

// theirKeys is the keys a deactivation of t disables: "their key
// sam-phone", "their 2 keys", "" for none, "any keys bound to them" while
// the keys are not read.
func (s *Model) theirKeys(t *api.TrainerSummary) string {
	if !s.keysRead {
		return "any keys bound to them"
	}
	return keysPhrase(s.boundKeys(t.ID, true))
}

// keysPhrase is "their key sam-phone" for one key, "their 2 keys" for
// more, "" for none.
func keysPhrase(keys []*api.APIKey) string {
	switch len(keys) {
	case 0:
		return ""
	case 1:
		return "their key " + api.EscapeText(keys[0].Name)
	}
	return "their " + layout.Plural(len(keys), "key")
}

// keyNames are the names of the keys of ids among those read, escaped
// ("#id" for one not read).
func (s *Model) keyNames(ids []int64) string {
	names := make([]string, len(ids))
	for i, id := range ids {
		names[i] = fmt.Sprintf("#%d", id)
		for _, k := range s.apiKeys {
			if k.ID == id {
				names[i] = api.EscapeText(k.Name)
			}
		}
	}
	return strings.Join(names, ", ")
}

// inSeries joins clauses as a sentence does: "a", "a and b", "a, b, and c".
func inSeries(clauses ...string) string {
	switch len(clauses) {
	case 0:
		return ""
	case 1:
		return clauses[0]
	case 2:
		return clauses[0] + " and " + clauses[1]
	}
	return strings.Join(clauses[:len(clauses)-1], ", ") + ", and " + clauses[len(clauses)-1]
}

// pickTaker asks who takes t's trainees over (every active trainer but
// t), then hands the choice to then.
func (s *Model) pickTaker(t *api.TrainerSummary, text string, then func(to *api.TrainerSummary) tea.Cmd, noNote string) tea.Cmd {
	choices := s.others(t)
	if len(choices) == 0 {
		s.SetStatus(statusline.StatusError, "No other active trainer can take %s over: n adds one.", theirTrainees(t))
		return nil
	}
	s.Nav.Ask(&dialog.Picker{Common: s.Common, Text: text, Choices: choices, NoNote: noNote,
		OnPick: func(c dialog.Choice) tea.Cmd { return then(s.trainerByID(c.Id)) }})
	return nil
}

// reassign moves the selected trainer's trainees to a trainer picked,
// after a question that counts them.
func (s *Model) reassign() tea.Cmd {
	t := s.selectedTrainer()
	if t == nil {
		return nil
	}
	if t.Trainees != nil && *t.Trainees == 0 {
		s.SetStatus(statusline.StatusInfo, "%s has no trainees to move.", t.Name)
		return nil
	}
	return s.pickTaker(t, "Move "+theirTrainees(t)+softDeletedToo+" to:", func(to *api.TrainerSummary) tea.Cmd {
		s.Nav.Ask(&dialog.Question{Common: s.Common, Text: fmt.Sprintf("Move %s%s to %s?", theirTrainees(t), softDeletedToo, api.EscapeText(to.Name)),
			Notes: []string{"In one change: each trainee gets its trainee.updated event. " +
				api.EscapeText(t.Name) + " stays active, and so do their keys."},
			Yes: "move", No: "keep", NoNote: "Nothing was moved.", OnYes: func() tea.Cmd {
				s.SetStatus(statusline.StatusInfo, "Moving %s to %s…", theirTrainees(t), to.Name)
				return s.send(adminChange{kind: traineesMoved, trainer: t, to: to}, func(ctx context.Context, c common.Client, a *adminChange) error {
					r, err := c.ReassignTrainees(ctx, t.ID, to.ID)
					if r != nil {
						a.moved = r.Moved
					}
					return err
				})
			}})
		return nil
	}, "Nothing was moved.")
}

// deactivate deactivates the selected trainer: one with trainees hands
// them to a trainer picked first.
func (s *Model) deactivate() tea.Cmd {
	t := s.selectedTrainer()
	switch {
	case t == nil:
		return nil
	case !t.Active:
		s.SetStatus(statusline.StatusInfo, "%s is inactive already: u activates them again.", t.Name)
		return nil
	case t.Trainees != nil && *t.Trainees > 0:
		return s.handOver(t)
	}
	s.askDeactivate(t, nil)
	return nil
}

// handOver deactivates t after asking who takes t's trainees over.
func (s *Model) handOver(t *api.TrainerSummary) tea.Cmd {
	return s.pickTaker(t, api.EscapeText(t.Name)+" has trainees: who takes them over?", func(to *api.TrainerSummary) tea.Cmd {
		s.askDeactivate(t, to)
		return nil
	}, "Nothing was changed.")
}

// askDeactivate asks whether to deactivate t, saying all it does: to
// takes t's trainees (nil: t has none), t's keys are disabled.
func (s *Model) askDeactivate(t, to *api.TrainerSummary) {
	name := api.EscapeText(t.Name)
	clauses := []string{"Deactivate " + name}
	notes := []string{"They take no new trainees."}
	if to != nil {
		clauses = append(clauses, fmt.Sprintf("move %s (%s) to %s", theirTrainees(t, "their"), strings.TrimPrefix(softDeletedToo, " "),
			api.EscapeText(to.Name)))
		notes[0] = "In one change: the trainees first, each with its trainee.updated event."
	}
	again := "u activates " + name + " again."
	if keys := s.theirKeys(t); keys != "" {
		clauses = append(clauses, "disable "+keys)
		notes = append(notes, "A disabled key is refused until e on the Keys section enables it again.")
		again = "u activates " + name + " again; their keys stay disabled."
		if s.keysRead && len(s.boundKeys(t.ID, true)) == 1 {
			again = "u activates " + name + " again; their key stays disabled."
		}
	}
	notes = append(notes, again)
	s.Nav.Ask(&dialog.Question{Common: s.Common, Text: inSeries(clauses...) + "?", Notes: notes,
		Yes: "deactivate", No: "keep", NoNote: "Nothing was changed.", OnYes: func() tea.Cmd { return s.sendDeactivate(t, to) }})
}

func (s *Model) sendDeactivate(t, to *api.TrainerSummary) tea.Cmd {
	var reassignTo *int64
	if to != nil {
		reassignTo = &to.ID
	}
	s.SetStatus(statusline.StatusInfo, "Deactivating %s…", t.Name)
	return s.send(adminChange{kind: trainerDeactivated, trainer: t, to: to}, func(ctx context.Context, c common.Client, a *adminChange) error {
		env, err := c.DeactivateTrainer(ctx, t.ID, reassignTo)
		if env != nil {
			if env.Moved != nil {
				a.moved = *env.Moved
			}
			a.disabled = env.DisabledKeys
		}
		return err
	})
}

// deactivated says what a deactivation did, from its answer: the
// trainees moved, the keys disabled.
func (s *Model) deactivated(a adminChange) {
	var did []string
	if a.to != nil {
		did = append(did, fmt.Sprintf("moved %s to %s", layout.Plural(a.moved, "trainee"), api.EscapeText(a.to.Name)))
	}
	switch len(a.disabled) {
	case 0:
	case 1:
		did = append(did, "disabled their key "+s.keyNames(a.disabled))
	default:
		did = append(did, fmt.Sprintf("disabled their %s (%s)", layout.Plural(len(a.disabled), "key"), s.keyNames(a.disabled)))
	}
	text := "Deactivated " + api.EscapeText(a.trainer.Name)
	if len(did) > 0 {
		text += ": " + inSeries(did...)
	}
	s.ShowStatus(statusline.StatusOK, text+".")
}

// activate activates the selected trainer again.
func (s *Model) activate() tea.Cmd {
	t := s.selectedTrainer()
	switch {
	case t == nil:
		return nil
	case t.Active:
		s.SetStatus(statusline.StatusInfo, "%s is active.", t.Name)
		return nil
	}
	on := true
	s.SetStatus(statusline.StatusInfo, "Activating %s…", t.Name)
	return s.send(adminChange{kind: trainerActivated, trainer: t}, func(ctx context.Context, c common.Client, a *adminChange) error {
		_, err := c.UpdateTrainer(ctx, t.ID, api.TrainerPatch{Active: &on})
		return err
	})
}

// editCompany edits the company's name and time zone; a new zone is
// explained and confirmed first.
func (s *Model) editCompany() tea.Cmd {
	co := s.company
	if co == nil {
		s.SetStatus(statusline.StatusInfo, "The company is not read yet: ctrl+r reads it.")
		return nil
	}
	entries := []dialog.Entry{dialog.TextEntry(s.Common, "Name", "the company's name", co.Name), dialog.TextEntry(s.Common, "Time zone", "an IANA name: Europe/London", co.TimeZone)}
	patch := func(v []string) api.CompanyPatch {
		var p api.CompanyPatch
		if v[0] != co.Name {
			p.Name = &v[0]
		}
		if v[1] != co.TimeZone {
			p.TimeZone = &v[1]
		}
		return p
	}
	check := func(v []string) dialog.Verdicts {
		return ruleVerdicts(patch(v), func(b []byte) error {
			_, err := api.ParseCompanyPatch(b)
			return err
		}, companyFields, dialog.Verdicts{})
	}
	var form *dialog.EntryForm
	submit := func(v []string) tea.Cmd {
		p := patch(v)
		switch {
		case p.Name == nil && p.TimeZone == nil:
			s.SetStatus(statusline.StatusInfo, "Nothing changed: nothing was sent.")
			return nil
		case p.TimeZone != nil:
			s.Nav.Ask(s.zoneQuestion(co, p, form))
			return nil
		}
		return s.saveCompany(p)
	}
	form = dialog.NewEntryForm(s.Common, "The company", nil, entries, companyFields, check, submit, "Nothing was changed.")
	s.Nav.Ask(form)
	return nil
}

// zoneQuestion explains what a new time zone changes, and asks; y sends
// the form's change, the form open again until the answer.
func (s *Model) zoneQuestion(co *api.Company, p api.CompanyPatch, form *dialog.EntryForm) *dialog.Question {
	from, to := api.EscapeText(co.TimeZone), api.EscapeText(*p.TimeZone)
	notes := []string{"\"Who is expired today\" follows the new zone from then on: the company's day, its counts, " +
		"its lists and its automations start and end at midnight in " + to + "."}
	if loc, err := time.LoadLocation(*p.TimeZone); err == nil {
		now := time.Now().In(loc)
		notes = append(notes, "It is "+now.Format("15:04")+" on "+api.DateOf(now).String()+" there now.")
	}
	return &dialog.Question{Common: s.Common, Text: "Change the time zone from " + from + " to " + to + "?", Notes: notes,
		Yes: "change", No: "keep", NoNote: "Nothing was changed.", OnYes: func() tea.Cmd {
			s.Nav.Ask(form)
			form.Sending = true
			return s.saveCompany(p)
		}}
}

func (s *Model) saveCompany(p api.CompanyPatch) tea.Cmd {
	s.SetStatus(statusline.StatusInfo, "Saving the company…")
	return s.send(adminChange{kind: companySaved}, func(ctx context.Context, c common.Client, a *adminChange) error {
		co, err := c.UpdateCompany(ctx, p)
		a.company = co
		return err
	})
}

// changed takes the answer to a change: what happened in the status line
// (and a new secret in a notice), what it changed read again, the keys
// after every change (a deactivation disables some; a refusal may follow
// a colleague's change).
func (s *Model) changed(r requests.ResultMsg) tea.Cmd {
	a := r.Val.(adminChange)
	form, _ := s.Nav.Dialog().(*dialog.EntryForm)
	if form != nil && !form.Sending {
		form = nil
	}
	if r.Err != nil {
		if form != nil {
			form.Refused(r.Err) // what was typed stays, the problem by its entry
		}
		return tea.Batch(s.refusedChange(a, r.Err), s.reloadKeys())
	}
	if form != nil {
		s.Nav.CloseDialog(form)
	}
	if s.lostOwnKey(a) {
		return nil // every read would be refused (401)
	}
	switch a.kind {
	case trainerCreated, traineesMoved, trainerDeactivated, trainerActivated:
		return tea.Batch(s.trainerChanged(a), s.reloadStaff(), s.reloadKeys())
	}
	return tea.Batch(s.keyChanged(a), s.reloadKeys())
}

// lostOwnKey reports whether a change revoked or disabled the key this
// TUI uses (a deactivation disables the trainer's keys): the table then
// shows it as the server has it, the status line says plainly that this
// TUI must start again with another key, and so does every refusal of
// the key (401) from then on.
func (s *Model) lostOwnKey(a adminChange) bool {
	own := s.Opt.Key
	if own == nil {
		return false
	}
	state, did := api.KeyDisabled, "Disabled key "+api.EscapeText(own.Name)+", this TUI's own key"
	switch {
	case a.kind == keyRevoked && s.ownKey(a.key):
		state, did = api.KeyRevoked, "Revoked key "+api.EscapeText(own.Name)+", this TUI's own key"
	case a.kind == keyDisabled && s.ownKey(a.key):
	case a.kind == trainerDeactivated && slices.Contains(a.disabled, own.ID):
		did = "Deactivated " + api.EscapeText(a.trainer.Name) + ", and with them this TUI's key, " + api.EscapeText(own.Name)
		if t := s.trainerByID(a.trainer.ID); t != nil {
			t.Active = false
		}
	default:
		return false
	}
	until := "from now on"
	if state == api.KeyDisabled {
		until = "until an admin key enables it"
	}
	then := "Quit (q) and start again with another key."
	s.KeyGone = fmt.Sprintf("This TUI's key, %s, is %s: every request is refused (401) %s. %s", api.EscapeText(own.Name), state, until, then)
	s.ShowStatus(statusline.StatusOK, did+": every request is refused "+until+". "+then)
	keys := s.apiKeys[:0:0]
	for _, k := range s.apiKeys {
		if k.ID == own.ID {
			if state == api.KeyRevoked {
				continue // revoked keys are left out
			}
			c := *k
			c.State = state
			k = &c
		}
		keys = append(keys, k)
	}
	s.apiKeys = keys
	s.Cursor[sectionKeys] = layout.Clamp(s.Cursor[sectionKeys], 0, len(keys)-1)
	return true
}

// keyChanged says what a change of a key or of the company did.
func (s *Model) keyChanged(a adminChange) tea.Cmd {
	switch a.kind {
	case keyCreated, keyRotated:
		s.showSecret(a)
	case keyRevoked:
		s.SetStatus(statusline.StatusOK, "Revoked key %s: it is refused from now on.", a.key.Name)
	case keyEnabled:
		s.SetStatus(statusline.StatusOK, "Enabled key %s: it works again.", a.key.Name)
	case keyDisabled:
		s.SetStatus(statusline.StatusOK, "Disabled key %s: it is refused until e enables it again.", a.key.Name)
	case companySaved:
		s.company = a.company
		s.SetStatus(statusline.StatusOK, "Saved the company: %s, time zone %s.", a.company.Name, a.company.TimeZone)
		return s.Nav.TraineesMoved() // today may be another day
	}
	return nil
}

// trainerChanged says what a change of a trainer did; the dashboard and
// the list follow trainees moved.
func (s *Model) trainerChanged(a adminChange) tea.Cmd {
	switch a.kind {
	case trainerCreated:
		s.SetStatus(statusline.StatusOK, "Added trainer %s (#%d).", a.trainer.Name, a.trainer.ID)
	case traineesMoved:
		s.SetStatus(statusline.StatusOK, "Moved %s from %s to %s.", layout.Plural(a.moved, "trainee"), a.trainer.Name, a.to.Name)
		return s.Nav.TraineesMoved()
	case trainerDeactivated:
		s.deactivated(a)
		if a.to != nil {
			return s.Nav.TraineesMoved()
		}
	case trainerActivated:
		s.SetStatus(statusline.StatusOK, "Activated %s.", a.trainer.Name)
		switch keys := s.boundKeys(a.trainer.ID, false); len(keys) {
		case 0:
		case 1:
			s.ShowStatus(statusline.StatusOK, "Activated "+api.EscapeText(a.trainer.Name)+"; "+keysPhrase(keys)+" stays disabled: e on the Keys section enables it.")
		default:
			s.ShowStatus(statusline.StatusOK, "Activated "+api.EscapeText(a.trainer.Name)+"; "+keysPhrase(keys)+" stay disabled: e on the Keys section enables each.")
		}
	}
	return nil
}

// showSecret shows a created or rotated key's secret, once.
func (s *Model) showSecret(a adminChange) {
	k := a.env.Key
	name := api.EscapeText(k.Name)
	notes := []string{"Copy it now: it will not be shown again."}
	title := "Key " + name + " (" + api.EscapeText(k.Scope) + ") was created. Its secret:"
	s.SetStatus(statusline.StatusOK, "Created key %s.", k.Name)
	if a.kind == keyRotated {
		title = "Key " + name + " has a new secret:"
		until := "now"
		if p := k.PreviousSecretExpiresAt; p != nil {
			until = s.Stamp(*p)
		}
		notes = append(notes, "The old secret keeps working until "+until+", then is refused.")
		if s.ownKey(k) {
			notes = append(notes, "This TUI goes on with the old secret until then: save the new one in your profile.")
		}
		s.SetStatus(statusline.StatusOK, "Rotated key %s: the old secret works until %s.", k.Name, until)
	}
	s.Nav.Ask(&dialog.Notice{Common: s.Common, Title: title, Value: api.EscapeText(a.env.Secret), Notes: notes})
}

// lastAdminRefused says that a change was refused because it would leave
// the company without an enabled admin key (409 1032), in two lines at 80
// columns.
func (s *Model) lastAdminRefused(a adminChange) {
	what, it := "", "it is"
	switch {
	case a.kind == keyRevoked:
		what = "Key " + api.EscapeText(a.key.Name) + " is not revoked"
	case a.kind == keyDisabled:
		what = "Key " + api.EscapeText(a.key.Name) + " stays enabled"
	case a.key != nil:
		what = "Key " + api.EscapeText(a.key.Name) + " is unchanged"
	default: // a deactivation: one of the trainer's keys
		what, it = api.EscapeText(a.trainer.Name)+" stays active", "their key is"
	}
	s.ShowStatus(statusline.StatusError, what+": "+it+" the company's last enabled admin key without an expiry, and a company keeps one "+
		"(409 1032). Create another first.")
}

// refusedChange says why the server refused a change, in the page's
// words where the refusal concerns the state of what it changes; a
// trainer who still has trainees is handed over (the picker opens).
func (s *Model) refusedChange(a adminChange, err error) tea.Cmd {
	switch common.ErrorCode(err) {
	case api.CodeLastAdminKey:
		s.lastAdminRefused(a)
	case api.CodeKeyRevoked:
		s.SetStatus(statusline.StatusError, "Key %s is revoked already: create a new key instead (409 1036).", a.key.Name)
		return s.reloadKeys()
	case api.CodeTrainerHasTrainees:
		s.SetStatus(statusline.StatusError, "%s still has trainees: pick who takes them over (409 1033).", a.trainer.Name)
		t := *a.trainer
		t.Trainees = nil // more than was read
		cmd := s.handOver(&t)
		return tea.Batch(cmd, s.reloadStaff())
	default:
		s.SetError(err)
	}
	return nil
}
