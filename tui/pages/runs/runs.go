package runs

import (
	"context"
	"fmt"
	"maps"
	"strconv"
	"strings"
	"sync"

	tea "charm.land/bubbletea/v2"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/client"
	"github.com/traineed/traineed/tui/components/keymap"
	"github.com/traineed/traineed/tui/components/layout"
	"github.com/traineed/traineed/tui/components/requests"
	"github.com/traineed/traineed/tui/components/table"
	"github.com/traineed/traineed/tui/internal/common"
)

// The runs page (enter on an automation): the automation's most recent
// runs, newest first.

// recentRuns is how many runs the runs page loads: the newest page.
const recentRuns = 100

// runsModel is the runs page.
type Model struct {
	*common.Common

	of     *api.Automation // the automation whose runs are shown
	runs   []*api.AutomationRun
	total  int64
	loaded bool
	offset int
	names  map[int64]string // trainee names by id, escaped, as read
}

// Open shows a's runs, read anew.
func (rm *Model) Open(a *api.Automation) tea.Cmd {
	rm.of, rm.runs, rm.loaded, rm.offset, rm.total = a, nil, false, 0, 0
	return rm.reload()
}

// runsAnswer is the runs read and the names of their trainees not known
// before.
type runsAnswer struct {
	page  *api.AutomationRunPage
	names map[int64]string
}

func (rm *Model) reload() tea.Cmd {
	c, id := rm.C, rm.of.ID
	known := make(map[int64]bool, len(rm.names))
	for id := range rm.names {
		known[id] = true
	}
	return rm.Call(requests.SlotRuns, func(ctx context.Context) (any, error) {
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
func traineeNames(ctx context.Context, c common.Client, ids []int64) map[int64]string {
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

// Update takes the runs read.
func (rm *Model) Update(msg tea.Msg) tea.Cmd {
	r, ok := rm.Answer(msg)
	if !ok {
		return nil
	}
	a := r.Val.(runsAnswer)
	if rm.names == nil {
		rm.names = map[int64]string{}
	}
	maps.Copy(rm.names, a.names)
	rm.runs, rm.total, rm.loaded = a.page.Content, a.page.Page.TotalElements, true
	return nil
}

func (rm *Model) Key(msg tea.KeyPressMsg) tea.Cmd {
	if cmd, ok := rm.BackOrReload(msg, common.ScreenAutomations, rm.reload, requests.SlotRuns); ok {
		return cmd
	}
	rows := rm.ContentHeight() - 1
	if n, ok := rm.Step(msg, max(rows-1, 1)); ok {
		rm.offset = min(max(rm.offset+n, 0), max(len(rm.runs)-rows, 0))
	}
	return nil
}

func (rm *Model) Help() keymap.HelpKeys { return rm.Keys.RunsHelp() }

func (rm *Model) TakesKeys() bool { return false }

func (rm *Model) Shows() (*api.Trainee, int) { return nil, 0 }

// runCols fit 80 columns (the trainee's name, the occurrence and the
// error cut with "…").
var runCols = []table.ColSpec{table.Col("RUN", 4, 7, 2), table.Col("TRAINEE", 12, 24, 0), table.Col("FIRED", 16, 16, 0), table.Col("OCCURRENCE", 10, 22, 1),
	table.Col("OUTCOME", 9, 9, 0), table.Col("ERROR", 8, 0, 0)}

// traineeOf is the name of a run's trainee, or #id when it could not be
// read.
func (rm *Model) traineeOf(id int64) string {
	if n := rm.names[id]; n != "" {
		return n
	}
	return "#" + strconv.FormatInt(id, 10)
}

func (rm *Model) View() (top, sub, body string) {
	th, a := rm.Th, rm.of
	count := ""
	if rm.loaded {
		count = fmt.Sprintf("%d of %s", len(rm.runs), layout.Plural(int(rm.total), "run"))
	}
	top = rm.TopBar(th.Title.Render("Runs of "+api.EscapeText(a.Name))+th.Dim.Render(fmt.Sprintf(" #%d", a.ID)), rm.SpinnerView()+" "+count+" ")
	sub = th.Dim.Render(common.TriggerText(a.Trigger) + " → " + api.EscapeText(a.ActionType) + " · newest first · esc back")
	if body, ok := rm.EmptyBody(rm.loaded, len(rm.runs), "runs", "It has not fired yet."); ok {
		return top, sub, body
	}
	var b strings.Builder
	t := table.FitCols(rm.Width, runCols)
	b.WriteString(th.Header.Render(t.Header()))
	rows := rm.ContentHeight() - 1
	for i := rm.offset; i < min(rm.offset+rows, len(rm.runs)); i++ {
		r := rm.runs[i]
		outcome := api.EscapeText(r.Outcome)
		switch r.Outcome {
		case api.OutcomeFailed:
			outcome = th.ErrText.Render(outcome)
		case api.OutcomeDelivered, api.OutcomeDisabled:
			outcome = th.OkText.Render(outcome)
		}
		errText := "-"
		if r.Error != nil {
			errText = api.EscapeText(*r.Error)
		}
		b.WriteString("\n" + t.Row(strconv.FormatInt(r.ID, 10), rm.traineeOf(r.TraineeID),
			rm.Stamp(r.FiredAt), api.EscapeText(r.Occurrence), outcome, errText))
	}
	return top, sub, b.String()
}
