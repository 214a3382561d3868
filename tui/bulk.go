package tui

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/progress"
	tea "charm.land/bubbletea/v2"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/client"
	"github.com/traineed/traineed/tui/components/keymap"
	"github.com/traineed/traineed/tui/components/layout"
	"github.com/traineed/traineed/tui/components/statusline"
	"github.com/traineed/traineed/tui/components/table"
	"github.com/traineed/traineed/tui/internal/common"
)

// Bulk actions: what the : line's extend, expire-on, trainer, disable,
// enable, delete and restore do to the marked trainees. A question names
// the count; y runs the action a few trainees at a time with a progress
// bar; a result panel then lists each failure with its reason, and r
// tries the failed ones again. Every trainee's request carries an
// Idempotency-Key made of the action's id and the trainee's id, and its
// body is computed once: a retry sends the very same request, so a
// change whose answer was lost is replayed by the server, not applied
// twice.

// bulkKind is what a bulk action does.
type bulkKind int

const (
	bulkExtend bulkKind = iota
	bulkExpireOn
	bulkTrainer
	bulkDisable
	bulkEnable
	bulkDelete
	bulkRestore
)

// bulkWorkers is how many requests a bulk action has in flight.
const bulkWorkers = 4

// bulkJob is one trainee's part of a bulk action.
type bulkJob struct {
	t      *api.Trainee
	change api.BulkChange // the request (api's rule, the CLI's too)
	key    string         // the Idempotency-Key
	done   bool
	err    error
}

// skipped reports whether the plan sends nothing for the job: the
// trainee already is as asked, or the action does not apply to it.
func (j *bulkJob) skipped() bool { return j.change.Skip != "" }

// bulkAction is one action over the marked trainees.
type bulkAction struct {
	kind  bulkKind
	what  string // "extend the expiration by 30 days"
	id    string // the action's id: the keys' prefix
	jobs  []*bulkJob
	count atomic.Int64 // requests answered, for the progress bar
	total int          // requests of the run
	run   int          // runs so far (1: the first, then retries)
}

// cmdBulk is the : command of a bulk action.
func cmdBulk(kind bulkKind) func(m *Model, arg string) tea.Cmd {
	return func(m *Model, arg string) tea.Cmd {
		if m.ReadOnlyRefusal("changing trainees") {
			return nil
		}
		marked := m.list.Marked()
		if len(marked) == 0 {
			m.SetStatus(statusline.StatusError, "Nothing is marked: on the list, space marks a trainee and ctrl+a every trainee of the view.")
			return nil
		}
		a, err := newBulkAction(kind, arg, marked, m)
		if err != nil {
			m.SetStatus(statusline.StatusError, "%s", err.Error())
			return nil
		}
		m.Ask(&bulkModal{Common: m.Common, m: m, a: a})
		return nil
	}
}

// newBulkAction reads the argument and plans every trainee's request
// with api's rule (the CLI's): a trainee already as asked is unchanged,
// one without expiration date is not extended.
func newBulkAction(kind bulkKind, arg string, ts []*api.Trainee, m *Model) (*bulkAction, error) {
	var b [8]byte
	_, _ = rand.Read(b[:])
	a := &bulkAction{kind: kind, id: "bulk-" + hex.EncodeToString(b[:])}
	today := m.Today()
	act := api.BulkAction{Kind: api.BulkPatch}
	switch kind {
	case bulkExtend:
		var err error
		if act, err = api.ParseExtension(arg); err != nil {
			return nil, fmt.Errorf("extend takes a length: extend 30d, 6w, 3m or 1y (%v).", err)
		}
		a.what = "extend the expiration by " + act.ExtensionText()
	case bulkExpireOn:
		date, err := api.ParseDateInput(strings.TrimSpace(arg), today.Time())
		if err != nil {
			return nil, fmt.Errorf("expire-on takes a date (dd-MM-yyyy, yyyy-MM-dd, today): %v.", err)
		}
		act.Patch.ExpirationDate = api.Val(date)
		a.what = "set the expiration to " + date.String()
	case bulkTrainer:
		trainer, err := m.bulkTrainer(strings.TrimSpace(arg))
		if err != nil {
			return nil, err
		}
		act.Patch.TrainerID = api.Val(trainer)
		a.what = "set the trainer to " + api.EscapeText(m.TrainerText(trainer))
	case bulkDisable, bulkDelete:
		act.Kind, a.what = api.BulkDelete, "delete (soft-delete)"
	case bulkEnable, bulkRestore:
		act.Kind, a.what = api.BulkRestore, "restore"
	}
	for _, t := range ts {
		a.jobs = append(a.jobs, &bulkJob{t: t, change: act.Plan(t, today), key: a.id + "-" + strconv.FormatInt(t.ID, 10)})
	}
	return a, nil
}

