package tui

import (
	"context"
	"slices"
	"strconv"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/tui/components/commandline"
	"github.com/traineed/traineed/tui/components/dialog"
	"github.com/traineed/traineed/tui/components/requests"
	"github.com/traineed/traineed/tui/components/statusline"
	"github.com/traineed/traineed/tui/internal/common"
	"github.com/traineed/traineed/tui/pages/home"
	"github.com/traineed/traineed/tui/pages/list"
)

// The commands of the : line (components/commandline), bound to the root
// model. Every command is in docs/tui.md.

// commands are the : line's commands, in the order tab lists them.
func (m *Model) commands() []commandline.Command {
	on := func(f func(m *Model, arg string) tea.Cmd) func(string) tea.Cmd {
		return func(arg string) tea.Cmd { return f(m, arg) }
	}
	to := func(f func() tea.Cmd) func(string) tea.Cmd { return func(string) tea.Cmd { return f() } }
	status := func() []string { return list.Statuses }
	return []commandline.Command{
		{Name: "home", Desc: "the dashboard", Run: to(m.OpenHome)},
		{Name: "list", Arg: "status", Desc: "the trainees (live, active, expired, deleted, all)", Run: on(cmdList), Args: status},
		{Name: "expiring", Arg: "days", Desc: "active trainees expiring within 7 (or N) days", Run: on(cmdCount(1, 2))},
		{Name: "inactive", Desc: "trainees inactive for 14+ days", Run: on(cmdCount(4, 0))},
		{Name: "new", Desc: "trainees created this week", Run: on(cmdCount(5, 0))},
		{Name: "search", Arg: "text", Desc: "the trainees whose name, e-mail or phone has text", Run: on(cmdSearch)},
		{Name: "open", Arg: "id", Desc: "the trainee of an id", Run: on(cmdOpen)},
		{Name: "create", Desc: "a new trainee (the form)", Run: to(m.cmdCreate)},
		{Name: "webhooks", Desc: "the webhooks and their deliveries", Run: to(m.OpenWebhooks)},
		{Name: "automations", Desc: "the automations and their runs", Run: to(m.OpenAutomations)},
		{Name: "settings", Desc: "the company's keys, trainers and time zone (admin keys)", Run: to(m.OpenSettings)},
		{Name: "live", Desc: "turn live updates on or off", Run: to(m.toggleLive)},
		{Name: "mine", Desc: "my trainees or all of the company's (a key bound to a trainer)", Run: to(m.ToggleMine)},
		{Name: "mark-all", Desc: "mark every trainee of the list's view", Run: to(func() tea.Cmd { return m.cmdOnList(m.list.MarkEvery) })},
		{Name: "extend", Arg: "length", Desc: "marked: extend the expiration by 30d, 6w, 3m or 1y", Run: on(cmdBulk(bulkExtend))},
		{Name: "expire-on", Arg: "date", Desc: "marked: set the expiration date (dd-MM-yyyy)", Run: on(cmdBulk(bulkExpireOn))},
		{Name: "trainer", Arg: "name", Desc: "marked: set the trainer", Run: on(cmdBulk(bulkTrainer)), Args: m.trainerNames},
		{Name: "disable", Desc: "marked: disable (soft-delete)", Run: on(cmdBulk(bulkDisable))},
		{Name: "enable", Desc: "marked: enable (restore)", Run: on(cmdBulk(bulkEnable))},
		{Name: "delete", Desc: "marked: delete (soft-delete)", Run: on(cmdBulk(bulkDelete))},
		{Name: "restore", Desc: "marked: restore", Run: on(cmdBulk(bulkRestore))},
		{Name: "unmark", Desc: "drop every mark", Run: to(func() tea.Cmd { m.list.Unmark(); return nil })},
		{Name: "help", Desc: "the keys of the screen", Run: to(func() tea.Cmd { m.modal = dialog.NewKeys(m.Common, &m.help); return nil })},
		{Name: "quit", Desc: "leave traineectl tui", Run: to(func() tea.Cmd { return tea.Quit })},
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
		r := home.Rows[i]
		if arg != "" && alt > 0 {
			if strings.TrimSuffix(arg, "d") == "30" {
				r = home.Rows[alt]
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
func (m *Model) OpenActions() { m.modal = m.commandLine(bulkCommands...) }

// commandLine opens the : line over the page on screen (only: the
// commands it offers; none: every one).
func (m *Model) commandLine(only ...string) *commandline.Line {
	body := func() string { _, _, b := m.page().View(); return b }
	return commandline.New(m.Common, m.commands, body, only...)
}

// runCommand runs one line of the : prompt (or Options.Start).
func (m *Model) runCommand(line string) tea.Cmd { return commandline.Run(m.Common, m.commands(), line) }
