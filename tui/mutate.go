package tui

import (
	"context"
	"errors"
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/client"
	"github.com/traineed/traineed/tui/components/dialog"
	"github.com/traineed/traineed/tui/components/requests"
	"github.com/traineed/traineed/tui/components/statusline"
	"github.com/traineed/traineed/tui/internal/common"
)

// The changes of a trainee that more than one page follows: the root sends
// the delete question and the restore the list and trainee pages ask for,
// and takes every answer of a create, update, delete or restore (the form
// closes, the list and the trainee page show the new state).

// AskDelete opens the question before deleting t.
func (m *Model) AskDelete(t *api.Trainee) {
	if t == nil {
		return
	}
	if !t.Enabled {
		m.SetStatus(statusline.StatusInfo, "%s is already deleted: u restores.", t.Name)
		return
	}
	c := m.C
	m.Ask(&dialog.Question{Common: m.Common, Text: fmt.Sprintf("Delete %s (#%d)?", api.EscapeText(t.Name), t.ID),
		Notes: []string{"The trainee is soft-deleted: u restores it later."}, Yes: "delete", No: "keep", NoNote: "Not deleted.",
		OnYes: func() tea.Cmd {
			m.SetStatus(statusline.StatusInfo, "Deleting %s…", t.Name)
			return m.Call(requests.SlotMutate, func(ctx context.Context) (any, error) {
				r, err := c.DeleteTrainee(ctx, t.ID)
				return common.Mutation{Kind: "deleted", T: r}, err
			})
		}})
}

// Restore restores t when it is deleted.
func (m *Model) Restore(t *api.Trainee) tea.Cmd {
	if t == nil {
		return nil
	}
	if t.Enabled {
		m.SetStatus(statusline.StatusInfo, "%s is not deleted.", t.Name)
		return nil
	}
	m.SetStatus(statusline.StatusInfo, "Restoring %s…", t.Name)
	c := m.C
	return m.Call(requests.SlotMutate, func(ctx context.Context) (any, error) {
		r, err := c.UpdateTrainee(ctx, t.ID, api.TraineePatch{Enabled: api.Val(true)})
		return common.Mutation{Kind: "restored", T: r}, err
	})
}

// TraineeRead puts a trainee read again in the list.
func (m *Model) TraineeRead(t *api.Trainee) { m.list.Replace(t) }

// TraineesMoved reads the dashboard's counts and the list again: many
// trainees changed at once.
func (m *Model) TraineesMoved() tea.Cmd { return tea.Batch(m.home.Reload(), m.list.Reload(true)) }

func (m *Model) mutateResult(msg requests.ResultMsg) tea.Cmd {
	mu, _ := msg.Val.(common.Mutation)
	if msg.Err != nil {
		if m.screen == common.ScreenForm && mu.Kind == "updated" && common.IsPreconditionFailed(msg.Err) {
			m.SetStatus(statusline.StatusError, "%s changed on the server while you edited: nothing was saved.", m.form.Orig.Name)
			return m.readForEdit(m.form.Orig.ID, true)
		}
		if m.screen == common.ScreenForm {
			m.form.Sending = false
			m.form.ServerErrors(msg.Err)
			if erased := (*client.ErasedError)(nil); mu.Kind == "created" && errors.As(msg.Err, &erased) {
				m.form.AllowErased = true
				m.SetStatus(statusline.StatusError, "%s: not created. %s again creates them anyway.",
					api.ErasedReason(erased.Field, erased.ErasedAt), m.Keys.Save.Help().Key)
				return nil
			}
		}
		m.SetError(msg.Err)
		return nil
	}
	t := mu.T
	switch mu.Kind {
	case "created":
		m.SetStatus(statusline.StatusOK, "Created %s (#%d).", t.Name, t.ID)
		m.form.Leave()
		cmd := m.list.Reload(false)
		return tea.Batch(cmd, m.OpenTrainee(t))
	case "updated":
		m.SetStatus(statusline.StatusOK, "Saved %s: %s.", t.Name, strings.Join(mu.Changed, ", "))
		m.form.Leave()
	case "deleted":
		m.SetStatus(statusline.StatusOK, "Deleted %s (#%d): u restores.", t.Name, t.ID)
	case "restored":
		m.SetStatus(statusline.StatusOK, "Restored %s (#%d).", t.Name, t.ID)
	}
	m.list.Replace(t)
	if m.trainee.T != nil && m.trainee.T.ID == t.ID {
		m.trainee.T = t
	}
	return m.list.MaybeLoadMore()
}
