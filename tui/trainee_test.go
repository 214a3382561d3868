package tui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/traineed/traineed/api"
)

// openFirst opens the trainee under the cursor (the first of the list).
func openFirst(t *testing.T, d *driver) *api.Trainee {
	t.Helper()
	tr := d.m.list.selected()
	if tr == nil {
		t.Fatal("the list is empty")
	}
	d.press("enter")
	if d.m.screen != screenTrainee {
		t.Fatalf("enter did not open the trainee:\n%s", d.screen())
	}
	return tr
}

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
	if fresh.PhoneNumber != nil {
		want = append(want, *fresh.PhoneNumber)
	}
	if fresh.DateOfBirth != nil {
		want = append(want, fresh.DateOfBirth.String())
	}
	d.expect(t, want...)
	d.press("esc")
	if d.m.screen != screenList {
		t.Fatal("esc did not go back to the list")
	}
}

func TestWeightTab(t *testing.T) {
	s := newServer(t)
	c := &trackedStub{Client: s.client(s.Key)}
	d := newDriver(t, c, Options{})
	tr := openFirst(t, d)
	d.press("tab")
	from := api.DateOf(testToday.Time().AddDate(0, -3, 0))
	if got := c.take(); strings.Join(got, ";") != fmt.Sprintf("weight %d %s %s", tr.ID, from, testToday) {
		t.Fatalf("calls %q", got)
	}
	wh := d.m.trainee.weight
	st := statsOf(wh.Entries)
	d.expect(t, "[Weight]", "[3M]", "1M", "6M", "1Y",
		fmt.Sprintf("First %.1f kg (%s)", st.first.Weight, st.first.Date),
		fmt.Sprintf("Last %.1f kg (%s)", st.last.Weight, st.last.Date),
		fmt.Sprintf("Min   %.1f kg", st.min.Weight), fmt.Sprintf("Max %.1f kg", st.max.Weight),
		fmt.Sprintf("Change %+.1f kg", st.change), fmt.Sprintf("%d days with a weight", len(wh.Entries)),
		"└") // the chart's axis
	if st.min.Weight >= st.max.Weight || st.change >= 0 {
		t.Fatalf("stub data: %+v", st)
	}
	// The chart has braille dots and the dates of the range.
	if !strings.ContainsAny(d.screen(), "⠁⠂⠄⡀⠈⠐⠠⢀⣀⠉⠒⠤") {
		t.Fatalf("no line drawn:\n%s", d.screen())
	}
	d.press("right")
	d.expect(t, "[6M]")
	d.press("left", "left")
	d.expect(t, "[1M]")
	from = api.DateOf(testToday.Time().AddDate(0, -1, 0))
	if got := c.take(); len(got) != 3 || got[2] != fmt.Sprintf("weight %d %s %s", tr.ID, from, testToday) {
		t.Fatalf("calls %q", got)
	}
	d.press("left") // no shorter range
	if got := c.take(); len(got) != 0 {
		t.Fatalf("calls %q", got)
	}
	// Back on a range already read: read again, since data may have changed? No: kept.
	d.press("right", "right", "right")
	d.expect(t, "[1Y]", fmt.Sprintf("%s – %s", api.DateOf(testToday.Time().AddDate(-1, 0, 0)), testToday))
}

func TestMeasurementsTab(t *testing.T) {
	s := newServer(t)
	c := &trackedStub{Client: s.client(s.Key)}
	d := newDriver(t, c, Options{})
	tr := openFirst(t, d)
	c.take()
	d.press("3")
	year := api.DateOf(testToday.Time().AddDate(-1, 0, 0))
	if got := c.take(); strings.Join(got, ";") != fmt.Sprintf("measurements %d %s %s ", tr.ID, year, testToday) {
		t.Fatalf("calls %q", got)
	}
	d.expect(t, "[Measurements]", "[all types]", "[1Y]", "BODY_FAT", "Biceps", "WAIST",
		"24 → 21.3 percent", "90 → 85.5 cm", "Date", "Type", "Value", "Unit",
		fmt.Sprintf("%s  BODY_FAT", testToday.AddDays(-63)))
	// One sparkline per type, eight steps of blocks at most.
	for _, l := range strings.Split(d.screen(), "\n") {
		if strings.Contains(l, "WAIST") && strings.Contains(l, "→") && !strings.ContainsAny(l, "▁▂▃▄▅▆▇█") {
			t.Errorf("no sparkline: %q", l)
		}
	}
	// ←/→ filters by type, on the server.
	d.press("right")
	d.expect(t, "[CHEST]", "No measurements recorded")
	d.press("left", "left")
	d.expect(t, "[CUSTOM]", "Biceps")
	d.expectNot(t, "WAIST")
	d.press("r")
	d.expect(t, "[1M]")
	month := api.DateOf(testToday.Time().AddDate(0, -1, 0))
	got := c.take()
	want := []string{
		fmt.Sprintf("measurements %d %s %s CHEST", tr.ID, year, testToday),
		fmt.Sprintf("measurements %d %s %s ", tr.ID, year, testToday),
		fmt.Sprintf("measurements %d %s %s CUSTOM", tr.ID, year, testToday),
		fmt.Sprintf("measurements %d %s %s CUSTOM", tr.ID, month, testToday),
	}
	if strings.Join(got, ";") != strings.Join(want, ";") {
		t.Fatalf("calls %q\nwant %q", got, want)
	}
}

