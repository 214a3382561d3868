package tui

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/client"
)

// The automations page (a from the list): the company's automations with
// their last run and run count; enter shows an automation's recent runs
// (the runs page).

// automationsModel is the automations page.
type automationsModel struct {
	*common

	items  []*api.Automation
	loaded bool
	failed error // the automations could not be read
	cursor int
	offset int
}

func (k keyMap) automationsHelp() helpKeys {
	open := k.Open
	open.SetHelp("enter", "runs")
	return helpKeys{
		short: []key.Binding{open, k.Up, k.Down, k.Refresh, k.Back, k.Help, k.Quit},
		full:  [][]key.Binding{{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom}, {open, k.Refresh}, {k.Help, k.Back, k.Quit}},
	}
}

// reload reads the automations (not for a key limited to its trainer's
// trainees: the page says why).
func (am *automationsModel) reload() tea.Cmd {
	if am.limited() {
		return nil
	}
	c := am.c
	return am.call(slotAutomations, func(ctx context.Context) (any, error) {
		return client.All(ctx, c.Automations, client.ListParams{})
	})
}

// update takes the automations read.
func (am *automationsModel) update(msg tea.Msg) tea.Cmd {
	r, ok := am.answer(msg)
	if _, read := msg.(resultMsg); read {
		am.failed = r.err
	}
	if !ok {
		return nil
	}
	am.items, am.loaded = r.val.([]*api.Automation), true
	am.cursor = min(am.cursor, max(len(am.items)-1, 0))
	am.scroll(am.contentHeight() - 1)
	return nil
}

func (am *automationsModel) selected() *api.Automation {
	if am.cursor < 0 || am.cursor >= len(am.items) {
		return nil
	}
	return am.items[am.cursor]
}

// scroll keeps the cursor within rows visible rows.
func (am *automationsModel) scroll(rows int) {
	rows = max(rows, 1)
	if am.cursor < am.offset {
		am.offset = am.cursor
	}
	if am.cursor >= am.offset+rows {
		am.offset = am.cursor - rows + 1
	}
}

func (am *automationsModel) key(msg tea.KeyPressMsg) tea.Cmd {
	if cmd, ok := am.backOrReload(msg, screenList, am.reload, slotAutomations); ok {
		return cmd
	}
	if key.Matches(msg, am.keys.Open) {
		return am.nav.openRuns(am.selected())
	}
	rows := am.contentHeight() - 1
	if n, ok := am.step(msg, max(rows-1, 1)); ok {
		am.cursor = min(max(am.cursor+n, 0), max(len(am.items)-1, 0))
		am.scroll(rows)
	}
	return nil
}

func (am *automationsModel) help() helpKeys { return am.keys.automationsHelp() }

func (am *automationsModel) takesKeys() bool { return false }

func (am *automationsModel) shows() (*api.Trainee, int) { return nil, 0 }

// automationCols fit 80 columns with every column shown (the name,
// the trigger and the action cut with "…").
var automationCols = []colSpec{col("ID", 3, 5, 0), col("NAME", 10, 22, 0), col("STATE", 8, 8, 0), col("TRIGGER", 10, 26, 0),
	col("RUNS", 4, 5, 0), col("LAST RUN", 16, 16, 1), col("ACTION", 8, 0, 0)}

func (am *automationsModel) lastRun(t *time.Time) string {
	if t == nil {
		return "never"
	}
	return am.stamp(*t)
}

// triggerText is a trigger as the pages show it (escaped).
func triggerText(tr api.AutomationTrigger) string {
	if tr.Days != nil {
		return fmt.Sprintf("%s %dd", api.EscapeText(tr.Type), *tr.Days)
	}
	return api.EscapeText(tr.Type)
}

func (am *automationsModel) view() (top, sub, body string) {
	th := am.th
	count := ""
	if am.loaded {
		count = plural(len(am.items), "automation")
	}
	top = am.topBar(th.title.Render("Automations"), am.spinnerView()+" "+count+" ")
	sub = th.dim.Render("enter shows an automation's runs · esc back to the trainees")
	if body, ok := am.unreadBody(am.failed, "automations"); ok && !am.loaded && !am.loading(slotAutomations) {
		return top, th.dim.Render("esc goes back"), body
	}
	if body, ok := am.emptyBody(am.loaded, len(am.items), "automations", "No automations yet: traineectl automations create."); ok {
		return top, sub, body
	}
	var b strings.Builder
	t := fitCols(am.width, automationCols)
	b.WriteString(th.header.Render(t.header()))
	rows := am.contentHeight() - 1
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
		line := t.row(strconv.FormatInt(a.ID, 10), api.EscapeText(a.Name), state, triggerText(a.Trigger),
			strconv.FormatInt(a.RunCount, 10), am.lastRun(a.LastRunAt), api.EscapeText(action))
		b.WriteString("\n")
		if i == am.cursor {
			line = th.selected.Render(line)
		}
		b.WriteString(line)
	}
	return top, sub, b.String()
}
