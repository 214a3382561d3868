package tui

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/tui/components/keymap"
	"github.com/traineed/traineed/tui/components/requests"
	"github.com/traineed/traineed/tui/components/statusline"
	"github.com/traineed/traineed/tui/internal/common"
	"github.com/traineed/traineed/tui/pages/home"
	"github.com/traineed/traineed/tui/pages/list"
)

// The command line (k9s's model): `:` on any page that does not take
// every key opens a prompt in place of the help line; a command names a
// screen or an action, tab completes it (and its argument: a status, a
// trainer), enter runs it, esc closes the prompt. Every command is in
// docs/tui.md.

// command is one command of the : line.
type command struct {
	name string
	arg  string // the argument's name in the help; "" for none
	desc string
	run  func(m *Model, arg string) tea.Cmd
	// args are the completions of the argument.
	args func(m *Model) []string
}

// commands are the : line's commands, in the order tab lists them.
func commands() []command {
	status := func(m *Model) []string { return list.Statuses }
	return []command{
		{"home", "", "the dashboard", func(m *Model, _ string) tea.Cmd { return m.OpenHome() }, nil},
		{"list", "status", "the trainees (live, active, expired, deleted, all)", cmdList, status},
		{"expiring", "days", "active trainees expiring within 7 (or N) days", cmdCount(1, 2), nil},
		{"inactive", "", "trainees with no data for 14+ days", cmdCount(4, 0), nil},
		{"new", "", "trainees created this week", cmdCount(5, 0), nil},
		{"search", "text", "the trainees whose name, e-mail or phone has text", cmdSearch, nil},
		{"open", "id", "the trainee of an id", cmdOpen, nil},
		{"create", "", "a new trainee (the form)", func(m *Model, _ string) tea.Cmd { return m.cmdCreate() }, nil},
		{"webhooks", "", "the webhooks and their deliveries", func(m *Model, _ string) tea.Cmd { return m.OpenWebhooks() }, nil},
		{"automations", "", "the automations and their runs", func(m *Model, _ string) tea.Cmd { return m.OpenAutomations() }, nil},
		{"settings", "", "the company's keys, trainers and time zone (admin keys)", func(m *Model, _ string) tea.Cmd { return m.OpenSettings() }, nil},
		{"live", "", "turn live updates on or off", func(m *Model, _ string) tea.Cmd { return m.toggleLive() }, nil},
		{"mine", "", "my trainees or all of the company's (a key bound to a trainer)", func(m *Model, _ string) tea.Cmd { return m.ToggleMine() }, nil},
		{"mark-all", "", "mark every trainee of the list's view", func(m *Model, _ string) tea.Cmd { return m.cmdOnList(m.list.MarkEvery) }, nil},
		{"extend", "days", "marked: extend the expiration by N days (30 or 30d)", cmdBulk(bulkExtend), nil},
		{"expire-on", "date", "marked: set the expiration date (dd-MM-yyyy)", cmdBulk(bulkExpireOn), nil},
		{"trainer", "name", "marked: set the trainer", cmdBulk(bulkTrainer), func(m *Model) []string { return m.trainerNames() }},
		{"disable", "", "marked: disable (soft-delete)", cmdBulk(bulkDisable), nil},
		{"enable", "", "marked: enable (restore)", cmdBulk(bulkEnable), nil},
		{"delete", "", "marked: delete (soft-delete)", cmdBulk(bulkDelete), nil},
		{"restore", "", "marked: restore", cmdBulk(bulkRestore), nil},
		{"unmark", "", "drop every mark", func(m *Model, _ string) tea.Cmd { m.list.Unmark(); return nil }, nil},
		{"help", "", "the keys of the screen", func(m *Model, _ string) tea.Cmd { m.modal = &keysModal{Common: m.Common, hv: &m.help}; return nil }, nil},
		{"quit", "", "leave traineectl tui", func(*Model, string) tea.Cmd { return tea.Quit }, nil},
	}
}

func cmdList(m *Model, arg string) tea.Cmd {
	status := api.StatusLive
	if arg != "" {
		i := slices.IndexFunc(list.Statuses, func(s string) bool { return strings.HasPrefix(s, strings.ToLower(arg)) })
		if i < 0 {
			m.SetStatus(statusline.StatusError, "list takes one of %s.", strings.Join(list.Statuses, ", "))
			return nil
		}
		status = list.Statuses[i]
	}
	return m.OpenList(status, common.ListFilter{})
}

