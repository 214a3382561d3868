package demo_test

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/store"
	"github.com/traineed/traineed/store/storetest"
)

// demoTrackedView is everything the API shows of the demo trainees'
// tracked data over the last year, without ids, for comparing two loads.
type demoTrackedView struct {
	Weights      [][]api.WeightEntry
	Measurements [][]api.Measurement
	Steps        []api.AverageSteps
	Today        []api.Nutrition
	LastTrained  []string
	Rows         map[string]int
}

func trackedView(t *testing.T, s *store.Store, company int64, trainees []*api.Trainee, today api.Date) demoTrackedView {
	t.Helper()
	v := demoTrackedView{Rows: map[string]int{}}
	from := today.AddYears(-1).AddDays(1)
	for _, tr := range trainees {
		wh, err := s.WeightHistory(ctx, company, tr.ID, from, today)
		if err != nil {
			t.Fatal(err)
		}
		v.Weights = append(v.Weights, wh.Entries)
		ms, err := s.Measurements(ctx, company, tr.ID, from, today, "")
		if err != nil {
			t.Fatal(err)
		}
		v.Measurements = append(v.Measurements, ms.Measurements)
		st, err := s.AverageSteps(ctx, company, tr.ID, today)
		if err != nil {
			t.Fatal(err)
		}
		st.TraineeID = 0
		v.Steps = append(v.Steps, *st)
		n, err := s.Nutrition(ctx, company, tr.ID, today)
		if err != nil {
			t.Fatal(err)
		}
		n.TraineeID = 0
		v.Today = append(v.Today, *n)
		v.LastTrained = append(v.LastTrained, fmt.Sprint(tr.LastTrained))
	}
	for _, table := range []string{"weight_entries", "measurements", "nutrition_items", "daily_steps", "workouts"} {
		v.Rows[table] = storetest.Count(t, s, table, "company_id = ?", company)
	}
	return v
}

// checkDemoTracked asserts that the demo's tracked data looks like a year
// of real use: most trainees weigh in most days, measure monthly, log
// meals, walk with gaps and train.
func checkDemoTracked(t *testing.T, s *store.Store, company int64, trainees []*api.Trainee, today api.Date, v demoTrackedView) {
	t.Helper()
	n := len(trainees)
	var yearOfWeights, measuredMonthly, withMeals, yearOfMeals, withGaps, trained, neverTrained, lb int
	for i, tr := range trainees {
		ws := v.Weights[i]
		if len(ws) >= 150 && ws[0].Date.Before(today.AddDays(-300)) {
			yearOfWeights++
		}
		for _, w := range ws {
			kg := w.Weight
			if tr.WeightUnit == api.UnitLB {
				kg /= api.LBPerKG
			}
			if kg < api.MinWeightKG || kg > api.MaxWeightKG {
				t.Fatalf("%s weighs %v %s on %s", tr.Name, w.Weight, tr.WeightUnit, w.Date)
			}
		}
		if len(ws) > 0 && tr.WeightUnit == api.UnitLB {
			lb++
		}
		waists := 0
		for _, m := range v.Measurements[i] {
			if m.Type == api.MeasureWaist {
				waists++
			}
			if (m.Type == api.MeasureCustom) != (m.Name != nil) || !slicesContains(api.MeasurementUnits(m.Type), m.Unit) {
				t.Fatalf("%s: bad measurement %+v", tr.Name, m)
			}
		}
		if waists >= 3 && waists <= 13 {
			measuredMonthly++
		}
		if len(v.Today[i].Meals) > 0 || storetest.Count(t, s, "nutrition_items", "trainee_id = ? AND day >= ?", tr.ID, today.AddDays(-6).Int()) > 0 {
			withMeals++
		}
		// Meals on most days of the year, not just recently: days with
		// meals between a year and six weeks ago.
		var oldMealDays int
		if err := storetest.DB(t, s).NewSelect().Table("nutrition_items").ColumnExpr("COUNT(DISTINCT day)").
			Where("trainee_id = ? AND day BETWEEN ? AND ?", tr.ID, today.AddDays(-364).Int(), today.AddDays(-43).Int()).
			Scan(ctx, &oldMealDays); err != nil {
			t.Fatal(err)
		}
		if oldMealDays > 322*6/10 {
			yearOfMeals++
		}
		if v.Steps[i].DaysWithData < 7 {
			withGaps++
		}
		if tr.LastTrained != nil {
			trained++
			if tr.LastTrained.After(today) {
				t.Fatalf("%s trained in the future: %s", tr.Name, tr.LastTrained)
			}
			var latest int
			if err := storetest.DB(t, s).NewSelect().Table("workouts").ColumnExpr("MAX(day)").Where("trainee_id = ?", tr.ID).Scan(ctx, &latest); err != nil || latest != tr.LastTrained.Int() {
				t.Fatalf("%s: lastTrained %s, latest workout %d (%v)", tr.Name, tr.LastTrained, latest, err)
			}
		} else {
			neverTrained++
		}
	}
	if yearOfWeights < n*6/10 {
		t.Errorf("only %d of %d trainees have a year of weights", yearOfWeights, n)
	}
	if measuredMonthly < n*6/10 {
		t.Errorf("only %d of %d trainees measure their waist monthly", measuredMonthly, n)
	}
	if yearOfMeals < n*4/10 {
		t.Errorf("only %d of %d trainees logged meals on most days of the year", yearOfMeals, n)
	}
	if withMeals < n*4/10 {
		t.Errorf("only %d of %d trainees logged meals this week", withMeals, n)
	}
	if withGaps == 0 || withGaps == n {
		t.Errorf("%d of %d trainees have gaps in this week's steps", withGaps, n)
	}
	if trained < n*7/10 || neverTrained == 0 {
		t.Errorf("%d trainees trained, %d never did", trained, neverTrained)
	}
	if lb == 0 {
		t.Error("no LB trainee has weights")
	}
	if v.Rows["measurements"] == 0 || v.Rows["nutrition_items"] < 5000 || v.Rows["weight_entries"] < 10000 {
		t.Errorf("rows %v", v.Rows)
	}
}

func slicesContains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

func compareDemoTracked(t *testing.T, a, b demoTrackedView) {
	t.Helper()
	if !reflect.DeepEqual(a, b) {
		for i := range a.Weights {
			if !reflect.DeepEqual(a.Weights[i], b.Weights[i]) {
				t.Fatalf("trainee %d: weights differ between two loads", i)
			}
		}
		t.Fatalf("two loads have different tracked data: rows %v and %v", a.Rows, b.Rows)
	}
}
