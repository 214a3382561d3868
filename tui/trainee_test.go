package tui

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/client"
	"github.com/traineed/traineed/tui/internal/common"
	"github.com/traineed/traineed/tui/pages/trainee"
)

// openFirst opens the trainee under the cursor (the first of the list).
func openFirst(t *testing.T, d *driver) *api.Trainee {
	t.Helper()
	tr := d.m.list.Selected()
	if tr == nil {
		t.Fatal("the list is empty")
	}
	d.press("enter")
	if d.m.screen != common.ScreenTrainee {
		t.Fatalf("enter did not open the trainee:\n%s", d.screen())
	}
	return tr
}

// trackedCalls are the tracked-data requests sent since the last take, as
// "what from to type date".
func trackedCalls(s *testServer) []string {
	var out []string
	for _, r := range s.rec.take() {
		i := strings.LastIndex(r.Path, "/")
		what := r.Path[i+1:]
		if !strings.Contains("weight-history measurements nutrition average-steps", what) {
			continue
		}
		c := what
		for _, k := range []string{"from", "to", "type", "date"} {
			if v, ok := r.Query[k]; ok {
				c += " " + k + "=" + v
			}
		}
		out = append(out, c)
	}
	return out
}

func expectCalls(t *testing.T, s *testServer, want ...string) {
	t.Helper()
	if got := trackedCalls(s); strings.Join(got, "; ") != strings.Join(want, "; ") {
		t.Fatalf("tracked-data requests:\n got %q\nwant %q", got, want)
	}
}

func monthsAgo(n int) api.Date { return api.DateOf(testToday.Time().AddDate(0, -n, 0)) }

func TestProfileShowsEveryField(t *testing.T) {
	s := newServer(t)
	d := newDriver(t, s.client(s.Key), Options{})
	s.rec.take()
	tr := openFirst(t, d)
	reqs := s.rec.take()
	if len(reqs) != 1 || reqs[0].Method != "GET" || reqs[0].Path != fmt.Sprintf("%s/%d", api.PathTrainees, tr.ID) {
		t.Fatalf("opening sent %+v", reqs)
	}
	fresh, err := s.direct().Trainee(t.Context(), tr.ID)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"[Profile]", "Weight", "Measurements", "Nutrition", "Steps",
		fresh.Name, fresh.Email, "Username", fresh.Username, "Phone", "Date of birth", "Expiration date",
		"Status", fresh.Status(testToday), "Last trained", "Trainer", fmt.Sprintf("#%d", *fresh.TrainerID),
		"Weight unit", fresh.WeightUnit, "Created by", fresh.CreatedByType, "Must change password",
		"Authorities", "TRAINEE, USER", "Trainee id", fmt.Sprint(fresh.ID), "User id", fmt.Sprint(fresh.UserID),
		"Company id", fmt.Sprint(fresh.CompanyID)}
	for _, opt := range []*api.Date{fresh.DateOfBirth, fresh.ExpirationDate, fresh.LastTrained} {
		if opt != nil {
			want = append(want, opt.String())
		}
	}
	if fresh.PhoneNumber != nil {
		want = append(want, *fresh.PhoneNumber)
	}
	// Every field of the field table, under its label, in its order.
	for _, name := range api.ProfileFields {
		want = append(want, api.TraineeLabels[name])
	}
	d.expect(t, want...)
	screen := d.screen()
	last := -1
	for _, name := range api.ProfileFields {
		i := strings.Index(screen, "  "+api.TraineeLabels[name]+" ")
		if i <= last {
			t.Errorf("the profile shows %s (%q) out of the field table's order:\n%s", name, api.TraineeLabels[name], screen)
		}
		last = i
	}
	d.press("esc")
	if d.m.screen != common.ScreenList {
		t.Fatal("esc did not go back to the list")
	}
}

