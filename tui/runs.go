package tui

import (
	"context"
	"fmt"
	"maps"
	"strconv"
	"strings"
	"sync"

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
	names  map[int64]string // trainee names by id, escaped, as read
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

// runsAnswer is the runs read and the names of their trainees not known
// before.
type runsAnswer struct {
	page  *api.AutomationRunPage
	names map[int64]string
}

func (rm *runsModel) reload() tea.Cmd {
	c, id := rm.c, rm.of.ID
	known := make(map[int64]bool, len(rm.names))
	for id := range rm.names {
		known[id] = true
	}
	return rm.call(slotRuns, func(ctx context.Context) (any, error) {
		p, err := c.AutomationRuns(ctx, id, client.ListParams{Limit: recentRuns})
		if err != nil {
			return nil, err
		}
		var ids []int64
		for _, r := range p.Content {
			if !known[r.TraineeID] {
				known[r.TraineeID] = true
				ids = append(ids, r.TraineeID)
			}
		}
		return runsAnswer{page: p, names: traineeNames(ctx, c, ids)}, nil
	})
}

// traineeNames reads the trainees of ids, a few at a time, for their
// names (escaped); a trainee that cannot be read is left out (it shows
// as #id).
func traineeNames(ctx context.Context, c Client, ids []int64) map[int64]string {
	out := make(map[int64]string, len(ids))
	var mu sync.Mutex
	var wg sync.WaitGroup
	sem := make(chan struct{}, 8)
	for _, id := range ids {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			if t, err := c.Trainee(ctx, id); err == nil {
				mu.Lock()
				out[id] = api.EscapeText(t.Name)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return out
}

// update takes the runs read.
func (rm *runsModel) update(msg tea.Msg) tea.Cmd {
	r, ok := rm.answer(msg)
	if !ok {
		return nil
	}
	a := r.val.(runsAnswer)
	if rm.names == nil {
		rm.names = map[int64]string{}
	}
	maps.Copy(rm.names, a.names)
	rm.runs, rm.total, rm.loaded = a.page.Content, a.page.Page.TotalElements, true
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

// runCols fit 80 columns (the trainee's name, the occurrence and the
// error cut with "…").
var runCols = []colSpec{col("RUN", 4, 7, 2), col("TRAINEE", 12, 24, 0), col("FIRED", 16, 16, 0), col("OCCURRENCE", 10, 22, 1),
	col("OUTCOME", 9, 9, 0), col("ERROR", 8, 0, 0)}

// traineeOf is the name of a run's trainee, or #id when it could not be
// read.
func (rm *runsModel) traineeOf(id int64) string {
	if n := rm.names[id]; n != "" {
		return n
	}
	return "#" + strconv.FormatInt(id, 10)
}

func (rm *runsModel) view() (top, sub, body string) {
	th, a := rm.th, rm.of
	count := ""
	if rm.loaded {
		count = fmt.Sprintf("%d of %s", len(rm.runs), plural(int(rm.total), "run"))
	}
	top = rm.topBar(th.title.Render("Runs of "+api.EscapeText(a.Name))+th.dim.Render(fmt.Sprintf(" #%d", a.ID)), rm.spinnerView()+" "+count+" ")
	sub = th.dim.Render(triggerText(a.Trigger) + " → " + api.EscapeText(a.ActionType) + " · newest first · esc back")
	if body, ok := rm.emptyBody(rm.loaded, len(rm.runs), "runs", "It has not fired yet."); ok {
		return top, sub, body
	}
	var b strings.Builder
	t := fitCols(rm.width, runCols)
	b.WriteString(th.header.Render(t.header()))
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
		b.WriteString("\n" + t.row(strconv.FormatInt(r.ID, 10), rm.traineeOf(r.TraineeID),
			rm.stamp(r.FiredAt), api.EscapeText(r.Occurrence), outcome, errText))
	}
	return top, sub, b.String()
}
