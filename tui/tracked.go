package tui

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/NimbleMarkets/ntcharts/v2/linechart/timeserieslinechart"
	"github.com/NimbleMarkets/ntcharts/v2/sparkline"

	"github.com/traineed/traineed/api"
)

// ---------------------------------------------------------------- weight

// weightStats are the figures under the chart.
type weightStats struct {
	first, last, min, max api.WeightEntry
	change, changePct     float64
}

func statsOf(es []api.WeightEntry) weightStats {
	s := weightStats{first: es[0], last: es[len(es)-1], min: es[0], max: es[0]}
	for _, e := range es {
		if e.Weight < s.min.Weight {
			s.min = e
		}
		if e.Weight > s.max.Weight {
			s.max = e
		}
	}
	s.change = math.Round((s.last.Weight-s.first.Weight)*10) / 10
	if s.first.Weight != 0 {
		s.changePct = (s.last.Weight - s.first.Weight) / s.first.Weight * 100
	}
	return s
}

func (tm *traineeModel) weightView(w, h int) string {
	th := tm.th
	var rl []string
	for i, r := range ranges {
		rl = append(rl, tabLabel(th, r.label, i == tm.weightRange))
	}
	head := "  " + th.label.Render("Range ") + strings.Join(rl, "") + th.dim.Render("   ←/→ changes")
	if tm.weight == nil || tm.weightFor != tm.weightRange {
		s, _ := tm.tabState(tabWeight, slotWeight, "the weight history")
		return head + "\n" + s
	}
	wh := tm.weight
	unit := unitLabel(wh.Unit)
	head += th.dim.Render(fmt.Sprintf("   %s – %s", wh.From, wh.To))
	if len(wh.Entries) == 0 {
		return head + "\n\n  " + th.dim.Render(fmt.Sprintf("No weight recorded from %s to %s.", wh.From, wh.To))
	}
	st := statsOf(wh.Entries)
	at := func(label string, e api.WeightEntry) string {
		return th.label.Render(label) + fmt.Sprintf(" %.1f %s", e.Weight, unit) + th.dim.Render(" ("+e.Date.String()+")")
	}
	line1 := "  " + at("First", st.first) + "   " + at("Last", st.last)
	line2 := "  " + at("Min  ", st.min) + "   " + at("Max ", st.max)
	line3 := "  " + th.label.Render("Change") + " " + th.accent.Render(fmt.Sprintf("%+.1f %s (%+.1f%%)", st.change, unit, st.changePct)) +
		th.dim.Render("   "+plural(len(wh.Entries), "day")+" with a weight")
	chartH := h - 4
	if chartH < 4 || w < 24 {
		return head + "\n\n" + line1 + "\n" + line2 + "\n" + line3
	}
	key := fmt.Sprint(w, chartH, tm.weightFor, wh.From, wh.To, len(wh.Entries), tm.isDark, tm.opt.NoColor)
	if key != tm.chartKey {
		tm.chart = weightChart(wh, w-2, chartH, th)
		tm.chartKey = key
	}
	return head + "\n" + indent(tm.chart, 1) + "\n" + line1 + "\n" + line2 + "\n" + line3
}

// weightChart draws the weight history over its whole range with
// ntcharts' time-series line chart (arc line runes, one averaged value per
// column: they read better than braille dots and need no braille font).
func weightChart(wh *api.WeightHistory, w, h int, th theme) string {
	lo, hi := wh.Entries[0].Weight, wh.Entries[0].Weight
	for _, e := range wh.Entries {
		lo, hi = math.Min(lo, e.Weight), math.Max(hi, e.Weight)
	}
	yLo, yHi, every := yTicks(lo, hi, h-2)
	from, to := wh.From.Time(), wh.To.Time()
	if !to.After(from) {
		to = from.Add(24 * time.Hour)
	}
	c := timeserieslinechart.New(w, h,
		timeserieslinechart.WithTimeRange(from, to),
		timeserieslinechart.WithYRange(yLo, yHi),
		timeserieslinechart.WithXLabelFormatter(func(_ int, v float64) string {
			return time.Unix(int64(math.Round(v)), 0).UTC().Format("02 Jan")
		}),
		timeserieslinechart.WithYLabelFormatter(func(i int, v float64) string {
			if i%every != 0 { // ntcharts labels the top row too: a tick only
				return ""
			}
			return fmt.Sprintf("%.1f", v)
		}),
		timeserieslinechart.WithAxesStyles(th.dim, th.dim),
		timeserieslinechart.WithStyle(th.chartLine),
		timeserieslinechart.WithXYSteps(2, every),
	)
	for _, e := range wh.Entries {
		c.Push(timeserieslinechart.TimePoint{Time: e.Date.Time(), Value: e.Weight})
	}
	c.Draw()
	return c.View()
}