// cmdCount opens the list of a dashboard count (homeRows[i]); alt is the
// row used when the argument says 30 days (0: none).
func cmdCount(i, alt int) func(m *Model, arg string) tea.Cmd {
	return func(m *Model, arg string) tea.Cmd {
		r := home.HomeRows[i]
		if arg != "" && alt > 0 {
			if strings.TrimSuffix(arg, "d") == "30" {
				r = home.HomeRows[alt]
			} else if strings.TrimSuffix(arg, "d") != "7" {
				m.SetStatus(statusline.StatusError, "expiring takes 7 or 30 (days).")
				return nil
			}
		}
		f := common.ListFilter{}
		if r.Filter != nil {
			f = r.Filter(m.Today())
		}
		return m.OpenList(r.Status, f)
	}
}

func cmdSearch(m *Model, arg string) tea.Cmd {
	cmd := m.OpenList(api.StatusLive, common.ListFilter{})
	m.list.Query = arg
	m.list.Input.SetValue(arg)
	return tea.Batch(cmd, m.list.Reload(false))
}

func cmdOpen(m *Model, arg string) tea.Cmd {
	id, err := strconv.ParseInt(strings.TrimPrefix(arg, "#"), 10, 64)
	if err != nil || id <= 0 {
		m.SetStatus(statusline.StatusError, "open takes a trainee's id: open 42.")
		return nil
	}
	// The trainee is read first: an id that names no trainee leaves the
	// screen as it is and says so in the status line.
	c := m.C
	return m.Call(requests.SlotOpen, func(ctx context.Context) (any, error) { return c.Trainee(ctx, id) })
}

func (m *Model) cmdCreate() tea.Cmd {
	if m.ReadOnlyRefusal("creating trainees") {
		return nil
	}
	back := m.screen
	if back == common.ScreenForm {
		back = common.ScreenList
	}
	return m.OpenForm(nil, back)
}

// cmdOnList shows the list and runs fn there.
func (m *Model) cmdOnList(fn func() tea.Cmd) tea.Cmd {
	m.screen = common.ScreenList
	return fn()
}

// trainerNames are the company's trainers' names, for completion.
func (m *Model) trainerNames() []string {
	var out []string
	for _, t := range m.TrainerList {
		out = append(out, t.Name)
	}
	return out
}

// bulkCommands are the commands of the marked trainees (x lists them).
var bulkCommands = []string{"extend", "expire-on", "trainer", "disable", "enable", "delete", "restore", "unmark"}

// OpenActions opens the : line with the bulk actions listed.
func (m *Model) OpenActions() {
	cl := newCommandLine(m)
	cl.only = bulkCommands
	cl.hints = cl.completions()
	m.modal = cl
}

// runCommand runs one line of the : prompt (or Options.Start): a command
// named in full or by a start only it has, and its argument.
func (m *Model) runCommand(line string) tea.Cmd {
	name, arg, _ := strings.Cut(strings.TrimSpace(line), " ")
	arg = strings.TrimSpace(arg)
	if name == "" {
		return nil
	}
	var found []command
	for _, c := range commands() {
		if c.name == name {
			found = []command{c}
			break
		}
		if strings.HasPrefix(c.name, name) {
			found = append(found, c)
		}
	}
	switch len(found) {
	case 0:
		m.SetStatus(statusline.StatusError, "No command %s: : then tab lists them.", name)
		return nil
	case 1:
		return found[0].run(m, arg)
	}
	var names []string
	for _, c := range found {
		names = append(names, c.name)
	}
	m.SetStatus(statusline.StatusError, "%s could be %s.", name, strings.Join(names, ", "))
	return nil
}

// commandLine is the : prompt: a modal that leaves the page's body on
// screen and takes the help line's place.
type commandLine struct {
	m     *Model
	input textinput.Model
	hints []string // what tab would complete to
	only  []string // the commands offered (nil: every one)
}

func newCommandLine(m *Model) *commandLine {
	in := textinput.New()
	in.Prompt = ":"
	in.CharLimit = 200
	in.SetWidth(max(m.Width-4, 10))
	in.SetStyles(m.Th.InputStyles())
	in.Focus()
	cl := &commandLine{m: m, input: in}
	cl.hints = cl.completions()
	return cl
}

