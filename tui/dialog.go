package tui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/traineed/traineed/api"
)

// Dialogs: the modals a page opens to ask before it changes something (a
// yes/no question, a name to type, a choice in a list), to take a few
// values (a small form), or to show what is shown once (a new key's
// secret). Each is drawn in a box centred over the page.

// dialogBox is text in the dialog's box, centred in the page's body.
func (c *common) dialogBox(text string) string {
	return placeCenter(c.th.dialog.Render(text), c.width, c.contentHeight())
}

// dialogWidth is the width of a dialog's text: what its box (a border
// and two spaces each side) leaves of the screen, at most 72.
func (c *common) dialogWidth() int { return min(max(c.width-8, 20), 72) }

// wrapDialog wraps text to lines of a dialog, after indent cells.
func (c *common) wrapDialog(text string, indent int) string {
	return strings.Join(wrapWords(text, max(c.dialogWidth()-indent, 10)), "\n"+strings.Repeat(" ", indent))
}

// dimLines are notes in the dim style, each wrapped to the dialog's
// width.
func (c *common) dimLines(notes []string) string {
	var lines []string
	for _, n := range notes {
		for _, l := range wrapWords(n, c.dialogWidth()) {
			lines = append(lines, c.th.dim.Render(l))
		}
	}
	return strings.Join(lines, "\n")
}

// question is a yes/no question over a page: y runs yes, n or esc keeps
// things as they are and says noNote.
type question struct {
	*common
	text   string   // the question
	notes  []string // what it means, under it
	yes    string   // what y does: "delete"
	no     string   // what n does: "keep"
	onYes  func() tea.Cmd
	noNote string
}

func (q *question) key(msg tea.KeyPressMsg) (tea.Cmd, bool) {
	switch {
	case key.Matches(msg, q.keys.Yes):
		return q.onYes(), true
	case key.Matches(msg, q.keys.No):
		q.setStatus(statusInfo, "%s", q.noNote)
		return nil, true
	}
	return nil, false
}

func (q *question) body(helpKeys) string {
	th := q.th
	text := q.wrapDialog(q.text, 0) + "\n\n"
	if len(q.notes) > 0 {
		text += q.dimLines(q.notes) + "\n\n"
	}
	text += th.accent.Render("y") + " " + q.yes + "   " + th.accent.Render("n") + " " + q.no
	return q.dialogBox(text)
}

func (q *question) help(helpKeys) helpKeys { return q.keys.confirmHelp() }

// typedQuestion is a question answered by typing a word (a key's name)
// and enter: for what cannot be undone and concerns the TUI itself. What
// is typed is compared trimmed and in any case (strings.EqualFold), as
// traineectl keys revoke compares it.
type typedQuestion struct {
	*common
	text   string
	notes  []string
	want   string // what must be typed
	input  textinput.Model
	onYes  func() tea.Cmd
	noNote string
}

func newTypedQuestion(c *common, text string, notes []string, want string, onYes func() tea.Cmd, noNote string) *typedQuestion {
	in := textinput.New()
	in.Prompt = "> "
	in.CharLimit = 200
	in.SetWidth(min(max(c.width-16, 10), 40))
	in.SetStyles(c.th.inputStyles())
	in.Focus()
	return &typedQuestion{common: c, text: text, notes: notes, want: want, input: in, onYes: onYes, noNote: noNote}
}

func (q *typedQuestion) key(msg tea.KeyPressMsg) (tea.Cmd, bool) {
	switch msg.String() {
	case "esc":
		q.setStatus(statusInfo, "%s", q.noNote)
		return nil, true
	case "enter":
		if !strings.EqualFold(strings.TrimSpace(q.input.Value()), strings.TrimSpace(q.want)) {
			q.setStatus(statusError, "That is not %s: type the name as it is shown, or esc.", q.want)
			return nil, false
		}
		return q.onYes(), true
	}
	var cmd tea.Cmd
	q.input, cmd = q.input.Update(msg)
	return cmd, false
}

func (q *typedQuestion) body(helpKeys) string {
	text := q.wrapDialog(q.text, 0) + "\n\n" + q.dimLines(q.notes) + "\n\n" + q.input.View() + "\n\n" +
		q.th.accent.Render("enter") + " confirm   " + q.th.accent.Render("esc") + " keep"
	return q.dialogBox(text)
}

func (q *typedQuestion) help(helpKeys) helpKeys {
	ok := key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "confirm"))
	esc := key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "keep"))
	return helpKeys{short: []key.Binding{ok, esc}, full: [][]key.Binding{{ok, esc}}}
}

// choice is one line of a picker: what it shows and the id it stands for.
type choice struct {
	label string
	id    int64
}

// picker asks to pick one of a few choices (↑/↓, enter); esc keeps things
// as they are.
type picker struct {
	*common
	text    string
	notes   []string
	choices []choice
	cursor  int
	onPick  func(c choice) tea.Cmd
	noNote  string
}

