package trainee

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/tui/components/chart"
	"github.com/traineed/traineed/tui/components/layout"
	"github.com/traineed/traineed/tui/components/requests"
)

// ---------------------------------------------------------------- weight

// weightStats are the figures under the chart.
type weightStats struct {
	First, Last, Min, Max api.WeightEntry
	Change, ChangePct     float64
}

func StatsOf(es []api.WeightEntry) weightStats {
	s := weightStats{First: es[0], Last: es[len(es)-1], Min: es[0], Max: es[0]}
	for _, e := range es {
		if e.Weight < s.Min.Weight {
			s.Min = e
		}
		if e.Weight > s.Max.Weight {
			s.Max = e
		}
	}
	s.Change = math.Round((s.Last.Weight-s.First.Weight)*10) / 10
	if s.First.Weight != 0 {
		s.ChangePct = (s.Last.Weight - s.First.Weight) / s.First.Weight * 100
	}
	return s
}

func (tm *Model) weightView(w, h int) string {
	th := tm.Th
	var rl []string
	for i, r := range ranges {
		rl = append(rl, layout.TabLabel(th, r.label, i == tm.weightRange))
	}
	head := "  " + th.Label.Render("Range ") + strings.Join(rl, "") + th.Dim.Render("   ←/→ changes")
	if tm.Weight == nil || tm.weightFor != tm.weightRange {
		s, _ := tm.tabState(tabWeight, requests.SlotWeight, "the weight history")
		return head + "\n" + s
	}
	wh := tm.Weight
	unit := UnitLabel(wh.Unit)
	head += th.Dim.Render(fmt.Sprintf("   %s – %s", wh.From, wh.To))
	if len(wh.Entries) == 0 {
		return head + "\n\n  " + th.Dim.Render(fmt.Sprintf("No weight recorded from %s to %s.", wh.From, wh.To))
	}
	st := StatsOf(wh.Entries)
	at := func(label string, e api.WeightEntry) string {
		return th.Label.Render(label) + fmt.Sprintf(" %.1f %s", e.Weight, unit) + th.Dim.Render(" ("+e.Date.String()+")")
	}
	line1 := "  " + at("First", st.First) + "   " + at("Last", st.Last)
	line2 := "  " + at("Min  ", st.Min) + "   " + at("Max ", st.Max)
	line3 := "  " + th.Label.Render("Change") + " " + th.Accent.Render(fmt.Sprintf("%+.1f %s (%+.1f%%)", st.Change, unit, st.ChangePct)) +
		th.Dim.Render("   "+layout.Plural(len(wh.Entries), "day")+" with a weight")
	chartH := h - 4
	if chartH < 4 || w < 24 {
		return head + "\n\n" + line1 + "\n" + line2 + "\n" + line3
	}
	key := fmt.Sprint(w, chartH, tm.weightFor, wh.From, wh.To, len(wh.Entries), tm.IsDark, tm.Opt.NoColor)
	if key != tm.chartKey {
		tm.chart = chart.WeightChart(wh, w-2, chartH, th)
		tm.chartKey = key
	}
	return head + "\n" + layout.Indent(tm.chart, 1) + "\n" + line1 + "\n" + line2 + "\n" + line3
}

// ---------------------------------------------------------------- measurements

// series is the values of one measurement type (or custom name), oldest
// first.
type series struct {
	Label  string
	Unit   string
	Values []float64
}

func SeriesOf(ms []api.Measurement) []series {
	var out []series
	idx := map[string]int{}
	for _, x := range ms {
		label := measurementName(x)
		i, ok := idx[label]
		if !ok {
			i = len(out)
			idx[label] = i
			out = append(out, series{Label: label, Unit: x.Unit})
		}
		out[i].Values = append(out[i].Values, x.Value)
	}
	return out
}

