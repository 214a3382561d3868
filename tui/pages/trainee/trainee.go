package trainee

import (
	"context"
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/client"
	"github.com/traineed/traineed/tui/components/keymap"
	"github.com/traineed/traineed/tui/components/layout"
	"github.com/traineed/traineed/tui/components/requests"
	"github.com/traineed/traineed/tui/components/statusline"
	"github.com/traineed/traineed/tui/internal/common"
)

// Tabs of the trainee screen.
const (
	tabProfile = iota
	tabWeight
	tabMeasurements
	tabNutrition
	tabSteps
	TabCount
)

var TabNames = [TabCount]string{"Profile", "Weight", "Measurements", "Nutrition", "Steps"}

// trackedRange is one of the ranges the weight chart and the measurements
// cover, ending today.
type trackedRange struct {
	label  string
	months int
}

var ranges = []trackedRange{{"1M", 1}, {"3M", 3}, {"6M", 6}, {"1Y", 12}}

func (r trackedRange) of(today api.Date) client.TrackedRange {
	return client.TrackedRange{From: api.DateOf(today.Time().AddDate(0, -r.months, 0)), To: today}
}

// traineeModel is the trainee page: one trainee and its tabs. The data
// of a tab is read when the tab is first shown, and again when its range,
// type or day changes.
type Model struct {
	*common.Common

	T      *api.Trainee
	Tab    int
	Scroll [TabCount]int
	errs   [TabCount]string

	weightRange int
	Weight      *api.WeightHistory // nil until read
	weightFor   int                // the range weight answers
	chart       string             // the weight chart, drawn once per data and size
	chartKey    string

	measureType  int // 0: every type, else api.MeasurementTypes[measureType-1]
	measureRange int
	Measure      *api.Measurements
	measureFor   [2]int // type and range that measure answers

	day          api.Date
	nutrition    *api.Nutrition
	nutritionFor api.Date

	steps      *api.AverageSteps
	dailySteps *api.DailySteps // the last 30 days
}

// Invalidate forgets what was drawn for the old terminal size.
func (t *Model) Invalidate() { t.chartKey = "" }

// Answers of the trainee screen's requests.
type (
	traineeAnswer struct{ t *api.Trainee }
	weightAnswer  struct {
		id  int64
		rng int
		w   *api.WeightHistory
	}
	measureAnswer struct {
		id       int64
		typ, rng int
		m        *api.Measurements
	}
	nutritionAnswer struct {
		id  int64
		day api.Date
		n   *api.Nutrition
	}
	stepsAnswer struct {
		id    int64
		s     *api.AverageSteps
		daily *api.DailySteps // the last 30 days, each day's count
	}
)

var traineeSlots = []requests.Slot{requests.SlotTrainee, requests.SlotWeight, requests.SlotMeasurements, requests.SlotNutrition, requests.SlotSteps}

// Open shows t at its profile and reads t again.
func (tm *Model) Open(t *api.Trainee) tea.Cmd {
	tm.Forget(traineeSlots...)
	*tm = Model{Common: tm.Common, T: t, day: tm.Today(), weightRange: 1, weightFor: -1, measureRange: 3, measureFor: [2]int{-1, -1}}
	id, c := t.ID, tm.C
	return tm.Call(requests.SlotTrainee, func(ctx context.Context) (any, error) {
		r, err := c.Trainee(ctx, id)
		return traineeAnswer{r}, err
	})
}

// loadTab reads the current tab's data unless it is there already (or
// force).
func (tm *Model) loadTab(force bool) tea.Cmd {
	switch tm.Tab {
	case tabWeight:
		return tm.loadWeight(force)
	case tabMeasurements:
		return tm.loadMeasurements(force)
	case tabNutrition:
		return tm.loadNutrition(force)
	case tabSteps:
		return tm.loadSteps(force)
	}
	return nil
}

