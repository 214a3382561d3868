package tui

import (
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/tui/components/statusline"
	"github.com/traineed/traineed/tui/internal/common"
	"github.com/traineed/traineed/tui/pages/form"
)

// OpenForm opens the create form (t nil) or the edit form of t.
func (m *Model) OpenForm(t *api.Trainee, back common.Screen) tea.Cmd {
	f := form.Model{Common: m.Common, Open: true, Orig: t, Back: back, Today: m.Today, Th: m.Th}
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
		f.Fields = append(f.Fields, form.FormField{Name: name, Label: label, Input: in, Initial: shown, Stored: stored})
	}
	for _, pf := range api.FormFields {
		switch {
		case pf.Name == form.FTrainerID && t == nil:
			add(pf.Name, "Trainer", "name or id (empty: the first trainer)", "")
		case pf.Name == form.FTrainerID:
			trainer := ""
			if t.TrainerID != nil {
				trainer = m.TrainerText(*t.TrainerID)
			}
			add(pf.Name, "Trainer", "name or id", trainer)
		case t == nil:
			add(pf.Name, pf.Label, pf.Hint, "")
		default:
			add(pf.Name, pf.Label, pf.EditHint, api.FormatText(pf.Of(t)))
		}
		if pf.WriteOnly {
			f.Fields[len(f.Fields)-1].Input.EchoMode = textinput.EchoPassword
		}
	}
	f.Restyle(m.Th)
	f.Resize(m.Width)
	m.form = f
	m.screen = common.ScreenForm
	m.form.Check()
	focus := m.form.Fields[0].Input.Focus()
	if t == nil {
		return focus
	}
	return tea.Batch(focus, m.readForEdit(t.ID, false))
}

// OpenSettings shows the Settings page and reads it anew; esc goes back
// to the page it was opened from.
func (m *Model) OpenSettings() tea.Cmd {
	if m.screen != common.ScreenSettings {
		m.settings.Back = m.screen
	}
	m.screen = common.ScreenSettings
	return m.settings.Reload()
}

// Ask opens a dialog over the page; the status line of an earlier action
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

// ToggleMine switches the dashboard and the list between the trainees of
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

// Show goes back to page s as it was left (the list when s is a trainee's
// page and no trainee was opened).
func (m *Model) Show(s common.Screen) {
	if s == common.ScreenTrainee && m.trainee.T == nil {
		s = common.ScreenList
	}
	m.screen = s
}

// OpenTrainee shows t's page at its profile and reads t again.
func (m *Model) OpenTrainee(t *api.Trainee) tea.Cmd {
	if t == nil {
		return nil
	}
	m.screen = common.ScreenTrainee
	return m.trainee.Open(t)
}

// OpenHome shows the home page and reads its counts again.
func (m *Model) OpenHome() tea.Cmd {
	m.screen = common.ScreenHome
	return m.home.Reload()
}

// OpenList shows the list of a status tab narrowed by f (the search is
// cleared: the list shows what the dashboard counted).
func (m *Model) OpenList(status string, f common.ListFilter) tea.Cmd {
	m.screen = common.ScreenList
	return m.list.Show(status, f)
}

// OpenWebhooks shows the webhooks page and loads the webhooks.
func (m *Model) OpenWebhooks() tea.Cmd {
	m.webhooks.Back = m.screen
	m.screen = common.ScreenWebhooks
	return m.webhooks.Load()
}

// OpenAutomations shows the automations page and loads it.
func (m *Model) OpenAutomations() tea.Cmd {
	m.screen = common.ScreenAutomations
	return m.autos.Reload()
}

// OpenRuns shows a's runs.
func (m *Model) OpenRuns(a *api.Automation) tea.Cmd {
	if a == nil {
		return nil
	}
	m.screen = common.ScreenRuns
	return m.runs.Open(a)
}
