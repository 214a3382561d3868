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

// The Automations screen (a from the list): the company's automations with
// their last run and run count; enter shows an automation's recent runs.

// recentRuns is how many runs the runs screen loads: the newest page.
const recentRuns = 100

// automationsModel is the state of the automations and runs screens.
type automationsModel struct {
	items  []*api.Automation
	loaded bool
	cursor int
	offset int

	of         *api.Automation // the automation whose runs are shown
	runs       []*api.AutomationRun
	runsTotal  int64
	runsLoaded bool
	runsOffset int
}

func (k keyMap) automationsHelp() helpKeys {
	open := k.Open
	open.SetHelp("enter", "runs")
	return helpKeys{
		short: []key.Binding{open, k.Up, k.Down, k.Refresh, k.Back, k.Help, k.Quit},
		full:  [][]key.Binding{{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom}, {open, k.Refresh}, {k.Help, k.Back, k.Quit}},
	}
}

func (k keyMap) runsHelp() helpKeys {
	return helpKeys{
		short: []key.Binding{k.Up, k.Down, k.Refresh, k.Back, k.Help, k.Quit},
		full:  [][]key.Binding{{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom}, {k.Refresh}, {k.Help, k.Back, k.Quit}},
	}
}

// openAutomations shows the automations screen and loads it.
func (m *Model) openAutomations() tea.Cmd {
	m.screen = screenAutomations
	return m.reloadAutomations()
}

func (m *Model) reloadAutomations() tea.Cmd {
	c := m.c
	return m.call(slotAutomations, func(ctx context.Context) (any, error) {
		return client.All(ctx, c.Automations, client.ListParams{})
	})
}

func (m *Model) openRuns(a *api.Automation) tea.Cmd {
	if a == nil {
		return nil
	}
	am := &m.autos
	am.of, am.runs, am.runsLoaded, am.runsOffset, am.runsTotal = a, nil, false, 0, 0
	m.screen = screenRuns
	return m.reloadRuns()
}

func (m *Model) reloadRuns() tea.Cmd {
	c, id := m.c, m.autos.of.ID
	return m.call(slotRuns, func(ctx context.Context) (any, error) {
		return c.AutomationRuns(ctx, id, client.ListParams{Limit: recentRuns})
	})
}