// completions are the commands, or the arguments, the line could become.
func (cl *commandLine) completions() []string {
	v := cl.input.Value()
	name, arg, spaced := strings.Cut(v, " ")
	var out []string
	for _, c := range commands() {
		if cl.only != nil && !slices.Contains(cl.only, c.name) {
			continue
		}
		switch {
		case !spaced && strings.HasPrefix(c.name, name):
			out = append(out, c.name)
		case spaced && c.name == name && c.args != nil:
			for _, a := range c.args(cl.m) {
				if strings.HasPrefix(strings.ToLower(a), strings.ToLower(strings.TrimLeft(arg, " "))) {
					out = append(out, c.name+" "+a)
				}
			}
		}
	}
	return out
}

// complete extends the line to what every completion starts with (the
// one completion and a space when there is one).
func (cl *commandLine) complete() {
	h := cl.hints
	if len(h) == 0 {
		return
	}
	common := h[0]
	for _, s := range h[1:] {
		for !strings.HasPrefix(s, common) {
			common = common[:len(common)-1]
		}
	}
	if len(h) == 1 && !strings.Contains(common, " ") {
		common += " "
	}
	if len(common) > len(cl.input.Value()) {
		cl.input.SetValue(common)
		cl.input.CursorEnd()
	}
}

func (cl *commandLine) Key(msg tea.KeyPressMsg) (tea.Cmd, bool) {
	k := cl.m.Keys
	switch {
	case key.Matches(msg, k.Back):
		return nil, true
	case msg.String() == "enter":
		return cl.m.runCommand(cl.input.Value()), true
	case msg.String() == "tab":
		cl.complete()
	default:
		var cmd tea.Cmd
		cl.input, cmd = cl.input.Update(msg)
		cl.hints = cl.completions()
		return cmd, false
	}
	cl.hints = cl.completions()
	return nil, false
}

// Body is the page's: the prompt is in the help line.
func (cl *commandLine) Body(keymap.HelpKeys) string {
	_, _, body := cl.m.page().View()
	return body
}

func (cl *commandLine) Help(keymap.HelpKeys) keymap.HelpKeys { return cl.m.Keys.CommandHelp() }

// line is the prompt and, after it, what tab completes to: as many
// completions as fit the width w, then how many more there are.
func (cl *commandLine) line(w int) string {
	v := cl.input.Value()
	s := cl.input.View()
	// The input pads itself to its width: the hints follow the text
	// (and the cursor after it).
	used := ansi.StringWidth(strings.TrimRight(ansi.Strip(s), " ")) + 1
	s = ansi.Truncate(s, used, "")
	if len(cl.hints) == 0 || len(cl.hints) == 1 && cl.hints[0] == strings.TrimSpace(v) {
		if c, ok := cl.named(); ok {
			s += "  " + cl.m.Th.Dim.Render(describeCommand(c))
		}
		return s
	}
	room := w - ansi.StringWidth(s) - 2
	var shown []string
	for i, h := range cl.hints {
		more := ""
		if rest := len(cl.hints) - i - 1; rest > 0 {
			more = fmt.Sprintf(" +%d", rest)
		}
		if ansi.StringWidth(strings.Join(append(shown, h), " ")+more) > room {
			shown = append(shown, fmt.Sprintf("+%d", len(cl.hints)-i))
			break
		}
		shown = append(shown, h)
	}
	return s + "  " + cl.m.Th.Dim.Render(strings.Join(shown, " "))
}

// named is the command the line names, in full or by a start only it
// has.
func (cl *commandLine) named() (command, bool) {
	name, _, _ := strings.Cut(strings.TrimSpace(cl.input.Value()), " ")
	var found []command
	for _, c := range commands() {
		if c.name == name {
			return c, true
		}
		if name != "" && strings.HasPrefix(c.name, name) {
			found = append(found, c)
		}
	}
	if len(found) == 1 {
		return found[0], true
	}
	return command{}, false
}

// describeCommand is the help of one command, for the completions.
func describeCommand(c command) string {
	if c.arg != "" {
		return c.name + " " + strings.ToUpper(c.arg) + ": " + c.desc
	}
	return c.name + ": " + c.desc
}