// tickSteps are the round steps of the weight axis, smallest first.
var tickSteps = []float64{0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50, 100, 200, 500}

// yTicks chooses the weight axis of a chart whose plot has rows rows
// for values from lo to hi: its range [yLo, yHi] and a label every
// `every` rows, such that the labels are even, round values (multiples
// of a step of tickSteps: 64.0, 64.5, 65.0) and the axis does not run
// past the data by more than one step at either end. The chart labels
// row i with yLo + i*(yHi-yLo)/rows.
func yTicks(lo, hi float64, rows int) (yLo, yHi float64, every int) {
	rows = max(rows, 1)
	for _, s := range tickSteps {
		base := math.Floor(lo/s+1e-9) * s
		// Fewest rows per label first is the densest axis; one label
		// every row is crowded, so it comes last.
		for _, k := range append(rangeInts(2, rows), 1) {
			top := base + s*float64(rows)/float64(k)
			if top+1e-9 >= hi && top-hi <= s+1e-9 {
				return base, top, k
			}
		}
	}
	return lo, hi + 1, 2 // beyond every step: not reached for weights
}

// rangeInts is from, from+1, ..., to.
func rangeInts(from, to int) []int {
	var out []int
	for i := from; i <= to; i++ {
		out = append(out, i)
	}
	return out
}

// ---------------------------------------------------------------- measurements

// series is the values of one measurement type (or custom name), oldest
// first.
type series struct {
	label  string
	unit   string
	values []float64
}

func seriesOf(ms []api.Measurement) []series {
	var out []series
	idx := map[string]int{}
	for _, x := range ms {
		label := measurementName(x)
		i, ok := idx[label]
		if !ok {
			i = len(out)
			idx[label] = i
			out = append(out, series{label: label, unit: x.Unit})
		}
		out[i].values = append(out[i].values, x.Value)
	}
	return out
}