func (tm *Model) measurementsView(w, h int) string {
	th := tm.Th
	typ := "all types"
	if tm.measureType > 0 {
		typ = api.MeasurementLabel(api.MeasurementTypes[tm.measureType-1])
	}
	head := "  " + th.Label.Render("Type ") + th.Accent.Render("["+typ+"]") + th.Dim.Render(" ←/→") +
		"   " + th.Label.Render("Range ") + th.Accent.Render("["+ranges[tm.measureRange].label+"]") + th.Dim.Render(" r")
	if tm.Measure == nil || tm.measureFor != [2]int{tm.measureType, tm.measureRange} {
		s, _ := tm.tabState(tabMeasurements, requests.SlotMeasurements, "measurements")
		return head + "\n" + s
	}
	ms := tm.Measure
	head += th.Dim.Render(fmt.Sprintf("   %s – %s", ms.From, ms.To))
	if len(ms.Measurements) == 0 {
		return head + "\n\n  " + th.Dim.Render("No measurements recorded in this range.")
	}
	var b strings.Builder
	b.WriteString(head + "\n")
	ss := SeriesOf(ms.Measurements)
	maxSeries := max(h/2-2, 1)
	sparkW := 1
	for _, s := range ss {
		sparkW = max(sparkW, min(len(s.Values), 20))
	}
	for i, s := range ss {
		if i == maxSeries {
			b.WriteString(th.Dim.Render(fmt.Sprintf("  … and %d more types: ←/→ shows one\n", len(ss)-maxSeries)))
			break
		}
		first, last := s.Values[0], s.Values[len(s.Values)-1]
		fmt.Fprintf(&b, "  %s %s  %.1f → %.1f %s %s\n", th.Label.Render(layout.PadRight(layout.Trunc(s.Label, 14), 14)),
			chart.Spark(s.Values, sparkW, th), first, last, UnitLabel(s.Unit),
			th.Dim.Render(fmt.Sprintf("(%+.1f)", last-first)))
	}
	b.WriteString("\n")
	used := strings.Count(b.String(), "\n")
	rowsH := max(h-used-1, 1)
	hdr := fmt.Sprintf("  %-10s  %-16s %9s  %s", "Date", "Type", "Value", "Unit")
	b.WriteString(th.Header.Render(hdr) + "\n")
	rows := ms.Measurements
	off := &tm.Scroll[tabMeasurements]
	*off = min(*off, max(len(rows)-rowsH, 0))
	for _, x := range rows[*off:min(*off+rowsH, len(rows))] {
		fmt.Fprintf(&b, "  %-10s  %s %9.1f  %s\n", x.Date, layout.PadRight(layout.Trunc(measurementName(x), 16), 16), x.Value, UnitLabel(x.Unit))
	}
	return b.String()
}

// ---------------------------------------------------------------- nutrition

func (tm *Model) nutritionView(w, h int) string {
	th := tm.Th
	day := tm.day.Time().Format("Mon") + " " + tm.day.String()
	if tm.day == tm.Today() {
		day += " (today)"
	}
	head := "  " + th.Dim.Render("← ") + th.Accent.Render(day) + th.Dim.Render(" →   t today")
	if tm.nutrition == nil || tm.nutritionFor != tm.day {
		s, _ := tm.tabState(tabNutrition, requests.SlotNutrition, "nutrition")
		return head + "\n" + s
	}
	n := tm.nutrition
	if len(n.Meals) == 0 {
		return head + "\n\n  " + th.Dim.Render("Nothing logged on this day.")
	}
	nameW := max(w-4-10-10-3*8-5, 8)
	macros := func(t api.NutritionTotals) string {
		// Grams always with one decimal, so that the figures of a column
		// align on the decimal point.
		return layout.PadLeft(Num(t.Calories)+" kcal", 10) + layout.PadLeft("P "+Grams(t.Protein), 8) +
			layout.PadLeft("C "+Grams(t.Carbs), 8) + layout.PadLeft("F "+Grams(t.Fat), 8)
	}
	var b strings.Builder
	lead := 4 + nameW + 10
	b.WriteString(th.Dim.Render(layout.PadRight("", lead)+layout.PadLeft("energy", 10)+layout.PadLeft("protein", 8)+
		layout.PadLeft("carbs", 8)+layout.PadLeft("fat", 8)+" (g)") + "\n")
	for _, meal := range n.Meals {
		title := layout.PadRight(api.EscapeText(mealLabel(meal.Meal)), lead-2)
		b.WriteString("  " + th.Accent.Render(title) + th.Accent.Render(macros(meal.Totals)) + "\n")
		for _, it := range meal.Items {
			qty := Quantity(it.Quantity) + " " + api.EscapeText(it.Unit)
			b.WriteString("    " + layout.PadRight(layout.Trunc(api.EscapeText(it.Name), nameW), nameW) + layout.PadLeft(qty, 10) +
				macros(api.NutritionTotals{Calories: it.Calories, Protein: it.Protein, Carbs: it.Carbs, Fat: it.Fat}) + "\n")
		}
	}
	b.WriteString("  " + th.Title.Render(layout.PadRight("Day total", lead-2)) + th.Title.Render(macros(n.Totals)) + "\n")
	b.WriteString("\n" + tm.macroSplit(n.Totals, w) + "\n")
	return tm.scrolled(tabNutrition, head+"\n\n"+b.String(), h-0)
}