func TestNutritionTab(t *testing.T) {
	s := newServer(t)
	c := &trackedStub{Client: s.client(s.Key)}
	d := newDriver(t, c, Options{})
	tr := openFirst(t, d)
	c.take()
	d.press("4")
	d.expect(t, "[Nutrition]", "Sat 21-11-2026 (today)", "Breakfast", "Porridge oats", "80 g", "300 kcal",
		"Semi-skimmed milk", "200 ml", "Lunch", "Chicken salad", "Day total", "850 kcal", "P 57", "C 84", "F 30.5",
		"Macro split", "P 27%", "C 40%", "F 33%")
	// Breakfast's own totals are on its line.
	for _, l := range strings.Split(d.screen(), "\n") {
		if strings.Contains(l, "Breakfast") && !strings.Contains(l, "400 kcal") {
			t.Errorf("breakfast line %q", l)
		}
	}
	d.press("left")
	d.expect(t, "Fri 20-11-2026", "Nothing logged on this day.")
	d.press("right")
	d.expect(t, "(today)", "Porridge oats")
	d.press("right") // the future: nothing asked
	d.expect(t, "Nothing is logged in the future.", "(today)")
	d.press("left", "left", "t")
	d.expect(t, "(today)")
	want := []string{
		fmt.Sprintf("nutrition %d 21-11-2026", tr.ID), fmt.Sprintf("nutrition %d 20-11-2026", tr.ID),
		fmt.Sprintf("nutrition %d 21-11-2026", tr.ID), fmt.Sprintf("nutrition %d 20-11-2026", tr.ID),
		fmt.Sprintf("nutrition %d 19-11-2026", tr.ID), fmt.Sprintf("nutrition %d 21-11-2026", tr.ID),
	}
	if got := c.take(); strings.Join(got, ";") != strings.Join(want, ";") {
		t.Fatalf("calls %q\nwant %q", got, want)
	}
}

func TestStepsTab(t *testing.T) {
	s := newServer(t)
	c := &trackedStub{Client: s.client(s.Key)}
	d := newDriver(t, c, Options{})
	openFirst(t, d)
	d.press("shift+tab")
	d.expect(t, "[Steps]", "15-11-2026 – 21-11-2026", "8,421 steps a day", "Days with data: 5 of 7", "■■■■■□□")
}

// Leaving a trainee drops the answers still on their way, and an earlier
// range's answer that arrives after a later one is dropped too.
func TestTraineeAnswersAfterMovingOnAreDropped(t *testing.T) {
	s := newServer(t)
	c := &trackedStub{Client: s.client(s.Key)}
	d := newDriver(t, c, Options{})
	openFirst(t, d)
	d.press("tab") // weight, 3M
	_, cmd := d.m.Update(kp("right"))
	sixMonths := collect(cmd) // held back
	d.press("right")          // 1Y, answered
	d.expect(t, "[1Y]")
	year := d.m.trainee.weight
	dropped := d.m.dropped
	for _, msg := range sixMonths {
		d.send(msg)
	}
	d.settle()
	if d.m.dropped != dropped+1 || d.m.trainee.weight != year {
		t.Fatalf("the 6M answer was taken (dropped %d)", d.m.dropped-dropped)
	}

	_, cmd = d.m.Update(kp("tab")) // measurements, held back
	late := collect(cmd)
	d.press("esc")
	for _, msg := range late {
		d.send(msg)
	}
	d.settle()
	if d.m.screen != screenList || d.m.trainee.measure != nil {
		t.Fatalf("a late answer changed the screen:\n%s", d.screen())
	}
	if d.m.dropped != dropped+2 {
		t.Fatalf("dropped %d, want %d", d.m.dropped, dropped+2)
	}
}