func TestWeightTabChartsTheDemoData(t *testing.T) {
	s := newServer(t)
	d := newDriver(t, s.client(s.Key), Options{})
	tr := openFirst(t, d)
	s.rec.take()
	d.press("tab")
	expectCalls(t, s, fmt.Sprintf("weight-history from=%s to=%s", monthsAgo(3), testToday))
	wh, err := s.direct().WeightHistory(context.Background(), tr.ID, client.TrackedRange{From: monthsAgo(3), To: testToday})
	if err != nil {
		t.Fatal(err)
	}
	if len(wh.Entries) < 30 {
		t.Fatalf("the demo trainee has %d weights in 3 months", len(wh.Entries))
	}
	st := trainee.StatsOf(wh.Entries)
	unit := strings.ToLower(wh.Unit)
	d.expect(t, "[Weight]", "[3M]", "1M", "6M", "1Y", fmt.Sprintf("%s – %s", monthsAgo(3), testToday),
		fmt.Sprintf("First %.1f %s (%s)", st.First.Weight, unit, st.First.Date),
		fmt.Sprintf("Last %.1f %s (%s)", st.Last.Weight, unit, st.Last.Date),
		fmt.Sprintf("Min   %.1f %s (%s)", st.Min.Weight, unit, st.Min.Date),
		fmt.Sprintf("Max  %.1f %s (%s)", st.Max.Weight, unit, st.Max.Date),
		fmt.Sprintf("Change %+.1f %s (%+.1f%%)", st.Change, unit, st.ChangePct),
		fmt.Sprintf("%d days with a weight", len(wh.Entries)),
		"└", monthsAgo(3).Time().Format("02 Jan")) // the axis starts at the range's first day
	if st.Change != math.Round((st.Last.Weight-st.First.Weight)*10)/10 || st.Min.Weight > st.First.Weight || st.Max.Weight < st.Last.Weight {
		t.Fatalf("stats %+v", st)
	}
	// The line is drawn.
	if strings.Count(d.screen(), "╭")+strings.Count(d.screen(), "╮") < 5 {
		t.Fatalf("no line drawn:\n%s", d.screen())
	}
	d.press("right")
	d.expect(t, "[6M]")
	d.press("left", "left")
	d.expect(t, "[1M]", fmt.Sprintf("%s – %s", monthsAgo(1), testToday))
	expectCalls(t, s,
		fmt.Sprintf("weight-history from=%s to=%s", monthsAgo(6), testToday),
		fmt.Sprintf("weight-history from=%s to=%s", monthsAgo(3), testToday),
		fmt.Sprintf("weight-history from=%s to=%s", monthsAgo(1), testToday))
	d.press("left") // there is no shorter range
	expectCalls(t, s)
	d.press("right", "right", "right")
	d.expect(t, "[1Y]", fmt.Sprintf("%s – %s", monthsAgo(12), testToday))
}

func TestMeasurementsTab(t *testing.T) {
	s := newServer(t)
	d := newDriver(t, s.client(s.Key), Options{})
	tr := openFirst(t, d)
	s.rec.take()
	d.press("3")
	expectCalls(t, s, fmt.Sprintf("measurements from=%s to=%s", monthsAgo(12), testToday))
	year := client.TrackedRange{From: monthsAgo(12), To: testToday}
	ms, err := s.direct().Measurements(context.Background(), tr.ID, year, "")
	if err != nil {
		t.Fatal(err)
	}
	ss := trainee.SeriesOf(ms.Measurements)
	if len(ss) < 4 {
		t.Fatalf("the demo trainee has %d measurement types", len(ss))
	}
	d.expect(t, "[Measurements]", "[all types]", "[1Y]", "Date", "Type", "Value", "Unit")
	// One line per type (as many as fit), with its sparkline and its change.
	lines := strings.Split(d.screen(), "\n")
	for _, se := range ss[:4] {
		want := fmt.Sprintf("%.1f → %.1f %s", se.Values[0], se.Values[len(se.Values)-1], trainee.UnitLabel(se.Unit))
		found := false
		for _, l := range lines {
			if strings.Contains(l, head(se.Label, 14)) && strings.Contains(l, want) {
				found = strings.ContainsAny(l, "▁▂▃▄▅▆▇█")
			}
		}
		if !found {
			t.Errorf("no sparkline line for %s with %q:\n%s", se.Label, want, d.screen())
		}
	}
	first := ms.Measurements[0]
	// Types show in words (JSON keeps the enum): "Body fat", not BODY_FAT.
	d.expect(t, fmt.Sprintf("%s  %s", first.Date, api.MeasurementLabel(first.Type)))
	d.expectNot(t, "BODY_FAT", "LEFT_ARM")

	// ←/→ filters by type, on the server.
	d.press("right")
	d.expect(t, "[Chest]")
	chest, _ := s.direct().Measurements(context.Background(), tr.ID, year, "CHEST")
	if len(chest.Measurements) == 0 {
		t.Fatal("no chest measurements")
	}
	d.expect(t, fmt.Sprintf("%s  Chest", chest.Measurements[0].Date), fmt.Sprintf("%.1f", chest.Measurements[0].Value))
	d.expectNot(t, "Waist", "Body fat")
	d.press("left", "left")
	d.expect(t, "[Custom]")
	d.expectNot(t, "Chest ")
	d.press("r")
	d.expect(t, "[1M]")
	expectCalls(t, s,
		fmt.Sprintf("measurements from=%s to=%s type=CHEST", monthsAgo(12), testToday),
		fmt.Sprintf("measurements from=%s to=%s", monthsAgo(12), testToday),
		fmt.Sprintf("measurements from=%s to=%s type=CUSTOM", monthsAgo(12), testToday),
		fmt.Sprintf("measurements from=%s to=%s type=CUSTOM", monthsAgo(1), testToday))
}