// bulkTrainer is the trainer a bulk trainer command names; when none
// (or more than one) matches, the error lists the company's trainers.
func (m *Model) bulkTrainer(arg string) (int64, error) {
	if arg == "" || len(m.TrainerList) == 0 {
		if n, err := strconv.ParseInt(arg, 10, 64); err == nil {
			return n, nil
		}
		return 0, errors.New("trainer takes a trainer's name or id: trainer Maya.")
	}
	names := make([]string, 0, 5)
	for i, t := range m.TrainerList {
		if i == 4 && len(m.TrainerList) > 5 {
			names = append(names, "…")
			break
		}
		names = append(names, api.EscapeText(t.Name))
	}
	known := "(trainers: " + strings.Join(names, ", ") + ")."
	id, err := m.TrainerByText(arg)
	switch {
	case err != nil && strings.Contains(err.Error(), "more than one"):
		return 0, fmt.Errorf("more than one trainer is called %s: give the id %s", api.EscapeText(arg), known)
	case err != nil:
		return 0, fmt.Errorf("no trainer called %s %s", api.EscapeText(arg), known)
	}
	for _, t := range m.TrainerList {
		if t.ID == id {
			return id, nil
		}
	}
	return 0, fmt.Errorf("no trainer has the id %d %s", id, known)
}

// skips are the skipped jobs' counts by reason, in the order first met.
func (a *bulkAction) skips() (reasons []string, counts map[string]int) {
	counts = map[string]int{}
	for _, j := range a.jobs {
		if j.skipped() {
			if counts[j.change.Skip] == 0 {
				reasons = append(reasons, j.change.Skip)
			}
			counts[j.change.Skip]++
		}
	}
	return reasons, counts
}

// skipLines are the skipped jobs, one line per reason: "1 trainee
// unchanged: no expiration date: never expires".
func (a *bulkAction) skipLines() []string {
	reasons, counts := a.skips()
	var out []string
	for _, r := range reasons {
		out = append(out, layout.Plural(counts[r], "trainee")+" unchanged: "+strings.TrimPrefix(r, "unchanged: "))
	}
	return out
}

// sent is how many jobs send a request.
func (a *bulkAction) sent() int {
	n := 0
	for _, j := range a.jobs {
		if !j.skipped() {
			n++
		}
	}
	return n
}

// pending are the jobs not done yet.
func (a *bulkAction) pending() []*bulkJob {
	var out []*bulkJob
	for _, j := range a.jobs {
		if !j.done && !j.skipped() {
			out = append(out, j)
		}
	}
	return out
}

// failed are the jobs that failed (after a run).
func (a *bulkAction) failed() []*bulkJob {
	var out []*bulkJob
	for _, j := range a.jobs {
		if !j.done && j.err != nil {
			out = append(out, j)
		}
	}
	return out
}

// bulkDoneMsg ends a run; bulkTickMsg moves the progress bar.
type (
	bulkDoneMsg struct{ a *bulkAction }
	bulkTickMsg struct{ a *bulkAction }
)

// start runs the pending jobs of a, bulkWorkers at a time, each under its
// own timeout; the answers are kept in the jobs.
func (m *Model) startBulk(a *bulkAction) tea.Cmd {
	jobs := a.pending()
	a.total, a.run = len(jobs), a.run+1
	a.count.Store(0)
	c, parent, timeout := m.C, m.opt.Context, m.opt.Timeout
	run := func() tea.Msg {
		ch := make(chan *bulkJob)
		var wg sync.WaitGroup
		for range bulkWorkers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for j := range ch {
					ctx, cancel := context.WithTimeout(parent, timeout)
					t, err := applyJob(ctx, c, j)
					cancel()
					j.err = err
					if err == nil {
						j.done, j.t = true, t
					}
					a.count.Add(1)
				}
			}()
		}
		for _, j := range jobs {
			ch <- j
		}
		close(ch)
		wg.Wait()
		return bulkDoneMsg{a}
	}
	return tea.Batch(run, bulkTick(a))
}

