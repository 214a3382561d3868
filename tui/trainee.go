package tui

import (
	"context"
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/client"
)

// Tabs of the trainee screen.
const (
	tabProfile = iota
	tabWeight
	tabMeasurements
	tabNutrition
	tabSteps
	tabCount
)

var tabNames = [tabCount]string{"Profile", "Weight", "Measurements", "Nutrition", "Steps"}

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
type traineeModel struct {
	*common

	t      *api.Trainee
	tab    int
	scroll [tabCount]int
	errs   [tabCount]string

	weightRange int
	weight      *api.WeightHistory // nil until read
	weightFor   int                // the range weight answers
	chart       string             // the weight chart, drawn once per data and size
	chartKey    string

	measureType  int // 0: every type, else api.MeasurementTypes[measureType-1]
	measureRange int
	measure      *api.Measurements
	measureFor   [2]int // type and range that measure answers

	day          api.Date
	nutrition    *api.Nutrition
	nutritionFor api.Date

	steps *api.AverageSteps
}

// invalidate forgets what was drawn for the old terminal size.
func (t *traineeModel) invalidate() { t.chartKey = "" }

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
		id int64
		s  *api.AverageSteps
	}
)

var traineeSlots = []slot{slotTrainee, slotWeight, slotMeasurements, slotNutrition, slotSteps}

// open shows t at its profile and reads t again.
func (tm *traineeModel) open(t *api.Trainee) tea.Cmd {
	tm.forget(traineeSlots...)
	*tm = traineeModel{common: tm.common, t: t, day: tm.today(), weightRange: 1, weightFor: -1, measureRange: 3, measureFor: [2]int{-1, -1}}
	id, c := t.ID, tm.c
	return tm.call(slotTrainee, func(ctx context.Context) (any, error) {
		r, err := c.Trainee(ctx, id)
		return traineeAnswer{r}, err
	})
}