func (p *picker) key(msg tea.KeyPressMsg) (tea.Cmd, bool) {
	k := p.keys
	switch {
	case key.Matches(msg, k.Back):
		p.setStatus(statusInfo, "%s", p.noNote)
		return nil, true
	case key.Matches(msg, k.Open):
		return p.onPick(p.choices[p.cursor]), true
	case key.Matches(msg, k.Up):
		p.cursor = max(p.cursor-1, 0)
	case key.Matches(msg, k.Down):
		p.cursor = min(p.cursor+1, len(p.choices)-1)
	}
	return nil, false
}

func (p *picker) body(helpKeys) string {
	th := p.th
	var b strings.Builder
	b.WriteString(p.wrapDialog(p.text, 0) + "\n")
	if len(p.notes) > 0 {
		b.WriteString(p.dimLines(p.notes) + "\n")
	}
	b.WriteString("\n")
	for i, c := range p.choices {
		line := "  " + c.label
		if i == p.cursor {
			line = th.selected.Render("▸ " + c.label)
		}
		b.WriteString(line + "\n")
	}
	b.WriteString("\n" + th.accent.Render("enter") + " pick   " + th.accent.Render("esc") + " keep")
	return p.dialogBox(b.String())
}

func (p *picker) help(helpKeys) helpKeys {
	k := p.keys
	pick, esc := k.Open, k.Back
	pick.SetHelp("enter", "pick")
	esc.SetHelp("esc", "keep")
	return helpKeys{short: []key.Binding{upDown(k), pick, esc}, full: [][]key.Binding{{k.Up, k.Down, pick, esc}}}
}

// notice shows what is shown once (a new key's secret) until enter or esc;
// c copies its value to the clipboard (OSC 52, where the terminal lets
// it).
type notice struct {
	*common
	title string
	value string // shown on a line of its own, and what c copies
	notes []string
}

func (n *notice) key(msg tea.KeyPressMsg) (tea.Cmd, bool) {
	switch {
	case key.Matches(msg, n.keys.Open, n.keys.Back):
		return nil, true
	case msg.String() == "c":
		n.setStatus(statusInfo, "Copied to the clipboard (where the terminal allows it).")
		return tea.SetClipboard(n.value), false
	}
	return nil, false
}

func (n *notice) body(helpKeys) string {
	th := n.th
	text := n.wrapDialog(n.title, 0) + "\n\n  " + th.accent.Render(n.value) + "\n\n" + n.dimLines(n.notes) + "\n\n" +
		th.accent.Render("c") + " copy   " + th.accent.Render("enter") + " close"
	return n.dialogBox(text)
}

func (n *notice) help(helpKeys) helpKeys {
	copyKey := key.NewBinding(key.WithKeys("c"), key.WithHelp("c", "copy"))
	done := n.keys.Open
	done.SetKeys("enter", "esc")
	done.SetHelp("enter", "close")
	return helpKeys{short: []key.Binding{copyKey, done}, full: [][]key.Binding{{copyKey, done}}}
}

// entry is one input of an entry form: a text, or a choice among a few
// options (←/→ or space).
type entry struct {
	label   string
	input   textinput.Model
	options []string // a choice's options (nil: a text)
	pick    int      // the option chosen
	touched bool
}

func (e *entry) value() string {
	if e.options != nil {
		return e.options[e.pick]
	}
	return strings.TrimSpace(e.input.Value())
}

// textEntry is a text entry of the form, holding value.
func textEntry(c *common, label, placeholder, value string) entry {
	in := textinput.New()
	in.Prompt = ""
	in.Placeholder = placeholder
	in.CharLimit = 254
	in.SetWidth(min(max(c.width-30, 10), 40))
	in.SetStyles(c.th.inputStyles())
	in.SetValue(value)
	return entry{label: label, input: in}
}

// choiceEntry is a choice among options, the first chosen.
func choiceEntry(label string, options ...string) entry {
	return entry{label: label, options: options}
}

// verdicts is what a form's check says of its values, by entry: what a
// value means ("Maya Brooks (#1)"), and what is wrong with it.
type verdicts struct {
	said map[int]string
	errs map[int]error
}

// entryForm is a small form in a dialog: a few entries, checked together
// as they are typed (check, with the API's own rules); ctrl+s (or enter
// on the last entry) sends when nothing is wrong, esc closes it and sends
// nothing. It stays open while its request is sent: the page closes it
// on success (closeDialog) and hands it a refusal (refused), which shows
// by the entry it concerns, what was typed kept.
type entryForm struct {
	*common
	title   string
	notes   []string
	entries []entry
	fields  []string // the API's name of each entry: a refusal's field lands on it
	focus   int
	tried   bool // a send was asked: every problem shows
	sending bool // its request is on its way
	server  map[int]string
	check   func(values []string) verdicts
	submit  func(values []string) tea.Cmd
	noNote  string
}