func (tm *Model) loadWeight(force bool) tea.Cmd {
	if tm.Weight != nil && tm.weightFor == tm.weightRange && !force {
		return nil
	}
	c, id := tm.C, tm.T.ID
	rng := tm.weightRange
	r := ranges[rng].of(tm.Today())
	return tm.Call(requests.SlotWeight, func(ctx context.Context) (any, error) {
		w, err := c.WeightHistory(ctx, id, r)
		return weightAnswer{id, rng, w}, err
	})
}

func (tm *Model) loadMeasurements(force bool) tea.Cmd {
	want := [2]int{tm.measureType, tm.measureRange}
	if tm.Measure != nil && tm.measureFor == want && !force {
		return nil
	}
	c, id := tm.C, tm.T.ID
	typ := ""
	if tm.measureType > 0 {
		typ = api.MeasurementTypes[tm.measureType-1]
	}
	r := ranges[tm.measureRange].of(tm.Today())
	return tm.Call(requests.SlotMeasurements, func(ctx context.Context) (any, error) {
		ms, err := c.Measurements(ctx, id, r, typ)
		return measureAnswer{id, want[0], want[1], ms}, err
	})
}

func (tm *Model) loadNutrition(force bool) tea.Cmd {
	if tm.nutrition != nil && tm.nutritionFor == tm.day && !force {
		return nil
	}
	c, id := tm.C, tm.T.ID
	day := tm.day
	return tm.Call(requests.SlotNutrition, func(ctx context.Context) (any, error) {
		n, err := c.Nutrition(ctx, id, day)
		return nutritionAnswer{id, day, n}, err
	})
}

func (tm *Model) loadSteps(force bool) tea.Cmd {
	if tm.steps != nil && !force {
		return nil
	}
	c, id := tm.C, tm.T.ID
	return tm.Call(requests.SlotSteps, func(ctx context.Context) (any, error) {
		s, err := c.AverageSteps(ctx, id)
		if err != nil {
			return stepsAnswer{id: id}, err
		}
		d, err := c.Steps(ctx, id, client.TrackedRange{})
		return stepsAnswer{id, s, d}, err
	})
}

func (tm *Model) result(msg requests.ResultMsg) tea.Cmd {
	tab := map[requests.Slot]int{requests.SlotWeight: tabWeight, requests.SlotMeasurements: tabMeasurements, requests.SlotNutrition: tabNutrition,
		requests.SlotSteps: tabSteps, requests.SlotTrainee: tabProfile}[msg.Slot]
	if msg.Err != nil {
		tm.errs[tab] = statusline.Describe(msg.Err)
		tm.SetError(msg.Err)
		return nil
	}
	tm.errs[tab] = ""
	switch a := msg.Val.(type) {
	case traineeAnswer:
		tm.T = a.t
		tm.Nav.TraineeRead(a.t)
	case weightAnswer:
		tm.Weight, tm.weightFor, tm.chartKey = a.w, a.rng, ""
	case measureAnswer:
		tm.Measure, tm.measureFor = a.m, [2]int{a.typ, a.rng}
	case nutritionAnswer:
		tm.nutrition, tm.nutritionFor = a.n, a.day
	case stepsAnswer:
		tm.steps, tm.dailySteps = a.s, a.daily
	}
	return nil
}

func (tm *Model) Key(msg tea.KeyPressMsg) tea.Cmd {
	cmd, _ := keymap.Route(msg, tm.keyRoutes())
	return cmd
}

