package settings

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/tui/components/dialog"
	"github.com/traineed/traineed/tui/components/form"
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
	entries := []form.Entry{form.TextEntry(s.Common, "Name", "first and last name", ""), form.TextEntry(s.Common, "E-mail", "name@example.com", "")}
	check := func(v []string) form.Verdicts {
		return ruleVerdicts(api.NewTrainer{Name: v[0], Email: v[1]}, func(b []byte) error {
			_, err := api.ParseNewTrainer(b)
			return err
		}, trainerFields, form.Verdicts{})
	}
	submit := func(v []string) tea.Cmd {
		s.SetStatus(statusline.StatusInfo, "Adding trainer %s…", v[0])
		return s.send(adminChange{kind: trainerCreated, newName: v[0]}, func(ctx context.Context, c common.Client, a *adminChange) error {
			t, err := c.CreateTrainer(ctx, api.NewTrainer{Name: v[0], Email: v[1]})
			a.trainer = t
			return err
		})
	}
	s.Nav.Ask(form.NewEntryForm(s.Common, "New trainer", nil, entries, trainerFields, check, submit, "No trainer was added."))
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
func ruleVerdicts(req any, parse func([]byte) error, fields []string, v form.Verdicts) form.Verdicts {
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

// changed takes the answer to a change: what happened in the status line
// (and a new secret in a notice), what it changed read again, the keys
// after every change (a deactivation disables some; a refusal may follow
// a colleague's change).
func (s *Model) changed(r requests.ResultMsg) tea.Cmd {
	a := r.Val.(adminChange)
	ef, _ := s.Nav.Dialog().(*form.EntryForm)
	if ef != nil && !ef.Sending {
		ef = nil
	}
	if r.Err != nil {
		if ef != nil {
			ef.Refused(r.Err) // what was typed stays, the problem by its entry
		}
		return tea.Batch(s.refusedChange(a, r.Err), s.reloadKeys())
	}
	if ef != nil {
		s.Nav.CloseDialog(ef)
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