// newEntryForm is a form of entries; fields are the API's names of the
// entries, in order.
func newEntryForm(c *common, title string, notes []string, entries []entry, fields []string, check func([]string) verdicts,
	submit func([]string) tea.Cmd, noNote string) *entryForm {
	f := &entryForm{common: c, title: title, notes: notes, entries: entries, fields: fields, check: check, submit: submit,
		noNote: noNote, server: map[int]string{}}
	f.focusOn(0)
	return f
}

func (f *entryForm) values() []string {
	out := make([]string, len(f.entries))
	for i := range f.entries {
		out[i] = f.entries[i].value()
	}
	return out
}

func (f *entryForm) focusOn(i int) {
	if e := &f.entries[f.focus]; e.options == nil {
		e.input.Blur()
	}
	f.focus = (i + len(f.entries)) % len(f.entries)
	if e := &f.entries[f.focus]; e.options == nil {
		e.input.Focus()
	}
}

func (f *entryForm) key(msg tea.KeyPressMsg) (tea.Cmd, bool) {
	k, e := f.keys, &f.entries[f.focus]
	switch {
	case f.sending: // esc closes it; the answer shows in the status line
		return nil, key.Matches(msg, k.Back)
	case key.Matches(msg, k.Back):
		f.setStatus(statusInfo, "%s", f.noNote)
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
func (f *entryForm) send() (tea.Cmd, bool) {
	f.tried = true
	values := f.values()
	v := f.check(values)
	for i := range f.entries {
		if v.errs[i] != nil {
			f.focusOn(i)
			f.setStatus(statusError, "%s is not right: fix it first. Nothing was sent.", f.entries[i].label)
			return nil, false
		}
	}
	cmd := f.submit(values)
	if cmd == nil { // nothing to send, or another dialog asks first
		return nil, true
	}
	f.sending = true
	clear(f.server)
	return cmd, false
}

// refused takes the server's refusal of what the form sent: each problem
// by the entry it names, the first focused; the form can be sent again.
func (f *entryForm) refused(err error) {
	f.sending = false
	first := -1
	for _, fe := range refusalFields(err) {
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

func (f *entryForm) body(helpKeys) string {
	th := f.th
	v := f.check(f.values())
	var b strings.Builder
	b.WriteString(f.title + "\n")
	if len(f.notes) > 0 {
		b.WriteString(f.dimLines(f.notes) + "\n")
	}
	for i := range f.entries {
		e := &f.entries[i]
		marker, label := "  ", th.label.Render(padRight(e.label, 18))
		if i == f.focus {
			marker, label = th.accent.Render("▸ "), th.accent.Render(padRight(e.label, 18))
		}
		b.WriteString("\n" + marker + label + f.entryView(e) + "\n" + strings.Repeat(" ", 20))
		switch err := v.errs[i]; {
		case f.server[i] != "":
			b.WriteString(f.saying(th.errText, "✗ "+f.server[i]+" (server)"))
		case err != nil && (e.touched || f.tried):
			b.WriteString(f.saying(th.errText, "✗ "+err.Error()))
		case err == nil && v.said[i] != "":
			b.WriteString(f.saying(th.okText, "✓ "+v.said[i]))
		}
	}
	if f.sending {
		b.WriteString("\n\n" + f.spin.View() + " Sending…   " + th.accent.Render("esc") + " close")
		return f.dialogBox(b.String())
	}
	b.WriteString("\n\n" + th.accent.Render("ctrl+s") + " save   " + th.accent.Render("tab") + " next   " +
		th.accent.Render("esc") + " cancel")
	return f.dialogBox(b.String())
}

// saying is what the check says of an entry, under its input: wrapped,
// each line styled.
func (f *entryForm) saying(st lipgloss.Style, text string) string {
	lines := wrapWords(text, max(f.dialogWidth()-20, 10))
	for i, l := range lines {
		lines[i] = st.Render(l)
	}
	return strings.Join(lines, "\n"+strings.Repeat(" ", 20))
}

// entryView is an entry's input, or its options with the chosen one in
// brackets.
func (f *entryForm) entryView(e *entry) string {
	if e.options == nil {
		return e.input.View()
	}
	var opts []string
	for i, o := range e.options {
		opts = append(opts, tabLabel(f.th, o, i == e.pick))
	}
	return strings.Join(opts, "")
}

func (f *entryForm) help(helpKeys) helpKeys {
	k := f.keys
	pick := key.NewBinding(key.WithKeys("left", "right", "space"), key.WithHelp("←/→", "choose"))
	pick.SetEnabled(f.entries[f.focus].options != nil)
	cancel := k.Back
	cancel.SetHelp("esc", "cancel")
	return helpKeys{
		short: []key.Binding{k.NextField, k.PrevField, pick, k.Save, cancel},
		full:  [][]key.Binding{{k.NextField, k.PrevField, pick, k.Save, cancel}},
	}
}