func bulkTick(a *bulkAction) tea.Cmd {
	return tea.Tick(100*time.Millisecond, func(time.Time) tea.Msg { return bulkTickMsg{a} })
}

// applyJob sends one trainee's request, as planned.
func applyJob(ctx context.Context, c common.Client, j *bulkJob) (*api.Trainee, error) {
	key := client.IdempotencyKey(j.key)
	switch {
	case j.change.Delete:
		return c.DeleteTrainee(ctx, j.t.ID, key)
	case j.change.Restore:
		return c.UpdateTrainee(ctx, j.t.ID, api.TraineePatch{Enabled: api.Val(true)}, key)
	}
	return c.UpdateTrainee(ctx, j.t.ID, j.change.Patch, key)
}

// bulkModal is a bulk action's question, then its progress, then its
// result.
type bulkModal struct {
	*common.Common
	m       *Model
	a       *bulkAction
	running bool
	ran     bool // a run ended: the result shows
	bar     progress.Model
	offset  int // first failure shown
}

func (bm *bulkModal) Key(msg tea.KeyPressMsg) (tea.Cmd, bool) {
	k := bm.Keys
	switch {
	case bm.running:
		return nil, false // it runs to its end
	case !bm.ran && key.Matches(msg, k.Yes), bm.ran && key.Matches(msg, k.Redeliver) && len(bm.a.failed()) > 0:
		bm.running = true
		bm.bar = progress.New(progress.WithWidth(max(min(bm.Width-10, 60), 10)), progress.WithoutPercentage())
		return bm.m.startBulk(bm.a), false
	case !bm.ran && key.Matches(msg, k.No):
		bm.SetStatus(statusline.StatusInfo, "Nothing was changed.")
		return nil, true
	case bm.ran && key.Matches(msg, k.Back, k.Open):
		return nil, true
	case bm.ran:
		if n, ok := bm.Step(msg, 5); ok {
			bm.offset = layout.Clamp(bm.offset+n, 0, max(len(bm.a.failed())-1, 0))
		}
	}
	return nil, false
}

// progressed takes a tick of the run, or its end.
func (bm *bulkModal) progressed(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case bulkTickMsg:
		if msg.a != bm.a || !bm.running {
			return nil
		}
		return bulkTick(bm.a)
	case bulkDoneMsg:
		if msg.a != bm.a {
			return nil
		}
		bm.running, bm.ran = false, true
		return bm.m.bulkDone(bm.a)
	}
	return nil
}

func (bm *bulkModal) Body(keymap.HelpKeys) string {
	a, th := bm.a, bm.Th
	n := len(a.jobs)
	var b strings.Builder
	switch {
	case bm.running:
		done := a.count.Load()
		b.WriteString(fmt.Sprintf("Working: %s, %d of %s…\n\n", a.what, done, layout.Plural(a.total, "trainee")))
		b.WriteString(bm.bar.ViewAs(float64(done) / float64(max(a.total, 1))))
	case !bm.ran:
		b.WriteString(fmt.Sprintf("%s: %s?\n", layout.Plural(n, "marked trainee"), a.what))
		b.WriteString(bm.changeLines())
		for _, l := range a.skipLines() {
			b.WriteString(th.Dim.Render(strings.Replace(l, " unchanged", " will stay unchanged", 1)) + "\n")
		}
		b.WriteString("\n")
		b.WriteString(th.Dim.Render("Each trainee gets its own request; a failure does not stop the others.") + "\n\n")
		b.WriteString(th.Accent.Render("y") + " yes   " + th.Accent.Render("n") + " no")
	default:
		return bm.resultView()
	}
	return layout.PlaceCenter(th.Dialog.Render(b.String()), bm.Width, bm.ContentHeight())
}

