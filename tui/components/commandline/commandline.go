// Package commandline is the : line (k9s's model): `:` on any page that
// does not take every key opens a prompt in place of the help line; a
// command names a screen or an action, tab completes it (and its
// argument: a status, a trainer), enter runs it, esc closes the prompt.
// The commands are the root's (every one is in docs/tui.md); the line
// only lists, completes and runs them.
package commandline

import (
	"fmt"
	"slices"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/traineed/traineed/tui/components/keymap"
	"github.com/traineed/traineed/tui/components/statusline"
	"github.com/traineed/traineed/tui/internal/common"
)

// Command is one command of the : line.
type Command struct {
	Name string
	Arg  string // the argument's name in the help; "" for none
	Desc string
	Run  func(arg string) tea.Cmd
	// Args are the completions of the argument (nil: none).
	Args func() []string
}

// Describe is the help of one command, for the completions.
func Describe(c Command) string {
	if c.Arg != "" {
		return c.Name + " " + strings.ToUpper(c.Arg) + ": " + c.Desc
	}
	return c.Name + ": " + c.Desc
}

// find is the commands name could mean: the one named in full, else every
// one it starts.
func find(cmds []Command, name string) []Command {
	var found []Command
	for _, c := range cmds {
		if c.Name == name {
			return []Command{c}
		}
		if strings.HasPrefix(c.Name, name) {
			found = append(found, c)
		}
	}
	return found
}

// Run runs one line of the : prompt (or Options.Start): a command named
// in full or by a start only it has, and its argument. What it cannot
// run goes to c's status line.
func Run(c *common.Common, cmds []Command, line string) tea.Cmd {
	name, arg, _ := strings.Cut(strings.TrimSpace(line), " ")
	arg = strings.TrimSpace(arg)
	if name == "" {
		return nil
	}
	found := find(cmds, name)
	switch len(found) {
	case 0:
		c.SetStatus(statusline.StatusError, "No command %s: : then tab lists them.", name)
		return nil
	case 1:
		return found[0].Run(arg)
	}
	var names []string
	for _, f := range found {
		names = append(names, f.Name)
	}
	c.SetStatus(statusline.StatusError, "%s could be %s.", name, strings.Join(names, ", "))
	return nil
}

// Line is the : prompt: a modal that leaves the page's body on screen
// and takes the help line's place (View).
type Line struct {
	c        *common.Common
	commands func() []Command
	body     func() string // the page's body, under the prompt
	input    textinput.Model
	hints    []string // what tab would complete to
	only     []string // the commands offered (nil: every one)
}

// New opens the line over commands; body is the page's body. only, when
// given, limits the commands offered (the bulk actions) and lists them at
// once.
func New(c *common.Common, commands func() []Command, body func() string, only ...string) *Line {
	in := textinput.New()
	in.Prompt = ":"
	in.CharLimit = 200
	in.SetWidth(max(c.Width-4, 10))
	in.SetStyles(c.Th.InputStyles())
	in.Focus()
	l := &Line{c: c, commands: commands, body: body, input: in, only: only}
	l.hints = l.completions()
	return l
}

// completions are the commands, or the arguments, the line could become.
func (l *Line) completions() []string {
	v := l.input.Value()
	name, arg, spaced := strings.Cut(v, " ")
	var out []string
	for _, c := range l.commands() {
		if l.only != nil && !slices.Contains(l.only, c.Name) {
			continue
		}
		switch {
		case !spaced && strings.HasPrefix(c.Name, name):
			out = append(out, c.Name)
		case spaced && c.Name == name && c.Args != nil:
			for _, a := range c.Args() {
				if strings.HasPrefix(strings.ToLower(a), strings.ToLower(strings.TrimLeft(arg, " "))) {
					out = append(out, c.Name+" "+a)
				}
			}
		}
	}
	return out
}

// complete extends the line to what every completion starts with (the
// one completion and a space when there is one).
func (l *Line) complete() {
	h := l.hints
	if len(h) == 0 {
		return
	}
	prefix := h[0]
	for _, s := range h[1:] {
		for !strings.HasPrefix(s, prefix) {
			prefix = prefix[:len(prefix)-1]
		}
	}
	if len(h) == 1 && !strings.Contains(prefix, " ") {
		prefix += " "
	}
	if len(prefix) > len(l.input.Value()) {
		l.input.SetValue(prefix)
		l.input.CursorEnd()
	}
}

// Key handles a key: esc closes, enter runs the line, tab completes,
// anything else is typed.
func (l *Line) Key(msg tea.KeyPressMsg) (tea.Cmd, bool) {
	switch {
	case key.Matches(msg, l.c.Keys.Back):
		return nil, true
	case msg.String() == "enter":
		return Run(l.c, l.commands(), l.input.Value()), true
	case msg.String() == "tab":
		l.complete()
	default:
		var cmd tea.Cmd
		l.input, cmd = l.input.Update(msg)
		l.hints = l.completions()
		return cmd, false
	}
	l.hints = l.completions()
	return nil, false
}

// Body is the page's: the prompt is in the help line.
func (l *Line) Body(keymap.HelpKeys) string { return l.body() }

// Help is the line's key map.
func (l *Line) Help(keymap.HelpKeys) keymap.HelpKeys { return l.c.Keys.CommandHelp() }

// View is the prompt and, after it, what tab completes to: as many
// completions as fit the width w, then how many more there are.
func (l *Line) View(w int) string {
	v := l.input.Value()
	s := l.input.View()
	// The input pads itself to its width: the hints follow the text
	// (and the cursor after it).
	used := ansi.StringWidth(strings.TrimRight(ansi.Strip(s), " ")) + 1
	s = ansi.Truncate(s, used, "")
	if len(l.hints) == 0 || len(l.hints) == 1 && l.hints[0] == strings.TrimSpace(v) {
		if c, ok := l.named(); ok {
			s += "  " + l.c.Th.Dim.Render(Describe(c))
		}
		return s
	}
	room := w - ansi.StringWidth(s) - 2
	var shown []string
	for i, h := range l.hints {
		more := ""
		if rest := len(l.hints) - i - 1; rest > 0 {
			more = fmt.Sprintf(" +%d", rest)
		}
		if ansi.StringWidth(strings.Join(append(shown, h), " ")+more) > room {
			shown = append(shown, fmt.Sprintf("+%d", len(l.hints)-i))
			break
		}
		shown = append(shown, h)
	}
	return s + "  " + l.c.Th.Dim.Render(strings.Join(shown, " "))
}

// named is the command the line names, in full or by a start only it
// has.
func (l *Line) named() (Command, bool) {
	name, _, _ := strings.Cut(strings.TrimSpace(l.input.Value()), " ")
	if name == "" {
		return Command{}, false
	}
	if found := find(l.commands(), name); len(found) == 1 {
		return found[0], true
	}
	return Command{}, false
}
