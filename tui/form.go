package tui

import (
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/tui/internal/common"
	"github.com/traineed/traineed/tui/pages/form"
)

// openForm opens the create form (t nil) or the edit form of t.
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