// spark draws values as a one-line sparkline of at most w cells (the
// latest values), scaled between their minimum and maximum so that small
// changes show, padded to w.
func spark(values []float64, w int, th theme) string {
	pad := w
	w = min(max(len(values), 1), w)
	lo, hi := values[0], values[0]
	for _, v := range values {
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	sl := sparkline.New(w, 1, sparkline.WithStyle(th.chartLine))
	span := hi - lo
	for _, v := range values {
		if span == 0 {
			sl.Push(1)
		} else {
			sl.Push((v-lo)/span + 0.15)
		}
	}
	sl.Draw()
	return padRight(sl.View(), pad)
}

func (tm *traineeModel) measurementsView(w, h int) string {
	th := tm.th
	typ := "all types"
	if tm.measureType > 0 {
		typ = api.MeasurementLabel(api.MeasurementTypes[tm.measureType-1])
	}
	head := "  " + th.label.Render("Type ") + th.accent.Render("["+typ+"]") + th.dim.Render(" ←/→") +
		"   " + th.label.Render("Range ") + th.accent.Render("["+ranges[tm.measureRange].label+"]") + th.dim.Render(" r")
	if tm.measure == nil || tm.measureFor != [2]int{tm.measureType, tm.measureRange} {
		s, _ := tm.tabState(tabMeasurements, slotMeasurements, "measurements")
		return head + "\n" + s
	}
	ms := tm.measure
	head += th.dim.Render(fmt.Sprintf("   %s – %s", ms.From, ms.To))
	if len(ms.Measurements) == 0 {
		return head + "\n\n  " + th.dim.Render("No measurements recorded in this range.")
	}
	var b strings.Builder
	b.WriteString(head + "\n")
	ss := seriesOf(ms.Measurements)
	maxSeries := max(h/2-2, 1)
	sparkW := 1
	for _, s := range ss {
		sparkW = max(sparkW, min(len(s.values), 20))
	}
	for i, s := range ss {
		if i == maxSeries {
			b.WriteString(th.dim.Render(fmt.Sprintf("  … and %d more types: ←/→ shows one\n", len(ss)-maxSeries)))
			break
		}
		first, last := s.values[0], s.values[len(s.values)-1]
		fmt.Fprintf(&b, "  %s %s  %.1f → %.1f %s %s\n", th.label.Render(padRight(trunc(s.label, 14), 14)),
			spark(s.values, sparkW, th), first, last, unitLabel(s.unit),
			th.dim.Render(fmt.Sprintf("(%+.1f)", last-first)))
	}
	b.WriteString("\n")
	used := strings.Count(b.String(), "\n")
	rowsH := max(h-used-1, 1)
	hdr := fmt.Sprintf("  %-10s  %-16s %9s  %s", "Date", "Type", "Value", "Unit")
	b.WriteString(th.header.Render(hdr) + "\n")
	rows := ms.Measurements
	off := &tm.scroll[tabMeasurements]
	*off = min(*off, max(len(rows)-rowsH, 0))
	for _, x := range rows[*off:min(*off+rowsH, len(rows))] {
		fmt.Fprintf(&b, "  %-10s  %s %9.1f  %s\n", x.Date, padRight(trunc(measurementName(x), 16), 16), x.Value, unitLabel(x.Unit))
	}
	return b.String()
}

// ---------------------------------------------------------------- nutrition

func (tm *traineeModel) nutritionView(w, h int) string {
	th := tm.th
	day := tm.day.Time().Format("Mon") + " " + tm.day.String()
	if tm.day == tm.today() {
		day += " (today)"
	}
	head := "  " + th.dim.Render("← ") + th.accent.Render(day) + th.dim.Render(" →   t today")
	if tm.nutrition == nil || tm.nutritionFor != tm.day {
		s, _ := tm.tabState(tabNutrition, slotNutrition, "nutrition")
		return head + "\n" + s
	}
	n := tm.nutrition
	if len(n.Meals) == 0 {
		return head + "\n\n  " + th.dim.Render("Nothing logged on this day.")
	}
	nameW := max(w-4-10-10-3*8-5, 8)
	macros := func(t api.NutritionTotals) string {
		return padLeft(num(t.Calories)+" kcal", 10) + padLeft("P "+num(t.Protein), 8) +
			padLeft("C "+num(t.Carbs), 8) + padLeft("F "+num(t.Fat), 8)
	}
	var b strings.Builder
	lead := 4 + nameW + 10
	b.WriteString(th.dim.Render(padRight("", lead)+padLeft("energy", 10)+padLeft("protein", 8)+
		padLeft("carbs", 8)+padLeft("fat", 8)+" (g)") + "\n")
	for _, meal := range n.Meals {
		title := padRight(api.EscapeText(mealLabel(meal.Meal)), lead-2)
		b.WriteString("  " + th.accent.Render(title) + th.accent.Render(macros(meal.Totals)) + "\n")
		for _, it := range meal.Items {
			qty := quantity(it.Quantity) + " " + api.EscapeText(it.Unit)
			b.WriteString("    " + padRight(trunc(api.EscapeText(it.Name), nameW), nameW) + padLeft(qty, 10) +
				macros(api.NutritionTotals{Calories: it.Calories, Protein: it.Protein, Carbs: it.Carbs, Fat: it.Fat}) + "\n")
		}
	}
	b.WriteString("  " + th.title.Render(padRight("Day total", lead-2)) + th.title.Render(macros(n.Totals)) + "\n")
	b.WriteString("\n" + tm.macroSplit(n.Totals, w) + "\n")
	return tm.scrolled(tabNutrition, head+"\n\n"+b.String(), h-0)
}

// macroSplit shows the share of the energy from protein, carbohydrates and
// fat (4, 4 and 9 kcal per gram).
func (tm *traineeModel) macroSplit(t api.NutritionTotals, w int) string {
	th := tm.th
	p, c, f := t.Protein*4, t.Carbs*4, t.Fat*9
	sum := p + c + f
	if sum == 0 {
		return "  " + th.dim.Render("No macronutrients logged.")
	}
	barW := max(w-2-len("Macro split ")-3*len(" P 100% "), 9)
	pw := int(math.Round(p / sum * float64(barW)))
	cw := int(math.Round(c / sum * float64(barW)))
	fw := max(barW-pw-cw, 0)
	bar := th.protein.Render(strings.Repeat("█", pw)) + th.carbs.Render(strings.Repeat("▓", cw)) + th.fat.Render(strings.Repeat("░", fw))
	pct := func(x float64) string { return fmt.Sprintf("%.0f%%", x/sum*100) }
	return "  " + th.label.Render("Macro split ") + bar + " " +
		th.protein.Render("P "+pct(p)) + " " + th.carbs.Render("C "+pct(c)) + " " + th.fat.Render("F "+pct(f))
}

// ---------------------------------------------------------------- steps

func (tm *traineeModel) stepsView() string {
	th := tm.th
	if tm.steps == nil {
		s, _ := tm.tabState(tabSteps, slotSteps, "steps")
		return s
	}
	s := tm.steps
	var b strings.Builder
	fmt.Fprintf(&b, "\n  %s\n\n", th.label.Render(fmt.Sprintf("Average daily steps over the 7 days %s – %s", s.From, s.To)))
	if s.AverageSteps == nil {
		b.WriteString("  " + th.dim.Render("No steps recorded in these 7 days.") + "\n")
	} else {
		b.WriteString("      " + th.title.Render(thousands(*s.AverageSteps)) + " steps a day\n")
	}
	days := min(max(s.DaysWithData, 0), 7)
	fmt.Fprintf(&b, "\n  %s %d of 7   %s%s\n", th.label.Render("Days with data:"), days,
		th.chartLine.Render(strings.Repeat("■", days)), th.dim.Render(strings.Repeat("□", 7-days)))
	if days > 0 && days < 7 {
		b.WriteString("  " + th.dim.Render("Days without a record are left out of the average.") + "\n")
	}
	return b.String()
}

// ---------------------------------------------------------------- format

// num writes a quantity with at most one decimal.
func num(f float64) string {
	if f == math.Trunc(f) && math.Abs(f) < 1e15 {
		return strconv.FormatInt(int64(f), 10)
	}
	return strconv.FormatFloat(f, 'f', 1, 64)
}

// quantity writes an amount with at most two decimals.
func quantity(f float64) string {
	return strconv.FormatFloat(math.Round(f*100)/100, 'f', -1, 64)
}

// unitLabel is how a unit reads: cm, in, kg, lb, % (escaped).
func unitLabel(u string) string {
	if u == api.UnitPercent {
		return "%"
	}
	return api.EscapeText(strings.ToLower(u))
}

// measurementName is what a measurement is called on the screen (escaped):
// a custom measurement's own name, else its type's label.
func measurementName(x api.Measurement) string {
	if x.Name != nil && *x.Name != "" {
		return api.EscapeText(*x.Name)
	}
	return api.EscapeText(api.MeasurementLabel(x.Type))
}

// mealLabel is BREAKFAST as Breakfast.
func mealLabel(meal string) string {
	if meal == "" {
		return ""
	}
	return strings.ToUpper(meal[:1]) + strings.ToLower(meal[1:])
}

// thousands writes n with comma separators.
func thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}
