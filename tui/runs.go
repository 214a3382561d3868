package tui

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/client"
)

// The runs page (enter on an automation): the automation's most recent
// runs, newest first.

// recentRuns is how many runs the runs page loads: the newest page.
const recentRuns = 100

// runsModel is the runs page.
type runsModel struct {
	*common

	of     *api.Automation // the automation whose runs are shown
	runs   []*api.AutomationRun
	total  int64
	loaded bool
	offset int
}

func (k keyMap) runsHelp() helpKeys {
	return helpKeys{
		short: []key.Binding{k.Up, k.Down, k.Refresh, k.Back, k.Help, k.Quit},
		full:  [][]key.Binding{{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom}, {k.Refresh}, {k.Help, k.Back, k.Quit}},
	}
}

// open shows a's runs, read anew.
func (rm *runsModel) open(a *api.Automation) tea.Cmd {
	rm.of, rm.runs, rm.loaded, rm.offset, rm.total = a, nil, false, 0, 0
	return rm.reload()
}

func (rm *runsModel) reload() tea.Cmd {
	c, id := rm.c, rm.of.ID
	return rm.call(slotRuns, func(ctx context.Context) (any, error) {
		return c.AutomationRuns(ctx, id, client.ListParams{Limit: recentRuns})
	})
}

// update takes the runs read.
func (rm *runsModel) update(msg tea.Msg) tea.Cmd {
	r, ok := rm.answer(msg)
	if !ok {
		return nil
	}
	p := r.val.(*api.AutomationRunPage)
	rm.runs, rm.total, rm.loaded = p.Content, p.Page.TotalElements, true
	return nil
}

func (rm *runsModel) key(msg tea.KeyPressMsg) tea.Cmd {
	if cmd, ok := rm.backOrReload(msg, screenAutomations, rm.reload, slotRuns); ok {
		return cmd
	}
	rows := rm.contentHeight() - 1
	if n, ok := rm.step(msg, max(rows-1, 1)); ok {
		rm.offset = min(max(rm.offset+n, 0), max(len(rm.runs)-rows, 0))
	}
	return nil
}

func (rm *runsModel) help() helpKeys { return rm.keys.runsHelp() }

func (rm *runsModel) takesKeys() bool { return false }

func (rm *runsModel) shows() (*api.Trainee, int) { return nil, 0 }

var runWidths = []int{7, 9, 17, 22, 10}

func (rm *runsModel) view() (top, sub, body string) {
	th, a := rm.th, rm.of
	count := ""
	if rm.loaded {
		count = fmt.Sprintf("%d of %d runs", len(rm.runs), rm.total)
	}
	top = rm.titleBar(th.title.Render("Runs of "+api.EscapeText(a.Name))+th.dim.Render(fmt.Sprintf(" #%d", a.ID)), rm.spinnerView()+" "+count+" ")
	sub = th.dim.Render(triggerText(a.Trigger) + " → " + api.EscapeText(a.ActionType) + " · newest first · esc back")
	if body, ok := rm.emptyBody(rm.loaded, len(rm.runs), "runs", "It has not fired yet."); ok {
		return top, sub, body
	}
	var b strings.Builder
	b.WriteString(th.header.Render(cols(runWidths, "RUN", "TRAINEE", "FIRED", "OCCURRENCE", "OUTCOME", "ERROR")))
	rows := rm.contentHeight() - 1
	for i := rm.offset; i < min(rm.offset+rows, len(rm.runs)); i++ {
		r := rm.runs[i]
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
			rm.stamp(r.FiredAt), api.EscapeText(r.Occurrence), outcome, errText))
	}
	return top, sub, b.String()
}