func TestNutritionTab(t *testing.T) {
	s := newServer(t)
	d := newDriver(t, s.client(s.Key), Options{})
	ctx := context.Background()
	// A trainee who logged meals today, and a day without any.
	var n *api.Nutrition
	for i, tr := range d.m.list.Items {
		got, err := s.direct().Nutrition(ctx, tr.ID, testToday)
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Meals) >= 2 {
			d.m.list.Cursor, n = i, got
			break
		}
	}
	if n == nil {
		t.Fatal("nobody logged two meals today")
	}
	tr := openFirst(t, d)
	s.rec.take()
	d.press("4")
	expectCalls(t, s, "nutrition date=21-11-2026")
	want := []string{"[Nutrition]", "Sat 21-11-2026 (today)", "Day total", fmt.Sprintf("%s kcal", trainee.Num(n.Totals.Calories)),
		"P " + trainee.Num(n.Totals.Protein), "C " + trainee.Num(n.Totals.Carbs), "F " + trainee.Num(n.Totals.Fat), "Macro split"}
	for _, meal := range n.Meals {
		want = append(want, strings.ToUpper(meal.Meal[:1])+strings.ToLower(meal.Meal[1:]))
		for _, it := range meal.Items {
			want = append(want, head(it.Name, 12), trainee.Quantity(it.Quantity)+" "+it.Unit, trainee.Num(it.Calories)+" kcal")
		}
	}
	d.expect(t, want...)
	// The macro split is of the energy: 4, 4 and 9 kcal a gram.
	p, c, f := n.Totals.Protein*4, n.Totals.Carbs*4, n.Totals.Fat*9
	d.expect(t, fmt.Sprintf("P %.0f%%", p/(p+c+f)*100), fmt.Sprintf("C %.0f%%", c/(p+c+f)*100), fmt.Sprintf("F %.0f%%", f/(p+c+f)*100))
	// Each meal's line carries its totals.
	for _, meal := range n.Meals {
		title := strings.ToUpper(meal.Meal[:1]) + strings.ToLower(meal.Meal[1:])
		for _, l := range strings.Split(d.screen(), "\n") {
			if strings.HasPrefix(strings.TrimSpace(l), title+" ") && !strings.Contains(l, trainee.Num(meal.Totals.Calories)+" kcal") {
				t.Errorf("%s line %q lacks %s kcal", title, l, trainee.Num(meal.Totals.Calories))
			}
		}
	}

	d.press("left")
	d.expect(t, "Fri 20-11-2026")
	y, _ := s.direct().Nutrition(ctx, tr.ID, testToday.AddDays(-1))
	if len(y.Meals) == 0 {
		d.expect(t, "Nothing logged on this day.")
	} else {
		d.expect(t, fmt.Sprintf("%s kcal", trainee.Num(y.Totals.Calories)))
	}
	d.press("right")
	d.expect(t, "(today)", fmt.Sprintf("%s kcal", trainee.Num(n.Totals.Calories)))
	d.press("right") // the future: nothing asked
	d.expect(t, "Nothing is logged in the future.", "(today)")
	d.press("left", "left", "t")
	d.expect(t, "(today)")
	expectCalls(t, s, "nutrition date=20-11-2026", "nutrition date=21-11-2026", "nutrition date=20-11-2026",
		"nutrition date=19-11-2026", "nutrition date=21-11-2026")
}

