package form

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	lipgloss "charm.land/lipgloss/v2"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/tui/components/keymap"
	"github.com/traineed/traineed/tui/components/layout"
	"github.com/traineed/traineed/tui/components/statusline"
	"github.com/traineed/traineed/tui/internal/common"
)

// Entry is one input of an entry form: a text, or a choice among a few
// options (←/→ or space).
type Entry struct {
	label   string
	input   textinput.Model
	options []string // a choice's options (nil: a text)
	pick    int      // the option chosen
	touched bool
}

func (e *Entry) value() string {
	if e.options != nil {
		return e.options[e.pick]
	}
	return strings.TrimSpace(e.input.Value())
}

// TextEntry is a text entry of the form, holding value.
func TextEntry(c *common.Common, label, placeholder, value string) Entry {
	in := textinput.New()
	in.Prompt = ""
	in.Placeholder = placeholder
	in.CharLimit = 254
	in.SetWidth(min(max(c.Width-30, 10), 40))
	in.SetStyles(c.Th.InputStyles())
	in.SetValue(value)
	return Entry{label: label, input: in}
}

// ChoiceEntry is a choice among options, the first chosen.
func ChoiceEntry(label string, options ...string) Entry {
	return Entry{label: label, options: options}
}

// Verdicts is what a form's check says of its values, by entry: what a
// value means ("Maya Brooks (#1)"), and what is wrong with it.
type Verdicts struct {
	Said map[int]string
	Errs map[int]error
}

// EntryForm is a small form in a dialog: a few entries, checked together
// as they are typed (check, with the API's own rules); ctrl+s (or enter
// on the last entry) sends when nothing is wrong, esc closes it and sends
// nothing. It stays open while its request is sent: the page closes it
// on success (closeDialog) and hands it a refusal (refused), which shows
// by the entry it concerns, what was typed kept.
type EntryForm struct {
	*common.Common
	title   string
	notes   []string
	entries []Entry
	fields  []string // the API's name of each entry: a refusal's field lands on it
	focus   int
	tried   bool // a send was asked: every problem shows
	Sending bool // its request is on its way
	server  map[int]string
	check   func(values []string) Verdicts
	submit  func(values []string) tea.Cmd
	noNote  string
}

// NewEntryForm is a form of entries; fields are the API's names of the
// entries, in order.
func NewEntryForm(c *common.Common, title string, notes []string, entries []Entry, fields []string, check func([]string) Verdicts,
	submit func([]string) tea.Cmd, noNote string) *EntryForm {
	f := &EntryForm{Common: c, title: title, notes: notes, entries: entries, fields: fields, check: check, submit: submit,
		noNote: noNote, server: map[int]string{}}
	f.focusOn(0)
	return f
}

func (f *EntryForm) values() []string {
	out := make([]string, len(f.entries))
	for i := range f.entries {
		out[i] = f.entries[i].value()
	}
	return out
}

func (f *EntryForm) focusOn(i int) {
	if e := &f.entries[f.focus]; e.options == nil {
		e.input.Blur()
	}
	f.focus = (i + len(f.entries)) % len(f.entries)
	if e := &f.entries[f.focus]; e.options == nil {
		e.input.Focus()
	}
}

func (f *EntryForm) Key(msg tea.KeyPressMsg) (tea.Cmd, bool) {
	k, e := f.Keys, &f.entries[f.focus]
	switch {
	case f.Sending: // esc closes it; the answer shows in the status line
		return nil, key.Matches(msg, k.Back)
	case key.Matches(msg, k.Back):
		f.SetStatus(statusline.StatusInfo, "%s", f.noNote)
		return nil, true
	case key.Matches(msg, k.Save), msg.String() == "enter" && f.focus == len(f.entries)-1:
		return f.send()
	case key.Matches(msg, k.NextField):
		f.focusOn(f.focus + 1)
	case key.Matches(msg, k.PrevField):
		f.focusOn(f.focus - 1)
	case e.options != nil:
		switch msg.String() {
		case "left", "h":
			e.pick = (e.pick + len(e.options) - 1) % len(e.options)
		case "right", "l", "space":
			e.pick = (e.pick + 1) % len(e.options)
		}
		e.touched = true
	default:
		var cmd tea.Cmd
		before := e.input.Value()
		e.input, cmd = e.input.Update(msg)
		if e.input.Value() != before {
			e.touched = true
			delete(f.server, f.focus)
		}
		return cmd, false
	}
	return nil, false
}

