package tui

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
func (s *settingsModel) send(a adminChange, do func(ctx context.Context, c Client, a *adminChange) error) tea.Cmd {
	c := s.c
	return s.call(slotAdmin, func(ctx context.Context) (any, error) {
		err := do(ctx, c, &a)
		return a, err
	})
}

// add creates a key or a trainer, after a form.
func (s *settingsModel) add() tea.Cmd {
	if s.section == sectionKeys {
		s.nav.ask(s.newKeyForm())
		return nil
	}
	entries := []entry{textEntry(s.common, "Name", "first and last name", ""), textEntry(s.common, "E-mail", "name@example.com", "")}
	check := func(v []string) verdicts {
		return ruleVerdicts(api.NewTrainer{Name: v[0], Email: v[1]}, func(b []byte) error {
			_, err := api.ParseNewTrainer(b)
			return err
		}, trainerFields, verdicts{})
	}
	submit := func(v []string) tea.Cmd {
		s.setStatus(statusInfo, "Adding trainer %s…", v[0])
		return s.send(adminChange{kind: trainerCreated, newName: v[0]}, func(ctx context.Context, c Client, a *adminChange) error {
			t, err := c.CreateTrainer(ctx, api.NewTrainer{Name: v[0], Email: v[1]})
			a.trainer = t
			return err
		})
	}
	s.nav.ask(newEntryForm(s.common, "New trainer", nil, entries, trainerFields, check, submit, "No trainer was added."))
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
func ruleVerdicts(req any, parse func([]byte) error, fields []string, v verdicts) verdicts {
	if v.errs == nil {
		v.errs = map[int]error{}
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
			if f == fe.Field && v.errs[i] == nil {
				v.errs[i] = fmt.Errorf("%d %s", fe.ErrorCode, api.EscapeText(fe.Message))
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
func (s *settingsModel) newKeyForm() *entryForm {
	entries := []entry{
		textEntry(s.common, "Name", "who or what uses it: crm, sam-phone", ""),
		choiceEntry("Scope", api.KeyScopeFull, api.KeyScopeRead, api.KeyScopeAdmin),
		textEntry(s.common, "Trainer", "name or id (empty: the company's)", ""),
		choiceEntry("Own trainees only", "no", "yes"),
		textEntry(s.common, "Expires", "last day, dd-MM-yyyy (empty: never)", ""),
	}
	check := func(v []string) verdicts {
		_, vs := s.keyRequest(v)
		return vs
	}
	submit := func(v []string) tea.Cmd {
		k, _ := s.keyRequest(v)
		s.setStatus(statusInfo, "Creating key %s…", k.Name)
		return s.send(adminChange{kind: keyCreated, newName: k.Name}, func(ctx context.Context, c Client, a *adminChange) error {
			env, err := c.CreateKey(ctx, k)
			a.env = env
			return err
		})
	}
	return newEntryForm(s.common, "New API key", []string{"Its secret is shown once, when it is made."}, entries, keyFields, check, submit, "No key was created.")
}

// keyRequest is the key the form's values describe, checked with the
// API's rules (api.ParseNewKey): the trainer given by name, the expiry a
// last day (the key works until that day ends where the TUI shows
// instants).
func (s *settingsModel) keyRequest(v []string) (api.NewKey, verdicts) {
	vs := verdicts{said: map[int]string{}, errs: map[int]error{}}
	k := api.NewKey{Name: v[keyEntryName], Scope: v[keyEntryScope], OwnTraineesOnly: v[keyEntryOwn] == "yes"}
	if v[keyEntryTrainer] != "" {
		if id, err := s.trainerByText(v[keyEntryTrainer]); err != nil {
			vs.errs[keyEntryTrainer] = err
		} else {
			k.TrainerID = &id
			vs.said[keyEntryTrainer] = trainerName(s.trainers, &id) + fmt.Sprintf(" (#%d)", id)
		}
	}
	if v[keyEntryExpires] != "" {
		if d, err := api.ParseDateInput(v[keyEntryExpires], s.today().Time()); err != nil {
			// ParseDateInput's words offer today or yesterday: not a
			// key's last day.
			vs.errs[keyEntryExpires] = fmt.Errorf("%d %q is not a day: give the last day it works, dd-MM-yyyy or yyyy-MM-dd, "+
				"such as %s", api.CodeInvalidDate, v[keyEntryExpires], s.today().AddDays(365).String())
		} else {
			end := time.Date(d.Year, d.Month, d.Day+1, 0, 0, 0, 0, s.zone())
			k.ExpiresAt = &end
			vs.said[keyEntryExpires] = "works through " + d.String() + ", refused from " + s.stamp(end)
		}
	}
	now := s.today().Time()
	return k, ruleVerdicts(k, func(b []byte) error {
		_, err := api.ParseNewKey(b, now)
		return err
	}, keyFields, vs)
}

// zone is where the TUI shows instants (Options.Zone, else local).
func (c *common) zone() *time.Location {
	if c.opt.Zone != nil {
		return c.opt.Zone
	}
	return time.Local
}

// rotateOrReassign is r: rotate the selected key, or move the selected
// trainer's trainees to another trainer.
func (s *settingsModel) rotateOrReassign() tea.Cmd {
	if s.section == sectionTrainers {
		return s.reassign()
	}
	k := s.selectedKey()
	if k == nil {
		return nil
	}
	name := api.EscapeText(k.Name)
	notes := []string{"It gets a new secret, shown once. The old secret keeps working for 24 hours, until " +
		s.stamp(time.Now().Add(api.DefaultKeyOverlap)) + ", then is refused."}
	if s.ownKey(k) {
		notes = append(notes, "This TUI uses this key: it goes on with the old secret until then; save the new one in your profile.")
	}
	s.nav.ask(&question{common: s.common, text: "Rotate key " + name + "?", notes: notes, yes: "rotate", no: "keep",
		noNote: "Not rotated.", onYes: func() tea.Cmd {
			s.setStatus(statusInfo, "Rotating key %s…", k.Name)
			return s.send(adminChange{kind: keyRotated, key: k}, func(ctx context.Context, c Client, a *adminChange) error {
				env, err := c.RotateKey(ctx, k.ID, nil)
				a.env = env
				return err
			})
		}})
	return nil
}

// revokeOrDeactivate is d: revoke the selected key (typing its name when
// it is the key this TUI uses), or deactivate the selected trainer.
func (s *settingsModel) revokeOrDeactivate() tea.Cmd {
	if s.section == sectionTrainers {
		return s.deactivate()
	}
	k := s.selectedKey()
	if k == nil {
		return nil
	}
	revoke := func() tea.Cmd {
		s.setStatus(statusInfo, "Revoking key %s…", k.Name)
		return s.send(adminChange{kind: keyRevoked, key: k}, func(ctx context.Context, c Client, a *adminChange) error {
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
func (s *settingsModel) confirmKeyChange(k *api.APIKey, verb, note, ownNote string, do func() tea.Cmd) {
	name, noNote := api.EscapeText(k.Name), "Not "+verb+"d."
	if s.ownKey(k) {
		s.nav.ask(newTypedQuestion(s.common, capitalized(verb)+" key "+name+", the key this TUI uses?",
			[]string{ownNote, "Type its name to " + verb + " it:"}, name, do, noNote))
		return
	}
	s.nav.ask(&question{common: s.common, text: capitalized(verb) + " key " + name + "?", notes: []string{note},
		yes: verb, no: "keep", noNote: noNote, onYes: do})
}

// toggleKey is e: enable the selected key when it is disabled, else
// disable it after a question (typing its name when it is the key this
// TUI uses).
func (s *settingsModel) toggleKey() tea.Cmd {
	k := s.selectedKey()
	if k == nil {
		return nil
	}
	on := k.State == api.KeyDisabled
	kind, verb := keyDisabled, "Disabling"
	if on {
		kind, verb = keyEnabled, "Enabling"
	}
	toggle := func() tea.Cmd {
		s.setStatus(statusInfo, "%s key %s…", verb, k.Name)
		return s.send(adminChange{kind: kind, key: k}, func(ctx context.Context, c Client, a *adminChange) error {
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
func (s *settingsModel) others(t *api.TrainerSummary) []choice {
	var out []choice
	for _, o := range s.staff {
		if o.ID != t.ID && o.Active {
			out = append(out, choice{label: fmt.Sprintf("%s (%s)", api.EscapeText(o.Name), plural(derefCount(o.Trainees), "trainee")), id: o.ID})
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
func (s *settingsModel) trainerByID(id int64) *api.TrainerSummary {
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
	return owner + " " + plural(*t.Trainees, "live trainee")
}

// softDeletedToo is what a move takes besides the live trainees counted.
const softDeletedToo = " and any soft-deleted ones"

// boundKeys are the keys read that act as trainer id; live: only those a
// deactivation disables (not disabled yet).
func (s *settingsModel) boundKeys(id int64, live bool) []*api.APIKey {
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
func (s *settingsModel) theirKeys(t *api.TrainerSummary) string {
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
	return "their " + plural(len(keys), "key")
}

// keyNames are the names of the keys of ids among those read, escaped
// ("#id" for one not read).
func (s *settingsModel) keyNames(ids []int64) string {
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
func (s *settingsModel) pickTaker(t *api.TrainerSummary, text string, then func(to *api.TrainerSummary) tea.Cmd, noNote string) tea.Cmd {
	choices := s.others(t)
	if len(choices) == 0 {
		s.setStatus(statusError, "No other active trainer can take %s over: n adds one.", theirTrainees(t))
		return nil
	}
	s.nav.ask(&picker{common: s.common, text: text, choices: choices, noNote: noNote,
		onPick: func(c choice) tea.Cmd { return then(s.trainerByID(c.id)) }})
	return nil
}

// reassign moves the selected trainer's trainees to a trainer picked,
// after a question that counts them.
func (s *settingsModel) reassign() tea.Cmd {
	t := s.selectedTrainer()
	if t == nil {
		return nil
	}
	if t.Trainees != nil && *t.Trainees == 0 {
		s.setStatus(statusInfo, "%s has no trainees to move.", t.Name)
		return nil
	}
	return s.pickTaker(t, "Move "+theirTrainees(t)+softDeletedToo+" to:", func(to *api.TrainerSummary) tea.Cmd {
		s.nav.ask(&question{common: s.common, text: fmt.Sprintf("Move %s%s to %s?", theirTrainees(t), softDeletedToo, api.EscapeText(to.Name)),
			notes: []string{"In one change: each trainee gets its trainee.updated event. " +
				api.EscapeText(t.Name) + " stays active, and so do their keys."},
			yes: "move", no: "keep", noNote: "Nothing was moved.", onYes: func() tea.Cmd {
				s.setStatus(statusInfo, "Moving %s to %s…", theirTrainees(t), to.Name)
				return s.send(adminChange{kind: traineesMoved, trainer: t, to: to}, func(ctx context.Context, c Client, a *adminChange) error {
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
func (s *settingsModel) deactivate() tea.Cmd {
	t := s.selectedTrainer()
	switch {
	case t == nil:
		return nil
	case !t.Active:
		s.setStatus(statusInfo, "%s is inactive already: u activates them again.", t.Name)
		return nil
	case t.Trainees != nil && *t.Trainees > 0:
		return s.handOver(t)
	}
	s.askDeactivate(t, nil)
	return nil
}

// handOver deactivates t after asking who takes t's trainees over.
func (s *settingsModel) handOver(t *api.TrainerSummary) tea.Cmd {
	return s.pickTaker(t, api.EscapeText(t.Name)+" has trainees: who takes them over?", func(to *api.TrainerSummary) tea.Cmd {
		s.askDeactivate(t, to)
		return nil
	}, "Nothing was changed.")
}

// askDeactivate asks whether to deactivate t, saying all it does: to
// takes t's trainees (nil: t has none), t's keys are disabled.
func (s *settingsModel) askDeactivate(t, to *api.TrainerSummary) {
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
	s.nav.ask(&question{common: s.common, text: inSeries(clauses...) + "?", notes: notes,
		yes: "deactivate", no: "keep", noNote: "Nothing was changed.", onYes: func() tea.Cmd { return s.sendDeactivate(t, to) }})
}

func (s *settingsModel) sendDeactivate(t, to *api.TrainerSummary) tea.Cmd {
	var reassignTo *int64
	if to != nil {
		reassignTo = &to.ID
	}
	s.setStatus(statusInfo, "Deactivating %s…", t.Name)
	return s.send(adminChange{kind: trainerDeactivated, trainer: t, to: to}, func(ctx context.Context, c Client, a *adminChange) error {
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
func (s *settingsModel) deactivated(a adminChange) {
	var did []string
	if a.to != nil {
		did = append(did, fmt.Sprintf("moved %s to %s", plural(a.moved, "trainee"), api.EscapeText(a.to.Name)))
	}
	switch len(a.disabled) {
	case 0:
	case 1:
		did = append(did, "disabled their key "+s.keyNames(a.disabled))
	default:
		did = append(did, fmt.Sprintf("disabled their %s (%s)", plural(len(a.disabled), "key"), s.keyNames(a.disabled)))
	}
	text := "Deactivated " + api.EscapeText(a.trainer.Name)
	if len(did) > 0 {
		text += ": " + inSeries(did...)
	}
	s.showStatus(statusOK, text+".")
}

// activate activates the selected trainer again.
func (s *settingsModel) activate() tea.Cmd {
	t := s.selectedTrainer()
	switch {
	case t == nil:
		return nil
	case t.Active:
		s.setStatus(statusInfo, "%s is active.", t.Name)
		return nil
	}
	on := true
	s.setStatus(statusInfo, "Activating %s…", t.Name)
	return s.send(adminChange{kind: trainerActivated, trainer: t}, func(ctx context.Context, c Client, a *adminChange) error {
		_, err := c.UpdateTrainer(ctx, t.ID, api.TrainerPatch{Active: &on})
		return err
	})
}

// editCompany edits the company's name and time zone; a new zone is
// explained and confirmed first.
func (s *settingsModel) editCompany() tea.Cmd {
	co := s.company
	if co == nil {
		s.setStatus(statusInfo, "The company is not read yet: ctrl+r reads it.")
		return nil
	}
	entries := []entry{textEntry(s.common, "Name", "the company's name", co.Name), textEntry(s.common, "Time zone", "an IANA name: Europe/London", co.TimeZone)}
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
	check := func(v []string) verdicts {
		return ruleVerdicts(patch(v), func(b []byte) error {
			_, err := api.ParseCompanyPatch(b)
			return err
		}, companyFields, verdicts{})
	}
	var form *entryForm
	submit := func(v []string) tea.Cmd {
		p := patch(v)
		switch {
		case p.Name == nil && p.TimeZone == nil:
			s.setStatus(statusInfo, "Nothing changed: nothing was sent.")
			return nil
		case p.TimeZone != nil:
			s.nav.ask(s.zoneQuestion(co, p, form))
			return nil
		}
		return s.saveCompany(p)
	}
	form = newEntryForm(s.common, "The company", nil, entries, companyFields, check, submit, "Nothing was changed.")
	s.nav.ask(form)
	return nil
}

// zoneQuestion explains what a new time zone changes, and asks; y sends
// the form's change, the form open again until the answer.
func (s *settingsModel) zoneQuestion(co *api.Company, p api.CompanyPatch, form *entryForm) *question {
	from, to := api.EscapeText(co.TimeZone), api.EscapeText(*p.TimeZone)
	notes := []string{"\"Who is expired today\" follows the new zone from then on: the company's day, its counts, " +
		"its lists and its automations start and end at midnight in " + to + "."}
	if loc, err := time.LoadLocation(*p.TimeZone); err == nil {
		now := time.Now().In(loc)
		notes = append(notes, "It is "+now.Format("15:04")+" on "+api.DateOf(now).String()+" there now.")
	}
	return &question{common: s.common, text: "Change the time zone from " + from + " to " + to + "?", notes: notes,
		yes: "change", no: "keep", noNote: "Nothing was changed.", onYes: func() tea.Cmd {
			s.nav.ask(form)
			form.sending = true
			return s.saveCompany(p)
		}}
}

func (s *settingsModel) saveCompany(p api.CompanyPatch) tea.Cmd {
	s.setStatus(statusInfo, "Saving the company…")
	return s.send(adminChange{kind: companySaved}, func(ctx context.Context, c Client, a *adminChange) error {
		co, err := c.UpdateCompany(ctx, p)
		a.company = co
		return err
	})
}

// changed takes the answer to a change: what happened in the status line
// (and a new secret in a notice), what it changed read again, the keys
// after every change (a deactivation disables some; a refusal may follow
// a colleague's change).
func (s *settingsModel) changed(r resultMsg) tea.Cmd {
	a := r.val.(adminChange)
	form, _ := s.nav.dialog().(*entryForm)
	if form != nil && !form.sending {
		form = nil
	}
	if r.err != nil {
		if form != nil {
			form.refused(r.err) // what was typed stays, the problem by its entry
		}
		return tea.Batch(s.refusedChange(a, r.err), s.reloadKeys())
	}
	if form != nil {
		s.nav.closeDialog(form)
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
func (s *settingsModel) lostOwnKey(a adminChange) bool {
	own := s.opt.Key
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
	s.keyGone = fmt.Sprintf("This TUI's key, %s, is %s: every request is refused (401) %s. %s", api.EscapeText(own.Name), state, until, then)
	s.showStatus(statusOK, did+": every request is refused "+until+". "+then)
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
	s.cursor[sectionKeys] = clamp(s.cursor[sectionKeys], 0, len(keys)-1)
	return true
}

// keyChanged says what a change of a key or of the company did.
func (s *settingsModel) keyChanged(a adminChange) tea.Cmd {
	switch a.kind {
	case keyCreated, keyRotated:
		s.showSecret(a)
	case keyRevoked:
		s.setStatus(statusOK, "Revoked key %s: it is refused from now on.", a.key.Name)
	case keyEnabled:
		s.setStatus(statusOK, "Enabled key %s: it works again.", a.key.Name)
	case keyDisabled:
		s.setStatus(statusOK, "Disabled key %s: it is refused until e enables it again.", a.key.Name)
	case companySaved:
		s.company = a.company
		s.setStatus(statusOK, "Saved the company: %s, time zone %s.", a.company.Name, a.company.TimeZone)
		return s.nav.traineesMoved() // today may be another day
	}
	return nil
}

// trainerChanged says what a change of a trainer did; the dashboard and
// the list follow trainees moved.
func (s *settingsModel) trainerChanged(a adminChange) tea.Cmd {
	switch a.kind {
	case trainerCreated:
		s.setStatus(statusOK, "Added trainer %s (#%d).", a.trainer.Name, a.trainer.ID)
	case traineesMoved:
		s.setStatus(statusOK, "Moved %s from %s to %s.", plural(a.moved, "trainee"), a.trainer.Name, a.to.Name)
		return s.nav.traineesMoved()
	case trainerDeactivated:
		s.deactivated(a)
		if a.to != nil {
			return s.nav.traineesMoved()
		}
	case trainerActivated:
		s.setStatus(statusOK, "Activated %s.", a.trainer.Name)
		switch keys := s.boundKeys(a.trainer.ID, false); len(keys) {
		case 0:
		case 1:
			s.showStatus(statusOK, "Activated "+api.EscapeText(a.trainer.Name)+"; "+keysPhrase(keys)+" stays disabled: e on the Keys section enables it.")
		default:
			s.showStatus(statusOK, "Activated "+api.EscapeText(a.trainer.Name)+"; "+keysPhrase(keys)+" stay disabled: e on the Keys section enables each.")
		}
	}
	return nil
}

// showSecret shows a created or rotated key's secret, once.
func (s *settingsModel) showSecret(a adminChange) {
	k := a.env.Key
	name := api.EscapeText(k.Name)
	notes := []string{"Copy it now: it will not be shown again."}
	title := "Key " + name + " (" + api.EscapeText(k.Scope) + ") was created. Its secret:"
	s.setStatus(statusOK, "Created key %s.", k.Name)
	if a.kind == keyRotated {
		title = "Key " + name + " has a new secret:"
		until := "now"
		if p := k.PreviousSecretExpiresAt; p != nil {
			until = s.stamp(*p)
		}
		notes = append(notes, "The old secret keeps working until "+until+", then is refused.")
		if s.ownKey(k) {
			notes = append(notes, "This TUI goes on with the old secret until then: save the new one in your profile.")
		}
		s.setStatus(statusOK, "Rotated key %s: the old secret works until %s.", k.Name, until)
	}
	s.nav.ask(&notice{common: s.common, title: title, value: api.EscapeText(a.env.Secret), notes: notes})
}

// lastAdminRefused says that a change was refused because it would leave
// the company without an enabled admin key (409 1032), in two lines at 80
// columns.
func (s *settingsModel) lastAdminRefused(a adminChange) {
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
	s.showStatus(statusError, what+": "+it+" the company's last enabled admin key without an expiry, and a company keeps one "+
		"(409 1032). Create another first.")
}

// refusedChange says why the server refused a change, in the page's
// words where the refusal concerns the state of what it changes; a
// trainer who still has trainees is handed over (the picker opens).
func (s *settingsModel) refusedChange(a adminChange, err error) tea.Cmd {
	switch errorCode(err) {
	case api.CodeLastAdminKey:
		s.lastAdminRefused(a)
	case api.CodeKeyRevoked:
		s.setStatus(statusError, "Key %s is revoked already: create a new key instead (409 1036).", a.key.Name)
		return s.reloadKeys()
	case api.CodeTrainerHasTrainees:
		s.setStatus(statusError, "%s still has trainees: pick who takes them over (409 1033).", a.trainer.Name)
		t := *a.trainer
		t.Trainees = nil // more than was read
		cmd := s.handOver(&t)
		return tea.Batch(cmd, s.reloadStaff())
	default:
		s.setError(err)
	}
	return nil
}
