package tui

import (
	tea "charm.land/bubbletea/v2"

	"github.com/traineed/traineed/tui/internal/common"
)

// openSettings shows the Settings page and reads it anew; esc goes back
// to the page it was opened from.
func (m *Model) OpenSettings() tea.Cmd {
	if m.screen != common.ScreenSettings {
		m.settings.Back = m.screen
	}
	m.screen = common.ScreenSettings
	return m.settings.Reload()
}

// ask opens a dialog over the page; the status line of an earlier action
// goes (a note the same key press wrote stays: it says why the dialog
// opens).
func (m *Model) Ask(d common.Modal) {
	m.ClearStale()
	m.modal = d
}

func (m *Model) Dialog() common.Modal { return m.modal }

func (m *Model) CloseDialog(d common.Modal) {
	if m.modal == d {
		m.modal = nil
	}
}