// send hands the values to submit when nothing is wrong; else it shows
// every problem and goes to the first.
func (f *EntryForm) send() (tea.Cmd, bool) {
	f.tried = true
	values := f.values()
	v := f.check(values)
	for i := range f.entries {
		if v.Errs[i] != nil {
			f.focusOn(i)
			f.SetStatus(statusline.StatusError, "%s is not right: fix it first. Nothing was sent.", f.entries[i].label)
			return nil, false
		}
	}
	cmd := f.submit(values)
	if cmd == nil { // nothing to send, or another dialog asks first
		return nil, true
	}
	f.Sending = true
	clear(f.server)
	return cmd, false
}

// Refused takes the server's refusal of what the form sent: each problem
// by the entry it names, the first focused; the form can be sent again.
func (f *EntryForm) Refused(err error) {
	f.Sending = false
	first := -1
	for _, fe := range common.RefusalFields(err) {
		for i, name := range f.fields {
			if name == fe.Field && f.server[i] == "" {
				f.server[i] = api.EscapeText(fmt.Sprintf("%d %s", fe.ErrorCode, fe.Message))
				if first < 0 || i < first {
					first = i
				}
			}
		}
	}
	if first >= 0 {
		f.focusOn(first)
	}
}

func (f *EntryForm) Body(keymap.HelpKeys) string {
	th := f.Th
	v := f.check(f.values())
	var b strings.Builder
	b.WriteString(f.title + "\n")
	if len(f.notes) > 0 {
		b.WriteString(f.DimLines(f.notes) + "\n")
	}
	for i := range f.entries {
		e := &f.entries[i]
		marker, label := "  ", th.Label.Render(layout.PadRight(e.label, 18))
		if i == f.focus {
			marker, label = th.Accent.Render("▸ "), th.Accent.Render(layout.PadRight(e.label, 18))
		}
		b.WriteString("\n" + marker + label + f.entryView(e) + "\n" + strings.Repeat(" ", 20))
		switch err := v.Errs[i]; {
		case f.server[i] != "":
			b.WriteString(f.saying(th.ErrText, "✗ "+f.server[i]+" (server)"))
		case err != nil && (e.touched || f.tried):
			b.WriteString(f.saying(th.ErrText, "✗ "+err.Error()))
		case err == nil && v.Said[i] != "":
			b.WriteString(f.saying(th.OkText, "✓ "+v.Said[i]))
		}
	}
	if f.Sending {
		b.WriteString("\n\n" + f.Spin.View() + " Sending…   " + th.Accent.Render("esc") + " close")
		return f.DialogBox(b.String())
	}
	b.WriteString("\n\n" + th.Accent.Render("ctrl+s") + " save   " + th.Accent.Render("tab") + " next   " +
		th.Accent.Render("esc") + " cancel")
	return f.DialogBox(b.String())
}

// saying is what the check says of an entry, under its input: wrapped,
// each line styled.
func (f *EntryForm) saying(st lipgloss.Style, text string) string {
	lines := layout.WrapWords(text, max(f.DialogWidth()-20, 10))
	for i, l := range lines {
		lines[i] = st.Render(l)
	}
	return strings.Join(lines, "\n"+strings.Repeat(" ", 20))
}

// entryView is an entry's input, or its options with the chosen one in
// brackets.
func (f *EntryForm) entryView(e *Entry) string {
	if e.options == nil {
		return e.input.View()
	}
	var opts []string
	for i, o := range e.options {
		opts = append(opts, layout.TabLabel(f.Th, o, i == e.pick))
	}
	return strings.Join(opts, "")
}

func (f *EntryForm) Help(keymap.HelpKeys) keymap.HelpKeys {
	k := f.Keys
	pick := key.NewBinding(key.WithKeys("left", "right", "space"), key.WithHelp("←/→", "choose"))
	pick.SetEnabled(f.entries[f.focus].options != nil)
	cancel := k.Back
	cancel.SetHelp("esc", "cancel")
	return keymap.HelpKeys{
		Short: []key.Binding{k.NextField, k.PrevField, pick, k.Save, cancel},
		Full:  [][]key.Binding{{k.NextField, k.PrevField, pick, k.Save, cancel}},
	}
}
