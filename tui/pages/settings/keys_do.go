package settings

import (
	"context"
	"fmt"
	"slices"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/tui/components/dialog"
	"github.com/traineed/traineed/tui/components/form"
	"github.com/traineed/traineed/tui/components/layout"
	"github.com/traineed/traineed/tui/components/statusline"
	"github.com/traineed/traineed/tui/internal/common"
)

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
func (s *Model) newKeyForm() *form.EntryForm {
	entries := []form.Entry{
		form.TextEntry(s.Common, "Name", "who or what uses it: crm, sam-phone", ""),
		form.ChoiceEntry("Scope", api.KeyScopeFull, api.KeyScopeRead, api.KeyScopeAdmin),
		form.TextEntry(s.Common, "Trainer", "name or id (empty: the company's)", ""),
		form.ChoiceEntry("Own trainees only", "no", "yes"),
		form.TextEntry(s.Common, "Expires", "last day, dd-MM-yyyy (empty: never)", ""),
	}
	check := func(v []string) form.Verdicts {
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
	return form.NewEntryForm(s.Common, "New API key", []string{"Its secret is shown once, when it is made."}, entries, keyFields, check, submit, "No key was created.")
}

// keyRequest is the key the form's values describe, checked with the
// API's rules (api.ParseNewKey): the trainer given by name, the expiry a
// last day (the key works until that day ends where the TUI shows
// instants).
func (s *Model) keyRequest(v []string) (api.NewKey, form.Verdicts) {
	vs := form.Verdicts{Said: map[int]string{}, Errs: map[int]error{}}
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
