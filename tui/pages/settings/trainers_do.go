package settings

import (
	"context"
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/tui/components/dialog"
	"github.com/traineed/traineed/tui/components/layout"
	"github.com/traineed/traineed/tui/components/statusline"
	"github.com/traineed/traineed/tui/internal/common"
)

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