// keyRoutes is the trainee page's key table.
func (tm *Model) keyRoutes() []keymap.KeyRoute {
	k, nav := tm.Keys, tm.Nav
	scroll := func(f func(int) int) func(tea.KeyPressMsg) tea.Cmd {
		return keymap.Done(func() { tm.Scroll[tm.Tab] = f(tm.Scroll[tm.Tab]) })
	}
	page := tm.ContentHeight()
	return []keymap.KeyRoute{
		keymap.On(keymap.Done(func() { tm.Forget(traineeSlots...); nav.Show(common.ScreenList) }), k.Back),
		keymap.On(func(tea.KeyPressMsg) tea.Cmd { return tm.setTab((tm.Tab + 1) % TabCount) }, k.NextTab),
		keymap.On(func(tea.KeyPressMsg) tea.Cmd { return tm.setTab((tm.Tab + TabCount - 1) % TabCount) }, k.PrevTab),
		keymap.On(func(msg tea.KeyPressMsg) tea.Cmd { return tm.setTab(int(msg.String()[0] - '1')) }, k.Status),
		keymap.On(func(tea.KeyPressMsg) tea.Cmd { return tm.stepTab(-1) }, k.Left),
		keymap.On(func(tea.KeyPressMsg) tea.Cmd { return tm.stepTab(1) }, k.Right),
		keymap.OnIf(func() bool { return tm.Tab == tabMeasurements }, keymap.Then(tm.nextMeasureRange), k.Range),
		keymap.OnIf(func() bool { return tm.Tab == tabNutrition }, keymap.Then(tm.backToToday), k.Today),
		keymap.On(scroll(func(n int) int { return max(n-1, 0) }), k.Up),
		keymap.On(scroll(func(n int) int { return n + 1 }), k.Down),
		keymap.On(scroll(func(n int) int { return max(n-page, 0) }), k.PageUp),
		keymap.On(scroll(func(n int) int { return n + page }), k.PageDown),
		keymap.On(scroll(func(int) int { return 0 }), k.Top),
		keymap.OnIf(func() bool { return tm.Opt.ReadOnly }, keymap.Done(func() { tm.ReadOnlyRefusal("changing trainees") }),
			k.Edit, k.Delete, k.Restore),
		keymap.On(func(tea.KeyPressMsg) tea.Cmd { return nav.OpenForm(tm.T, common.ScreenTrainee) }, k.Edit),
		keymap.On(keymap.Done(func() { nav.AskDelete(tm.T) }), k.Delete),
		keymap.On(func(tea.KeyPressMsg) tea.Cmd { return nav.Restore(tm.T) }, k.Restore),
		keymap.On(keymap.Then(tm.refresh), k.Refresh),
	}
}

func (tm *Model) nextMeasureRange() tea.Cmd {
	tm.measureRange = (tm.measureRange + 1) % len(ranges)
	return tm.loadTab(false)
}

func (tm *Model) backToToday() tea.Cmd {
	tm.day = tm.Today()
	return tm.loadTab(false)
}

// refresh is ctrl+r: the trainee and the tab read again.
func (tm *Model) refresh() tea.Cmd {
	id, c := tm.T.ID, tm.C
	return tea.Batch(tm.Call(requests.SlotTrainee, func(ctx context.Context) (any, error) {
		r, err := c.Trainee(ctx, id)
		return traineeAnswer{r}, err
	}), tm.loadTab(true))
}

func (tm *Model) setTab(i int) tea.Cmd {
	if i < 0 || i >= TabCount {
		return nil
	}
	tm.Tab = i
	return tm.loadTab(false)
}

// stepTab is ←/→: the weight range, the measurement type, the day.
func (tm *Model) stepTab(step int) tea.Cmd {
	switch tm.Tab {
	case tabWeight:
		n := tm.weightRange + step
		if n < 0 || n >= len(ranges) {
			return nil
		}
		tm.weightRange = n
	case tabMeasurements:
		n := len(api.MeasurementTypes) + 1
		tm.measureType = (tm.measureType + step + n) % n
		tm.Scroll[tabMeasurements] = 0
	case tabNutrition:
		d := tm.day.AddDays(step)
		if d.After(tm.Today()) {
			tm.SetStatus(statusline.StatusInfo, "Nothing is logged in the future.")
			return nil
		}
		tm.day = d
		tm.Scroll[tabNutrition] = 0
	default:
		return nil
	}
	return tm.loadTab(false)
}