// loadTab reads the current tab's data unless it is there already (or
// force).
func (tm *traineeModel) loadTab(force bool) tea.Cmd {
	switch tm.tab {
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

func (tm *traineeModel) loadWeight(force bool) tea.Cmd {
	if tm.weight != nil && tm.weightFor == tm.weightRange && !force {
		return nil
	}
	c, id := tm.c, tm.t.ID
	rng := tm.weightRange
	r := ranges[rng].of(tm.today())
	return tm.call(slotWeight, func(ctx context.Context) (any, error) {
		w, err := c.WeightHistory(ctx, id, r)
		return weightAnswer{id, rng, w}, err
	})
}

func (tm *traineeModel) loadMeasurements(force bool) tea.Cmd {
	want := [2]int{tm.measureType, tm.measureRange}
	if tm.measure != nil && tm.measureFor == want && !force {
		return nil
	}
	c, id := tm.c, tm.t.ID
	typ := ""
	if tm.measureType > 0 {
		typ = api.MeasurementTypes[tm.measureType-1]
	}
	r := ranges[tm.measureRange].of(tm.today())
	return tm.call(slotMeasurements, func(ctx context.Context) (any, error) {
		ms, err := c.Measurements(ctx, id, r, typ)
		return measureAnswer{id, want[0], want[1], ms}, err
	})
}

func (tm *traineeModel) loadNutrition(force bool) tea.Cmd {
	if tm.nutrition != nil && tm.nutritionFor == tm.day && !force {
		return nil
	}
	c, id := tm.c, tm.t.ID
	day := tm.day
	return tm.call(slotNutrition, func(ctx context.Context) (any, error) {
		n, err := c.Nutrition(ctx, id, day)
		return nutritionAnswer{id, day, n}, err
	})
}

func (tm *traineeModel) loadSteps(force bool) tea.Cmd {
	if tm.steps != nil && !force {
		return nil
	}
	c, id := tm.c, tm.t.ID
	return tm.call(slotSteps, func(ctx context.Context) (any, error) {
		s, err := c.AverageSteps(ctx, id)
		return stepsAnswer{id, s}, err
	})
}

func (tm *traineeModel) result(msg resultMsg) tea.Cmd {
	tab := map[slot]int{slotWeight: tabWeight, slotMeasurements: tabMeasurements, slotNutrition: tabNutrition,
		slotSteps: tabSteps, slotTrainee: tabProfile}[msg.slot]
	if msg.err != nil {
		tm.errs[tab] = describe(msg.err)
		tm.setError(msg.err)
		return nil
	}
	tm.errs[tab] = ""
	switch a := msg.val.(type) {
	case traineeAnswer:
		tm.t = a.t
		tm.nav.traineeRead(a.t)
	case weightAnswer:
		tm.weight, tm.weightFor, tm.chartKey = a.w, a.rng, ""
	case measureAnswer:
		tm.measure, tm.measureFor = a.m, [2]int{a.typ, a.rng}
	case nutritionAnswer:
		tm.nutrition, tm.nutritionFor = a.n, a.day
	case stepsAnswer:
		tm.steps = a.s
	}
	return nil
}

func (tm *traineeModel) key(msg tea.KeyPressMsg) tea.Cmd {
	cmd, _ := route(msg, tm.keyRoutes())
	return cmd
}

// keyRoutes is the trainee page's key table.
func (tm *traineeModel) keyRoutes() []keyRoute {
	k, nav := tm.keys, tm.nav
	scroll := func(f func(int) int) func(tea.KeyPressMsg) tea.Cmd {
		return done(func() { tm.scroll[tm.tab] = f(tm.scroll[tm.tab]) })
	}
	page := tm.contentHeight()
	return []keyRoute{
		on(done(func() { tm.forget(traineeSlots...); nav.show(screenList) }), k.Back),
		on(func(tea.KeyPressMsg) tea.Cmd { return tm.setTab((tm.tab + 1) % tabCount) }, k.NextTab),
		on(func(tea.KeyPressMsg) tea.Cmd { return tm.setTab((tm.tab + tabCount - 1) % tabCount) }, k.PrevTab),
		on(func(msg tea.KeyPressMsg) tea.Cmd { return tm.setTab(int(msg.String()[0] - '1')) }, k.Status),
		on(func(tea.KeyPressMsg) tea.Cmd { return tm.stepTab(-1) }, k.Left),
		on(func(tea.KeyPressMsg) tea.Cmd { return tm.stepTab(1) }, k.Right),
		onIf(func() bool { return tm.tab == tabMeasurements }, then(tm.nextMeasureRange), k.Range),
		onIf(func() bool { return tm.tab == tabNutrition }, then(tm.backToToday), k.Today),
		on(scroll(func(n int) int { return max(n-1, 0) }), k.Up),
		on(scroll(func(n int) int { return n + 1 }), k.Down),
		on(scroll(func(n int) int { return max(n-page, 0) }), k.PageUp),
		on(scroll(func(n int) int { return n + page }), k.PageDown),
		on(scroll(func(int) int { return 0 }), k.Top),
		onIf(func() bool { return tm.opt.ReadOnly }, done(func() { tm.readOnlyRefusal("changing trainees") }),
			k.Edit, k.Delete, k.Restore),
		on(func(tea.KeyPressMsg) tea.Cmd { return nav.openForm(tm.t, screenTrainee) }, k.Edit),
		on(done(func() { nav.askDelete(tm.t) }), k.Delete),
		on(func(tea.KeyPressMsg) tea.Cmd { return nav.restore(tm.t) }, k.Restore),
		on(then(tm.refresh), k.Refresh),
	}
}

func (tm *traineeModel) nextMeasureRange() tea.Cmd {
	tm.measureRange = (tm.measureRange + 1) % len(ranges)
	return tm.loadTab(false)
}

func (tm *traineeModel) backToToday() tea.Cmd {
	tm.day = tm.today()
	return tm.loadTab(false)
}

// refresh is ctrl+r: the trainee and the tab read again.
func (tm *traineeModel) refresh() tea.Cmd {
	id, c := tm.t.ID, tm.c
	return tea.Batch(tm.call(slotTrainee, func(ctx context.Context) (any, error) {
		r, err := c.Trainee(ctx, id)
		return traineeAnswer{r}, err
	}), tm.loadTab(true))
}

func (tm *traineeModel) setTab(i int) tea.Cmd {
	if i < 0 || i >= tabCount {
		return nil
	}
	tm.tab = i
	return tm.loadTab(false)
}

// stepTab is ←/→: the weight range, the measurement type, the day.
func (tm *traineeModel) stepTab(step int) tea.Cmd {
	switch tm.tab {
	case tabWeight:
		n := tm.weightRange + step
		if n < 0 || n >= len(ranges) {
			return nil
		}
		tm.weightRange = n
	case tabMeasurements:
		n := len(api.MeasurementTypes) + 1
		tm.measureType = (tm.measureType + step + n) % n
		tm.scroll[tabMeasurements] = 0
	case tabNutrition:
		d := tm.day.AddDays(step)
		if d.After(tm.today()) {
			tm.setStatus(statusInfo, "Nothing is logged in the future.")
			return nil
		}
		tm.day = d
		tm.scroll[tabNutrition] = 0
	default:
		return nil
	}
	return tm.loadTab(false)
}

func (tm *traineeModel) view() (top, sub, body string) {
	th := tm.th
	t := tm.t
	left := th.title.Render(api.EscapeText(t.Name)) + th.dim.Render(fmt.Sprintf("  #%d  ", t.ID)) + th.badge(t.Status(tm.today()))
	top = tm.topBar(left, tm.spinnerView()+" ")
	var tabs []string
	for i, n := range tabNames {
		tabs = append(tabs, tabLabel(th, n, i == tm.tab))
	}
	sub = strings.Join(tabs, " ")
	h, w := tm.contentHeight(), tm.width
	switch tm.tab {
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
func (tm *traineeModel) scrolled(tab int, s string, h int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	off := &tm.scroll[tab]
	*off = min(*off, max(len(lines)-h, 0))
	return strings.Join(lines[*off:], "\n")
}

// tabState is what a tab shows while its data is missing: the error, or a
// loading line.
func (tm *traineeModel) tabState(tab int, s slot, what string) (string, bool) {
	if e := tm.errs[tab]; e != "" {
		return "\n  " + tm.th.errText.Render(e), true
	}
	if tm.loading(s) {
		return tm.loadingLine(what), true
	}
	return "", false
}

func (tm *traineeModel) profileView() string {
	t, th := tm.t, tm.th
	yes := func(b bool) string {
		if b {
			return "yes"
		}
		return "no"
	}
	str := func(p *string) string {
		if p == nil {
			return "-"
		}
		return api.EscapeText(*p)
	}
	esc := api.EscapeText
	trainer := trainerName(tm.trainers, t.TrainerID)
	if t.TrainerID != nil && tm.trainers[*t.TrainerID] != "" {
		trainer += fmt.Sprintf(" (#%d)", *t.TrainerID)
	}
	rows := [][2]string{
		{"Name", esc(t.Name)},
		{"E-mail", esc(t.Email)},
		{"Username", esc(t.Username)},
		{"Phone", str(t.PhoneNumber)},
		{"Date of birth", dateOrDash(t.DateOfBirth)},
		{"Expiration date", dateOrDash(t.ExpirationDate)},
		{"Status", th.badge(t.Status(tm.today())) + th.dim.Render(fmt.Sprintf("  (enabled: %s)", yes(t.Enabled)))},
		{"Last trained", dateOrDash(t.LastTrained)},
		{"Trainer", trainer},
		{"Weight unit", esc(t.WeightUnit)},
		{"Created by", esc(t.CreatedByType)},
		{"Must change password", yes(t.ForcePasswordChange)},
		{"Authorities", esc(strings.Join(t.Authorities, ", "))},
		{"Trainee id", fmt.Sprint(t.ID)},
		{"User id", fmt.Sprint(t.UserID)},
		{"Company id", fmt.Sprint(t.CompanyID)},
	}
	var b strings.Builder
	for _, r := range rows {
		b.WriteString("  " + th.label.Render(padRight(r[0], 22)) + r[1] + "\n")
	}
	if e := tm.errs[tabProfile]; e != "" {
		b.WriteString("\n  " + th.errText.Render(e) + "\n")
	}
	return b.String()
}

// update takes the answers of the trainee and of its tabs' data.
func (tm *traineeModel) update(msg tea.Msg) tea.Cmd {
	if r, ok := msg.(resultMsg); ok {
		return tm.result(r)
	}
	return nil
}

func (tm *traineeModel) help() helpKeys {
	return traineeHelp(tm.keys, tm.tab, tm.opt.ReadOnly, tm.t != nil && !tm.t.Enabled)
}

func (tm *traineeModel) takesKeys() bool { return false }

func (tm *traineeModel) shows() (*api.Trainee, int) { return tm.t, tm.tab }
