package dialog

import (
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"github.com/traineed/traineed/tui/components/keymap"
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

// TypedQuestion is a question answered by typing a word (a key's name)
// and enter: for what cannot be undone and concerns the TUI itself. What
// is typed is compared trimmed and in any case (strings.EqualFold), as
// traineectl keys revoke compares it.
type TypedQuestion struct {
	*common.Common
	text   string
	notes  []string
	want   string // what must be typed
	input  textinput.Model
	onYes  func() tea.Cmd
	noNote string
}

func NewTypedQuestion(c *common.Common, text string, notes []string, want string, onYes func() tea.Cmd, noNote string) *TypedQuestion {
	in := textinput.New()
	in.Prompt = "> "
	in.CharLimit = 200
	in.SetWidth(min(max(c.Width-16, 10), 40))
	in.SetStyles(c.Th.InputStyles())
	in.Focus()
	return &TypedQuestion{Common: c, text: text, notes: notes, want: want, input: in, onYes: onYes, noNote: noNote}
}

func (q *TypedQuestion) Key(msg tea.KeyPressMsg) (tea.Cmd, bool) {
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

func (q *TypedQuestion) Body(keymap.HelpKeys) string {
	text := q.WrapDialog(q.text, 0) + "\n\n" + q.DimLines(q.notes) + "\n\n" + q.input.View() + "\n\n" +
		q.Th.Accent.Render("enter") + " confirm   " + q.Th.Accent.Render("esc") + " keep"
	return q.DialogBox(text)
}

func (q *TypedQuestion) Help(keymap.HelpKeys) keymap.HelpKeys {
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