func (tm *Model) View() (top, sub, body string) {
	th := tm.Th
	t := tm.T
	left := th.Title.Render(api.EscapeText(t.Name)) + th.Dim.Render(fmt.Sprintf("  #%d  ", t.ID)) + th.Badge(t.Status(tm.Today()))
	top = tm.TopBar(left, tm.SpinnerView()+" ")
	var tabs []string
	for i, n := range TabNames {
		tabs = append(tabs, layout.TabLabel(th, n, i == tm.Tab))
	}
	sub = strings.Join(tabs, " ")
	h, w := tm.ContentHeight(), tm.Width
	switch tm.Tab {
	case tabProfile:
		body = tm.scrolled(tabProfile, tm.profileView(), h)
	case tabWeight:
		body = tm.weightView(w, h)
	case tabMeasurements:
		body = tm.measurementsView(w, h)
	case tabNutrition:
		body = tm.nutritionView(w, h)
	case tabSteps:
		body = tm.stepsView()
	}
	return top, sub, body
}

// scrolled shows h lines of s from the tab's scroll offset, which it keeps
// within the text.
func (tm *Model) scrolled(tab int, s string, h int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	off := &tm.Scroll[tab]
	*off = min(*off, max(len(lines)-h, 0))
	return strings.Join(lines[*off:], "\n")
}

// tabState is what a tab shows while its data is missing: the error, or a
// loading line.
func (tm *Model) tabState(tab int, s requests.Slot, what string) (string, bool) {
	if e := tm.errs[tab]; e != "" {
		return "\n  " + tm.Th.ErrText.Render(e), true
	}
	if tm.Loading(s) {
		return tm.LoadingLine(what), true
	}
	return "", false
}

// profileView shows every field of the trainee, as the field table
// declares them (api.ProfileFields: Trainee's order, identifiers last,
// each under its label tag): a field added to api.Trainee is shown with
// no change here. The status (of enabled and the expiration date) and the
// trainer's name are shown for enabled and trainerId.
func (tm *Model) profileView() string {
	th := tm.Th
	var b strings.Builder
	for _, name := range api.ProfileFields {
		b.WriteString("  " + th.Label.Render(layout.PadRight(api.TraineeLabels[name], 22)) + tm.profileValue(name) + "\n")
	}
	if e := tm.errs[tabProfile]; e != "" {
		b.WriteString("\n  " + th.ErrText.Render(e) + "\n")
	}
	return b.String()
}

// profileValue is how the profile shows the field name of the trainee:
// by the value's type, but for the status and the trainer.
func (tm *Model) profileValue(name string) string {
	t, th := tm.T, tm.Th
	switch name {
	case "enabled":
		return th.Badge(t.Status(tm.Today())) + th.Dim.Render(fmt.Sprintf("  (enabled: %s)", yesNo(t.Enabled)))
	case "trainerId":
		trainer := common.TrainerName(tm.Trainers, t.TrainerID)
		if t.TrainerID != nil && tm.Trainers[*t.TrainerID] != "" {
			trainer += fmt.Sprintf(" (#%d)", *t.TrainerID)
		}
		return trainer
	}
	switch v := api.TraineeValue(t, name).(type) {
	case nil:
		return "-"
	case bool:
		return yesNo(v)
	case string:
		return api.EscapeText(v)
	case []string:
		return api.EscapeText(strings.Join(v, ", "))
	case api.Date:
		return v.String()
	default:
		return api.EscapeText(fmt.Sprint(v))
	}
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// Update takes the answers of the trainee and of its tabs' data.
func (tm *Model) Update(msg tea.Msg) tea.Cmd {
	if r, ok := msg.(requests.ResultMsg); ok {
		return tm.result(r)
	}
	return nil
}

func (tm *Model) Help() keymap.HelpKeys {
	return traineeHelp(tm.Keys, tm.Tab, tm.Opt.ReadOnly, tm.T != nil && !tm.T.Enabled)
}

func (tm *Model) TakesKeys() bool { return false }

func (tm *Model) Shows() (*api.Trainee, int) { return tm.T, tm.Tab }
