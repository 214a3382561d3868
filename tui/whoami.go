package tui

import (
	tea "charm.land/bubbletea/v2"

	"github.com/traineed/traineed/tui/components/statusline"
)

// toggleMine switches the dashboard and the list between the trainees of
// the key's trainer and all of the company's; a key limited to its
// trainer's trainees cannot show all, and says so.
func (m *Model) ToggleMine() tea.Cmd {
	id, name, only := m.BoundTrainer()
	switch {
	case id == 0:
		m.SetStatus(statusline.StatusInfo, "This key is not bound to a trainer: the dashboard and the list show all of the company's trainees.")
		return nil
	case only:
		m.SetStatus(statusline.StatusInfo, "This key is limited to %s's trainees (own trainees only): it cannot show all of the company's.", name)
		return nil
	case m.Mine != 0:
		m.Mine = 0
		m.SetStatus(statusline.StatusInfo, "All of the company's trainees: m shows %s's again.", name)
	default:
		m.Mine = id
		m.SetStatus(statusline.StatusInfo, "%s's trainees: m shows all of the company's.", name)
	}
	m.list.ViewChanged()
	m.list.Resize(m.Width, m.ContentHeight()) // the trainer's column comes or goes
	return tea.Batch(m.home.Reload(), m.list.Reload(false))
}