// macroSplit shows the share of the energy from protein, carbohydrates and
// fat (4, 4 and 9 kcal per gram).
func (tm *Model) macroSplit(t api.NutritionTotals, w int) string {
	th := tm.Th
	p, c, f := t.Protein*4, t.Carbs*4, t.Fat*9
	sum := p + c + f
	if sum == 0 {
		return "  " + th.Dim.Render("No macronutrients logged.")
	}
	barW := max(w-2-len("Macro split ")-3*len(" P 100% "), 9)
	pw := int(math.Round(p / sum * float64(barW)))
	cw := int(math.Round(c / sum * float64(barW)))
	fw := max(barW-pw-cw, 0)
	bar := th.Protein.Render(strings.Repeat("█", pw)) + th.Carbs.Render(strings.Repeat("▓", cw)) + th.Fat.Render(strings.Repeat("░", fw))
	pct := func(x float64) string { return fmt.Sprintf("%.0f%%", x/sum*100) }
	return "  " + th.Label.Render("Macro split ") + bar + " " +
		th.Protein.Render("P "+pct(p)) + " " + th.Carbs.Render("C "+pct(c)) + " " + th.Fat.Render("F "+pct(f))
}

// ---------------------------------------------------------------- steps

func (tm *Model) stepsView() string {
	th := tm.Th
	if tm.steps == nil {
		s, _ := tm.tabState(tabSteps, requests.SlotSteps, "steps")
		return s
	}
	s := tm.steps
	var b strings.Builder
	fmt.Fprintf(&b, "\n  %s\n\n", th.Label.Render(fmt.Sprintf("Average daily steps over the 7 days %s – %s", s.From, s.To)))
	if s.AverageSteps == nil {
		b.WriteString("  " + th.Dim.Render("No steps recorded in these 7 days.") + "\n")
	} else {
		b.WriteString("      " + th.Title.Render(Thousands(*s.AverageSteps)) + " steps a day\n")
	}
	days := min(max(s.DaysWithData, 0), 7)
	fmt.Fprintf(&b, "\n  %s %d of 7   %s%s\n", th.Label.Render("Days with data:"), days,
		th.ChartLine.Render(strings.Repeat("■", days)), th.Dim.Render(strings.Repeat("□", 7-days)))
	if days > 0 && days < 7 {
		b.WriteString("  " + th.Dim.Render("Days without a record are left out of the average.") + "\n")
	}
	b.WriteString(tm.dailyStepsView())
	return b.String()
}

// dailyStepsView is the last 30 days' steps, a day a cell (a day without a
// record as none), with the busiest day.
func (tm *Model) dailyStepsView() string {
	d, th := tm.dailySteps, tm.Th
	if d == nil {
		return ""
	}
	if len(d.Days) == 0 {
		return "\n  " + th.Dim.Render(fmt.Sprintf("No steps recorded from %s to %s.", d.From, d.To)) + "\n"
	}
	byDay := map[api.Date]int64{}
	best := d.Days[0]
	for _, s := range d.Days {
		byDay[s.Date] = s.Steps
		if s.Steps > best.Steps {
			best = s
		}
	}
	var values []float64
	for day := d.From; !day.After(d.To); day = day.AddDays(1) {
		values = append(values, float64(byDay[day]))
	}
	return fmt.Sprintf("\n  %s\n  %s\n  %s %s steps %s\n",
		th.Label.Render(fmt.Sprintf("Daily steps %s – %s", d.From, d.To)),
		chart.Spark(values, min(len(values), max(tm.Width-4, 10)), th),
		th.Label.Render("Busiest day:"), Thousands(best.Steps), th.Dim.Render("("+best.Date.String()+")"))
}

// ---------------------------------------------------------------- format

// Num writes a quantity with at most one decimal.
func Num(f float64) string {
	if f == math.Trunc(f) && math.Abs(f) < 1e15 {
		return strconv.FormatInt(int64(f), 10)
	}
	return strconv.FormatFloat(f, 'f', 1, 64)
}

// Grams writes grams with one decimal, always (24.0, 5.6).
func Grams(f float64) string { return strconv.FormatFloat(f, 'f', 1, 64) }

// Quantity writes an amount with at most two decimals.
func Quantity(f float64) string {
	return strconv.FormatFloat(math.Round(f*100)/100, 'f', -1, 64)
}

// UnitLabel is how a unit reads: cm, in, kg, lb, % (escaped).
func UnitLabel(u string) string {
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

// Thousands writes n with comma separators.
func Thousands(n int64) string {
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
