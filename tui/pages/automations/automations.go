package automations

import (
	"context"
	"strconv"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/client"
	"github.com/traineed/traineed/tui/components/keymap"
	"github.com/traineed/traineed/tui/components/layout"
	"github.com/traineed/traineed/tui/components/requests"
	"github.com/traineed/traineed/tui/components/table"
	"github.com/traineed/traineed/tui/internal/common"
)

// The automations page (a from the list): the company's automations with
// their last run and run count; enter shows an automation's recent runs
// (the runs page).

// automationsModel is the automations page.
type Model struct {
	*common.Common

	items  []*api.Automation
	loaded bool
	failed error // the automations could not be read
	cursor int
	offset int
}

// Reload reads the automations (not for a key limited to its trainer's
// trainees: the page says why).
func (am *Model) Reload() tea.Cmd {
	if am.Limited() {
		return nil
	}
	c := am.C
	return am.Call(requests.SlotAutomations, func(ctx context.Context) (any, error) {
		return client.Collect(c.ListAutomations(ctx, client.ListParams{}))
	})
}

// Update takes the automations read.
func (am *Model) Update(msg tea.Msg) tea.Cmd {
	r, ok := am.Answer(msg)
	if _, read := msg.(requests.ResultMsg); read {
		am.failed = r.Err
	}
	if !ok {
		return nil
	}
	am.items, am.loaded = r.Val.([]*api.Automation), true
	am.cursor = min(am.cursor, max(len(am.items)-1, 0))
	am.scroll(am.ContentHeight() - 1)
	return nil
}

func (am *Model) selected() *api.Automation {
	if am.cursor < 0 || am.cursor >= len(am.items) {
		return nil
	}
	return am.items[am.cursor]
}

// scroll keeps the cursor within rows visible rows.
func (am *Model) scroll(rows int) {
	rows = max(rows, 1)
	if am.cursor < am.offset {
		am.offset = am.cursor
	}
	if am.cursor >= am.offset+rows {
		am.offset = am.cursor - rows + 1
	}
}

func (am *Model) Key(msg tea.KeyPressMsg) tea.Cmd {
	if cmd, ok := am.BackOrReload(msg, common.ScreenList, am.Reload, requests.SlotAutomations); ok {
		return cmd
	}
	if key.Matches(msg, am.Keys.Open) {
		return am.Nav.OpenRuns(am.selected())
	}
	rows := am.ContentHeight() - 1
	if n, ok := am.Step(msg, max(rows-1, 1)); ok {
		am.cursor = min(max(am.cursor+n, 0), max(len(am.items)-1, 0))
		am.scroll(rows)
	}
	return nil
}

func (am *Model) Help() keymap.HelpKeys { return am.Keys.AutomationsHelp() }

func (am *Model) TakesKeys() bool { return false }

func (am *Model) Shows() (*api.Trainee, int) { return nil, 0 }

// automationCols fit 80 columns with every column shown (the name,
// the trigger and the action cut with "…").
var automationCols = []table.ColSpec{table.Col("ID", 3, 5, 0), table.Col("NAME", 10, 22, 0), table.Col("STATE", 8, 8, 0), table.Col("TRIGGER", 10, 26, 0),
	table.Col("RUNS", 4, 5, 0), table.Col("LAST RUN", 16, 16, 1), table.Col("ACTION", 8, 0, 0)}

func (am *Model) lastRun(t *time.Time) string {
	if t == nil {
		return "never"
	}
	return am.Stamp(*t)
}

func (am *Model) View() (top, sub, body string) {
	th := am.Th
	count := ""
	if am.loaded {
		count = layout.Plural(len(am.items), "automation")
	}
	top = am.TopBar(th.Title.Render("Automations"), am.SpinnerView()+" "+count+" ")
	sub = th.Dim.Render("enter shows an automation's runs · esc back to the trainees")
	if body, ok := am.UnreadBody(am.failed, "automations"); ok && !am.loaded && !am.Loading(requests.SlotAutomations) {
		return top, th.Dim.Render("esc goes back"), body
	}
	if body, ok := am.EmptyBody(am.loaded, len(am.items), "automations", "No automations yet: traineectl automations create."); ok {
		return top, sub, body
	}
	var b strings.Builder
	t := table.FitCols(am.Width, automationCols)
	b.WriteString(th.Header.Render(t.Header()))
	rows := am.ContentHeight() - 1
	for i := am.offset; i < min(am.offset+rows, len(am.items)); i++ {
		a := am.items[i]
		state := "enabled"
		if !a.Enabled {
			state = "disabled"
		}
		action := a.ActionType
		if a.Action.URL != nil {
			action += " " + *a.Action.URL
		}
		line := t.Row(strconv.FormatInt(a.ID, 10), api.EscapeText(a.Name), state, common.TriggerText(a.Trigger),
			strconv.FormatInt(a.RunCount, 10), am.lastRun(a.LastRunAt), api.EscapeText(action))
		b.WriteString("\n")
		if i == am.cursor {
			line = th.Selected.Render(line)
		}
		b.WriteString(line)
	}
	return top, sub, b.String()
}