// changeLines lists, under the question, each trainee the action changes
// with its change, before → after ("Ada Park #1  expirationDate
// 21-11-2026 → 21-12-2026"), as many as the screen leaves room for, then
// how many more.
func (bm *bulkModal) changeLines() string {
	th := bm.Th
	room := max(bm.ContentHeight()-12, 1)
	width := max(min(bm.Width-12, 90), 20)
	var b strings.Builder
	shown, total := 0, 0
	for _, j := range bm.a.jobs {
		if j.skipped() {
			continue
		}
		total++
		if shown == room {
			continue
		}
		shown++
		line := fmt.Sprintf("  %s #%d  %s", api.EscapeText(j.t.Name), j.t.ID, j.change.Summary)
		b.WriteString(th.Dim.Render(layout.Trunc(line, width)) + "\n")
	}
	if total > shown {
		b.WriteString(th.Dim.Render(fmt.Sprintf("  … and %d more", total-shown)) + "\n")
	}
	return b.String()
}

// resultView is the result panel: how many were changed, and each
// failure with its reason.
func (bm *bulkModal) resultView() string {
	a, th := bm.a, bm.Th
	failed := a.failed()
	var b strings.Builder
	ok := a.sent() - len(failed)
	b.WriteString(th.OkText.Render(fmt.Sprintf("✓ %d of %s done", ok, layout.Plural(a.sent(), "trainee"))) + th.Dim.Render(": "+a.what) + "\n")
	for _, l := range a.skipLines() {
		b.WriteString(th.Dim.Render("– "+l) + "\n")
	}
	if len(failed) == 0 {
		b.WriteString("\n" + th.Dim.Render("No failure. esc closes."))
		return b.String()
	}
	b.WriteString(th.ErrText.Render(fmt.Sprintf("✗ %d failed", len(failed))) + th.Dim.Render(" (r tries them again with the same requests; esc closes)") + "\n\n")
	t := table.FitCols(bm.Width, failureCols)
	b.WriteString(th.Header.Render(t.Header()) + "\n")
	rows := max(bm.ContentHeight()-4-len(a.skipLines()), 1)
	bm.offset = layout.Clamp(bm.offset, 0, max(len(failed)-rows, 0))
	for _, j := range failed[bm.offset:min(bm.offset+rows, len(failed))] {
		b.WriteString(t.Row(strconv.FormatInt(j.t.ID, 10), api.EscapeText(j.t.Name), strings.ReplaceAll(statusline.Describe(j.err), "\n", " ")) + "\n")
	}
	return b.String()
}

var failureCols = []table.ColSpec{table.Col("ID", 4, 8, 0), table.Col("TRAINEE", 12, 24, 0), table.Col("REASON", 20, 0, 0)}

func (bm *bulkModal) Help(keymap.HelpKeys) keymap.HelpKeys {
	k := bm.Keys
	switch {
	case bm.running:
		return keymap.HelpKeys{}
	case !bm.ran:
		return k.ConfirmHelp()
	}
	retry, closeKey := k.Redeliver, k.Back
	retry.SetHelp("r", "retry the failed")
	retry.SetEnabled(len(bm.a.failed()) > 0)
	closeKey.SetHelp("esc", "close")
	return keymap.HelpKeys{Short: []key.Binding{retry, keymap.UpDown(k), closeKey}, Full: [][]key.Binding{{retry, k.Up, k.Down, closeKey}}}
}

// bulkDone puts the new states in the list (unmarking those done) and
// says how it went.
func (m *Model) bulkDone(a *bulkAction) tea.Cmd {
	for _, j := range a.jobs {
		if j.done {
			m.list.Replace(j.t)
		}
		if j.done || j.skipped() {
			delete(m.list.Marks, j.t.ID)
		}
	}
	clear(m.list.Lines)
	// One line: the panel above lists the reasons of the unchanged.
	skipped := ""
	if n := len(a.jobs) - a.sent(); n > 0 {
		skipped = fmt.Sprintf("; %d unchanged", n)
	}
	if f := len(a.failed()); f > 0 {
		m.SetStatus(statusline.StatusError, "%d of %s failed (listed); they stay marked%s.", f, layout.Plural(a.sent(), "trainee"), skipped)
	} else {
		m.SetStatus(statusline.StatusOK, "Done: %s, %s%s.", a.what, layout.Plural(a.sent()-len(a.failed()), "trainee"), skipped)
	}
	return tea.Batch(m.home.CountsChanged(), m.list.MaybeLoadMore())
}
