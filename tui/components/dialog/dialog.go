package dialog

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

// Question is a yes/no question over a page: y runs yes, n or esc keeps
// things as they are and says noNote.
type Question struct {
	*common.Common
	Text   string   // the question
	Notes  []string // what it means, under it
	Yes    string   // what y does: "delete"
	No     string   // what n does: "keep"
	OnYes  func() tea.Cmd
	NoNote string
}

func (q *Question) Key(msg tea.KeyPressMsg) (tea.Cmd, bool) {
	switch {
	case key.Matches(msg, q.Keys.Yes):
		return q.OnYes(), true
	case key.Matches(msg, q.Keys.No):
		q.SetStatus(statusline.StatusInfo, "%s", q.NoNote)
		return nil, true
	}
	return nil, false
}

func (q *Question) Body(keymap.HelpKeys) string {
	th := q.Th
	text := q.WrapDialog(q.Text, 0) + "\n\n"
	if len(q.Notes) > 0 {
		text += q.DimLines(q.Notes) + "\n\n"
	}
	text += th.Accent.Render("y") + " " + q.Yes + "   " + th.Accent.Render("n") + " " + q.No
	return q.DialogBox(text)
}

func (q *Question) Help(keymap.HelpKeys) keymap.HelpKeys { return q.Keys.ConfirmHelp() }

// typedQuestion is a question answered by typing a word (a key's name)
// and enter: for what cannot be undone and concerns the TUI itself. What
// is typed is compared trimmed and in any case (strings.EqualFold), as
// traineectl keys revoke compares it.
type typedQuestion struct {
	*common.Common
	text   string
	notes  []string
	want   string // what must be typed
	input  textinput.Model
	onYes  func() tea.Cmd
	noNote string
}

func NewTypedQuestion(c *common.Common, text string, notes []string, want string, onYes func() tea.Cmd, noNote string) *typedQuestion {
	in := textinput.New()
	in.Prompt = "> "
	in.CharLimit = 200
	in.SetWidth(min(max(c.Width-16, 10), 40))
	in.SetStyles(c.Th.InputStyles())
	in.Focus()
	return &typedQuestion{Common: c, text: text, notes: notes, want: want, input: in, onYes: onYes, noNote: noNote}
}

func (q *typedQuestion) Key(msg tea.KeyPressMsg) (tea.Cmd, bool) {
	switch msg.String() {
	case "esc":
		q.SetStatus(statusline.StatusInfo, "%s", q.noNote)
		return nil, true
	case "enter":
		if !strings.EqualFold(strings.TrimSpace(q.input.Value()), strings.TrimSpace(q.want)) {
			q.SetStatus(statusline.StatusError, "That is not %s: type the name as it is shown, or esc.", q.want)
			return nil, false
		}
		return q.onYes(), true
	}
	var cmd tea.Cmd
	q.input, cmd = q.input.Update(msg)
	return cmd, false
}

func (q *typedQuestion) Body(keymap.HelpKeys) string {
	text := q.WrapDialog(q.text, 0) + "\n\n" + q.DimLines(q.notes) + "\n\n" + q.input.View() + "\n\n" +
		q.Th.Accent.Render("enter") + " confirm   " + q.Th.Accent.Render("esc") + " keep"
	return q.DialogBox(text)
}

func (q *typedQuestion) Help(keymap.HelpKeys) keymap.HelpKeys {
	ok := key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "confirm"))
	esc := key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "keep"))
	return keymap.HelpKeys{Short: []key.Binding{ok, esc}, Full: [][]key.Binding{{ok, esc}}}
}

// Choice is one line of a picker: what it shows and the id it stands for.
type Choice struct {
	Label string
	Id    int64
}

// Picker asks to pick one of a few choices (↑/↓, enter); esc keeps things
// as they are.
type Picker struct {
	*common.Common
	Text    string
	notes   []string
	Choices []Choice
	cursor  int
	OnPick  func(c Choice) tea.Cmd
	NoNote  string
}

func (p *Picker) Key(msg tea.KeyPressMsg) (tea.Cmd, bool) {
	k := p.Keys
	switch {
	case key.Matches(msg, k.Back):
		p.SetStatus(statusline.StatusInfo, "%s", p.NoNote)
		return nil, true
	case key.Matches(msg, k.Open):
		return p.OnPick(p.Choices[p.cursor]), true
	case key.Matches(msg, k.Up):
		p.cursor = max(p.cursor-1, 0)
	case key.Matches(msg, k.Down):
		p.cursor = min(p.cursor+1, len(p.Choices)-1)
	}
	return nil, false
}

func (p *Picker) Body(keymap.HelpKeys) string {
	th := p.Th
	var b strings.Builder
	b.WriteString(p.WrapDialog(p.Text, 0) + "\n")
	if len(p.notes) > 0 {
		b.WriteString(p.DimLines(p.notes) + "\n")
	}
	b.WriteString("\n")
	for i, c := range p.Choices {
		line := "  " + c.Label
		if i == p.cursor {
			line = th.Selected.Render("▸ " + c.Label)
		}
		b.WriteString(line + "\n")
	}
	b.WriteString("\n" + th.Accent.Render("enter") + " pick   " + th.Accent.Render("esc") + " keep")
	return p.DialogBox(b.String())
}

func (p *Picker) Help(keymap.HelpKeys) keymap.HelpKeys {
	k := p.Keys
	pick, esc := k.Open, k.Back
	pick.SetHelp("enter", "pick")
	esc.SetHelp("esc", "keep")
	return keymap.HelpKeys{Short: []key.Binding{keymap.UpDown(k), pick, esc}, Full: [][]key.Binding{{k.Up, k.Down, pick, esc}}}
}

// Notice shows what is shown once (a new key's secret) until enter or esc;
// c copies its value to the clipboard (OSC 52, where the terminal lets
// it).
type Notice struct {
	*common.Common
	Title string
	Value string // shown on a line of its own, and what c copies
	Notes []string
}

func (n *Notice) Key(msg tea.KeyPressMsg) (tea.Cmd, bool) {
	switch {
	case key.Matches(msg, n.Keys.Open, n.Keys.Back):
		return nil, true
	case msg.String() == "c":
		n.SetStatus(statusline.StatusInfo, "Copied to the clipboard (where the terminal allows it).")
		return tea.SetClipboard(n.Value), false
	}
	return nil, false
}

func (n *Notice) Body(keymap.HelpKeys) string {
	th := n.Th
	text := n.WrapDialog(n.Title, 0) + "\n\n  " + th.Accent.Render(n.Value) + "\n\n" + n.DimLines(n.Notes) + "\n\n" +
		th.Accent.Render("c") + " copy   " + th.Accent.Render("enter") + " close"
	return n.DialogBox(text)
}

func (n *Notice) Help(keymap.HelpKeys) keymap.HelpKeys {
	copyKey := key.NewBinding(key.WithKeys("c"), key.WithHelp("c", "copy"))
	done := n.Keys.Open
	done.SetKeys("enter", "esc")
	done.SetHelp("enter", "close")
	return keymap.HelpKeys{Short: []key.Binding{copyKey, done}, Full: [][]key.Binding{{copyKey, done}}}
}

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