func TestStepsTab(t *testing.T) {
	s := newServer(t)
	d := newDriver(t, s.client(s.Key), Options{})
	tr := openFirst(t, d)
	s.rec.take()
	d.press("shift+tab")
	expectCalls(t, s, "average-steps", "steps")
	st, err := s.direct().AverageSteps(context.Background(), tr.ID)
	if err != nil || st.AverageSteps == nil {
		t.Fatalf("%+v %v", st, err)
	}
	daily, err := s.direct().Steps(context.Background(), tr.ID, client.TrackedRange{})
	if err != nil || len(daily.Days) == 0 {
		t.Fatalf("%+v %v", daily, err)
	}
	best := daily.Days[0]
	for _, x := range daily.Days {
		if x.Steps > best.Steps {
			best = x
		}
	}
	d.expect(t, "[Steps]", "15-11-2026 – 21-11-2026", trainee.Thousands(*st.AverageSteps)+" steps a day",
		fmt.Sprintf("Days with data: %d of 7", st.DaysWithData),
		strings.Repeat("■", st.DaysWithData)+strings.Repeat("□", 7-st.DaysWithData),
		"Daily steps 23-10-2026 – 21-11-2026", "Busiest day: "+trainee.Thousands(best.Steps)+" steps ("+best.Date.String()+")")
}

// Leaving a trainee drops the answers still on their way, and an earlier
// range's answer that arrives after a later one is dropped too.
func TestTraineeAnswersAfterMovingOnAreDropped(t *testing.T) {
	s := newServer(t)
	d := newDriver(t, s.client(s.Key), Options{})
	openFirst(t, d)
	d.press("tab") // weight, 3M
	_, cmd := d.m.Update(kp("right"))
	sixMonths := collect(cmd) // held back
	d.press("right")          // 1Y, answered
	d.expect(t, "[1Y]")
	year := d.m.trainee.Weight
	dropped := d.m.Dropped
	for _, msg := range sixMonths {
		d.send(msg)
	}
	d.settle()
	if d.m.Dropped != dropped+1 || d.m.trainee.Weight != year {
		t.Fatalf("the 6M answer was taken (dropped %d)", d.m.Dropped-dropped)
	}
	d.expect(t, "[1Y]", fmt.Sprintf("%s – %s", monthsAgo(12), testToday))

	_, cmd = d.m.Update(kp("tab")) // measurements, held back
	late := collect(cmd)
	d.press("esc")
	for _, msg := range late {
		d.send(msg)
	}
	d.settle()
	if d.m.screen != common.ScreenList || d.m.trainee.Measure != nil {
		t.Fatalf("a late answer changed the screen:\n%s", d.screen())
	}
	if d.m.Dropped != dropped+2 {
		t.Fatalf("dropped %d, want %d", d.m.Dropped, dropped+2)
	}
}

// :open of an id that names no trainee stays on the screen and says so;
// of one that does, opens it.
func TestOpenCommandReadsTheTraineeFirst(t *testing.T) {
	s := newServer(t)
	d := newDriver(t, s.client(s.Key), Options{NoColor: true})
	d.send(tea.WindowSizeMsg{Width: 100, Height: 30})
	d.press(":")
	d.typeText("open 9999")
	d.press("enter")
	if d.m.screen != common.ScreenList {
		t.Fatalf("screen %v after :open 9999, want the list still:\n%s", d.m.screen, d.screen())
	}
	d.expect(t, "9999")
	d.expectNot(t, "#9999 #9999")
	if !strings.Contains(d.screen(), "Trainee 9999 was not found in your company.") {
		t.Errorf("no not-found error in the status line:\n%s", d.screen())
	}
	d.press(":")
	d.typeText("open 1")
	d.press("enter")
	if d.m.screen != common.ScreenTrainee || d.m.trainee.T.ID != 1 || d.m.trainee.T.Name == "#1" {
		t.Fatalf("screen %v after :open 1, want trainee 1's:\n%s", d.m.screen, d.screen())
	}
}