func (m *Model) automationsResult(msg resultMsg) tea.Cmd {
	am := &m.autos
	if msg.err != nil {
		m.setError(msg.err)
		return nil
	}
	switch msg.slot {
	case slotAutomations:
		am.items, am.loaded = msg.val.([]*api.Automation), true
		am.cursor = min(am.cursor, max(len(am.items)-1, 0))
		am.scroll(m.contentHeight() - 1)
	case slotRuns:
		p := msg.val.(*api.AutomationRunPage)
		am.runs, am.runsTotal, am.runsLoaded = p.Content, p.Page.TotalElements, true
	}
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

func (m *Model) automationsKey(msg tea.KeyPressMsg) tea.Cmd {
	k, am := m.keys, &m.autos
	rows := m.contentHeight() - 1
	switch {
	case key.Matches(msg, k.Back):
		m.screen = screenList
		m.forget(slotAutomations)
		return nil
	case key.Matches(msg, k.Refresh):
		return m.reloadAutomations()
	case key.Matches(msg, k.Open):
		return m.openRuns(am.selected())
	}
	if n, ok := m.step(msg, max(rows-1, 1)); ok {
		am.cursor = min(max(am.cursor+n, 0), max(len(am.items)-1, 0))
		am.scroll(rows)
	}
	return nil
}

func (m *Model) runsKey(msg tea.KeyPressMsg) tea.Cmd {
	k, am := m.keys, &m.autos
	rows := m.contentHeight() - 1
	switch {
	case key.Matches(msg, k.Back):
		m.screen = screenAutomations
		m.forget(slotRuns)
		return nil
	case key.Matches(msg, k.Refresh):
		return m.reloadRuns()
	}
	if n, ok := m.step(msg, max(rows-1, 1)); ok {
		am.runsOffset = min(max(am.runsOffset+n, 0), max(len(am.runs)-rows, 0))
	}
	return nil
}

var automationWidths = []int{5, 22, 8, 26, 5, 17}

func (m *Model) lastRun(t *time.Time) string {
	if t == nil {
		return "never"
	}
	return m.stamp(*t)
}

// triggerText is a trigger as the screens show it (escaped).
func triggerText(tr api.AutomationTrigger) string {
	if tr.Days != nil {
		return fmt.Sprintf("%s %dd", api.EscapeText(tr.Type), *tr.Days)
	}
	return api.EscapeText(tr.Type)
}

func (m *Model) automationsView() (top, sub, body string) {
	am, th := &m.autos, m.th
	count := ""
	if am.loaded {
		count = fmt.Sprintf("%d automations", len(am.items))
	}
	top = m.titleBar(th.title.Render("Automations"), m.spinnerView()+" "+count+" ")
	sub = th.dim.Render("enter shows an automation's runs · esc back to the trainees")
	switch {
	case !am.loaded:
		return top, sub, "\n  " + m.spin.View() + " Loading automations…"
	case len(am.items) == 0:
		return top, sub, "\n  " + th.dim.Render("No automations yet: traineectl automations create.")
	}
	var b strings.Builder
	b.WriteString(th.header.Render(cols(automationWidths, "ID", "NAME", "STATE", "TRIGGER", "RUNS", "LAST RUN", "ACTION")))
	rows := m.contentHeight() - 1
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
		line := cols(automationWidths, strconv.FormatInt(a.ID, 10), api.EscapeText(a.Name), state, triggerText(a.Trigger),
			strconv.FormatInt(a.RunCount, 10), m.lastRun(a.LastRunAt), api.EscapeText(action))
		b.WriteString("\n")
		if i == am.cursor {
			line = th.selected.Render(line)
		}
		b.WriteString(line)
	}
	return top, sub, b.String()
}

var runWidths = []int{7, 9, 17, 22, 10}

func (m *Model) runsView() (top, sub, body string) {
	am, th := &m.autos, m.th
	a := am.of
	count := ""
	if am.runsLoaded {
		count = fmt.Sprintf("%d of %d runs", len(am.runs), am.runsTotal)
	}
	top = m.titleBar(th.title.Render("Runs of "+api.EscapeText(a.Name))+th.dim.Render(fmt.Sprintf(" #%d", a.ID)), m.spinnerView()+" "+count+" ")
	sub = th.dim.Render(triggerText(a.Trigger) + " → " + api.EscapeText(a.ActionType) + " · newest first · esc back")
	switch {
	case !am.runsLoaded:
		return top, sub, "\n  " + m.spin.View() + " Loading runs…"
	case len(am.runs) == 0:
		return top, sub, "\n  " + th.dim.Render("It has not fired yet.")
	}
	var b strings.Builder
	b.WriteString(th.header.Render(cols(runWidths, "RUN", "TRAINEE", "FIRED", "OCCURRENCE", "OUTCOME", "ERROR")))
	rows := m.contentHeight() - 1
	for i := am.runsOffset; i < min(am.runsOffset+rows, len(am.runs)); i++ {
		r := am.runs[i]
		outcome := api.EscapeText(r.Outcome)
		switch r.Outcome {
		case api.OutcomeFailed:
			outcome = th.errText.Render(outcome)
		case api.OutcomeDelivered, api.OutcomeDisabled:
			outcome = th.okText.Render(outcome)
		}
		errText := "-"
		if r.Error != nil {
			errText = api.EscapeText(*r.Error)
		}
		b.WriteString("\n" + cols(runWidths, strconv.FormatInt(r.ID, 10), "#"+strconv.FormatInt(r.TraineeID, 10),
			m.stamp(r.FiredAt), api.EscapeText(r.Occurrence), outcome, errText))
	}
	return top, sub, b.String()
}
