package tui

import (
	"context"
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/traineed/traineed/api"
)

// The changes of a trainee that more than one page follows: the root sends
// the delete question and the restore the list and trainee pages ask for,
// and takes every answer of a create, update, delete or restore (the form
// closes, the list and the trainee page show the new state).

// mutation is the answer to a create, update, delete or restore.
type mutation struct {
	kind    string // created, updated, deleted, restored
	t       *api.Trainee
	changed []string // updated: the fields sent
}

// askDelete opens the question before deleting t.
func (m *Model) askDelete(t *api.Trainee) {
	if t == nil {
		return
	}
	if !t.Enabled {
		m.setStatus(statusInfo, "%s is already deleted: u restores.", t.Name)
		return
	}
	c := m.c
	m.ask(&question{common: m.common, text: fmt.Sprintf("Delete %s (#%d)?", api.EscapeText(t.Name), t.ID),
		notes: []string{"The trainee is soft-deleted: u restores it later."}, yes: "delete", no: "keep", noNote: "Not deleted.",
		onYes: func() tea.Cmd {
			m.setStatus(statusInfo, "Deleting %s…", t.Name)
			return m.call(slotMutate, func(ctx context.Context) (any, error) {
				r, err := c.DeleteTrainee(ctx, t.ID)
				return mutation{kind: "deleted", t: r}, err
			})
		}})
}

// restore restores t when it is deleted.
func (m *Model) restore(t *api.Trainee) tea.Cmd {
	if t == nil {
		return nil
	}
	if t.Enabled {
		m.setStatus(statusInfo, "%s is not deleted.", t.Name)
		return nil
	}
	m.setStatus(statusInfo, "Restoring %s…", t.Name)
	c := m.c
	return m.call(slotMutate, func(ctx context.Context) (any, error) {
		r, err := c.UpdateTrainee(ctx, t.ID, api.TraineePatch{Enabled: api.Val(true)})
		return mutation{kind: "restored", t: r}, err
	})
}

// traineeRead puts a trainee read again in the list.
func (m *Model) traineeRead(t *api.Trainee) { m.list.replace(t) }

// traineesMoved reads the dashboard's counts and the list again: many
// trainees changed at once.
func (m *Model) traineesMoved() tea.Cmd { return tea.Batch(m.home.reload(), m.list.reload(true)) }

func (m *Model) mutateResult(msg resultMsg) tea.Cmd {
	mu, _ := msg.val.(mutation)
	if msg.err != nil {
		if m.screen == screenForm && mu.kind == "updated" && isPreconditionFailed(msg.err) {
			m.setStatus(statusError, "%s changed on the server while you edited: nothing was saved.", m.form.orig.Name)
			return m.readForEdit(m.form.orig.ID, true)
		}
		if m.screen == screenForm {
			m.form.sending = false
			m.form.serverErrors(msg.err)
		}
		m.setError(msg.err)
		return nil
	}
	t := mu.t
	switch mu.kind {
	case "created":
		m.setStatus(statusOK, "Created %s (#%d).", t.Name, t.ID)
		m.form.leave()
		cmd := m.list.reload(false)
		return tea.Batch(cmd, m.openTrainee(t))
	case "updated":
		m.setStatus(statusOK, "Saved %s: %s.", t.Name, strings.Join(mu.changed, ", "))
		m.form.leave()
	case "deleted":
		m.setStatus(statusOK, "Deleted %s (#%d): u restores.", t.Name, t.ID)
	case "restored":
		m.setStatus(statusOK, "Restored %s (#%d).", t.Name, t.ID)
	}
	m.list.replace(t)
	if m.trainee.t != nil && m.trainee.t.ID == t.ID {
		m.trainee.t = t
	}
	return m.list.maybeLoadMore()
}
