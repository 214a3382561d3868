package server_test

import (
	"context"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/traineed/traineed/api"
)

// The clock of every API test is 21-11-2026 23:30 UTC: "today" is
// 21-11-2026 for company A (UTC) and 22-11-2026 for company B (Auckland).

// record stores ingest lines for a company straight through the store
// (api.ParseTrackedRecord with a far "today", so that the fixed clock's days
// are accepted whatever the machine's date) and fails unless every record
// was stored or replaced.
func (e *env) record(company int64, lines ...string) {
	e.t.Helper()
	far := api.Date{Year: 2100, Month: 1, Day: 1}
	recs := make([]api.TrackedRecord, 0, len(lines))
	for _, l := range lines {
		r, err := api.ParseTrackedRecord([]byte(l), far)
		if err != nil {
			e.t.Fatalf("%s: %v", l, err)
		}
		recs = append(recs, *r)
	}
	res, err := e.store.IngestTracked(context.Background(), company, recs)
	must(e.t, err)
	for i, r := range res {
		if r.Status == api.IngestRejected {
			e.t.Fatalf("%s: rejected: %s", lines[i], r.Reason)
		}
	}
}

func weightLine(id int64, day string, w float64, unit string) string {
	return fmt.Sprintf(`{"type":"weight","traineeId":%d,"date":%q,"weight":%v,"unit":%q}`, id, day, w, unit)
}

func measureLine(id int64, day, typ, name string, v float64, unit string) string {
	n := ""
	if name != "" {
		n = fmt.Sprintf(`,"name":%q`, name)
	}
	return fmt.Sprintf(`{"type":"measurement","traineeId":%d,"date":%q,"measurement":%q%s,"value":%v,"unit":%q}`, id, day, typ, n, v, unit)
}

func foodLine(id int64, day, meal, name string, qty float64, unit string, kcal, p, c, f float64) string {
	return fmt.Sprintf(`{"type":"nutrition","traineeId":%d,"date":%q,"meal":%q,"name":%q,"quantity":%v,"unit":%q,"calories":%v,"protein":%v,"carbs":%v,"fat":%v}`,
		id, day, meal, name, qty, unit, kcal, p, c, f)
}

func stepsLine(id int64, day string, n int) string {
	return fmt.Sprintf(`{"type":"steps","traineeId":%d,"date":%q,"steps":%d}`, id, day, n)
}

func workoutLine(id int64, day string) string {
	return fmt.Sprintf(`{"type":"workout","traineeId":%d,"date":%q}`, id, day)
}

// get reads a tracked-data response into v after checking its status and
// timestamp.
func (e *env) get(path, key string, v any) *resp {
	e.t.Helper()
	r := e.do("GET", path, key, nil).expect(e.t, http.StatusOK)
	r.JSON(e.t, v)
	var ts struct {
		Timestamp int64 `json:"timestamp"`
	}
	r.JSON(e.t, &ts)
	if ts.Timestamp != fixedNow.Unix() {
		e.t.Fatalf("timestamp %d, want %d", ts.Timestamp, fixedNow.Unix())
	}
	return r
}

func tracked(id int64, what string) string {
	return fmt.Sprintf("/public-api/trainees/%d/%s", id, what)
}

func entries(es []api.WeightEntry) string {
	var parts []string
	for _, e := range es {
		parts = append(parts, fmt.Sprintf("%s=%v", e.Date, e.Weight))
	}
	return strings.Join(parts, " ")
}

func TestWeightHistoryAPI(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		kg := e.create(e.keyA, newTraineeBody("Kay Gee"))
		e.record(e.companyA,
			weightLine(kg.ID, "22-10-2026", 83, "KG"), // one day before the default range
			weightLine(kg.ID, "23-10-2026", 82, "KG"), // its first day
			// A day with three weights: the last one recorded counts.
			weightLine(kg.ID, "10-11-2026", 80, "KG"),
			weightLine(kg.ID, "10-11-2026", 80.6, "KG"),
			weightLine(kg.ID, "10-11-2026", 81.25, "KG"), // rounds to 81.3, half away from zero
			weightLine(kg.ID, "21-11-2026", 79.95, "KG"), // today in UTC: 80
			weightLine(kg.ID, "22-11-2026", 79, "KG"),    // tomorrow in UTC
		)
		var wh api.WeightHistory
		r := e.get(tracked(kg.ID, "weight-history"), e.keyA, &wh)
		if wh.TraineeID != kg.ID || wh.From.String() != "23-10-2026" || wh.To.String() != "21-11-2026" || wh.Unit != "KG" {
			t.Fatalf("defaults: %s", r.Body)
		}
		if got := entries(wh.Entries); got != "23-10-2026=82 10-11-2026=81.3 21-11-2026=80" {
			t.Fatalf("entries %s", got)
		}
		if !strings.Contains(string(r.Body), `{"date":"10-11-2026","weight":81.3}`) {
			t.Errorf("body %s", r.Body)
		}
		// Inclusive at both ends.
		e.get(tracked(kg.ID, "weight-history?from=22-10-2026&to=22-11-2026"), e.keyA, &wh)
		if got := entries(wh.Entries); got != "22-10-2026=83 23-10-2026=82 10-11-2026=81.3 21-11-2026=80 22-11-2026=79" {
			t.Fatalf("inclusive range: %s", got)
		}
		// Only from: to is today.
		e.get(tracked(kg.ID, "weight-history?from=10-11-2026"), e.keyA, &wh)
		if wh.To.String() != "21-11-2026" || entries(wh.Entries) != "10-11-2026=81.3 21-11-2026=80" {
			t.Fatalf("from only: %s..%s %s", wh.From, wh.To, entries(wh.Entries))
		}
		// Only to: from is 29 days before it.
		e.get(tracked(kg.ID, "weight-history?to=10-11-2026"), e.keyA, &wh)
		if wh.From.String() != "12-10-2026" || entries(wh.Entries) != "22-10-2026=83 23-10-2026=82 10-11-2026=81.3" {
			t.Fatalf("to only: %s..%s %s", wh.From, wh.To, entries(wh.Entries))
		}
		// No data: an empty list, not null.
		r = e.get(tracked(kg.ID, "weight-history?from=01-01-2026&to=31-01-2026"), e.keyA, &wh)
		if !strings.Contains(string(r.Body), `"entries":[]`) {
			t.Errorf("empty range: %s", r.Body)
		}

		// LB: converted (1 kg = 2.20462 lb), then rounded to 0.1.
		body := newTraineeBody("Pound Person")
		body["weightUnit"] = "LB"
		lb := e.create(e.keyA, body)
		e.record(e.companyA,
			weightLine(lb.ID, "01-11-2026", 81.4, "KG"), // 179.456068 lb
			weightLine(lb.ID, "02-11-2026", 180, "LB"),  // stored as 81.6466… kg
			weightLine(lb.ID, "03-11-2026", 100, "KG"),  // 220.462 lb
		)
		e.get(tracked(lb.ID, "weight-history?from=01-11-2026&to=03-11-2026"), e.keyA, &wh)
		if wh.Unit != "LB" || entries(wh.Entries) != "01-11-2026=179.5 02-11-2026=180 03-11-2026=220.5" {
			t.Fatalf("LB: %s %s", wh.Unit, entries(wh.Entries))
		}
		e.do("PUT", fmt.Sprintf("/public-api/trainees/%d", lb.ID), e.keyA, map[string]any{"weightUnit": "KG"}).expect(t, 200)
		e.get(tracked(lb.ID, "weight-history?from=01-11-2026&to=03-11-2026"), e.keyA, &wh)
		if wh.Unit != "KG" || entries(wh.Entries) != "01-11-2026=81.4 02-11-2026=81.6 03-11-2026=100" {
			t.Fatalf("back in KG: %s %s", wh.Unit, entries(wh.Entries))
		}

		// A leap-year range: exactly one calendar year from 29-02-2024 ends
		// on 01-03-2025; one day more is a 1011.
		e.record(e.companyA,
			weightLine(kg.ID, "28-02-2024", 75, "KG"),
			weightLine(kg.ID, "29-02-2024", 76, "KG"),
			weightLine(kg.ID, "01-03-2025", 77, "KG"),
			weightLine(kg.ID, "02-03-2025", 78, "KG"),
		)
		e.get(tracked(kg.ID, "weight-history?from=29-02-2024&to=01-03-2025"), e.keyA, &wh)
		if entries(wh.Entries) != "29-02-2024=76 01-03-2025=77" {
			t.Fatalf("leap year: %s", entries(wh.Entries))
		}
		e.do("GET", tracked(kg.ID, "weight-history?from=29-02-2024&to=02-03-2025"), e.keyA, nil).expectError(t, api.CodeInvalidRange, "to")
		e.do("GET", tracked(kg.ID, "weight-history?from=21-11-2025"), e.keyA, nil).expect(t, 200)                             // one year to today
		e.do("GET", tracked(kg.ID, "weight-history?from=20-11-2025"), e.keyA, nil).expectError(t, api.CodeInvalidRange, "to") // a day more
		e.do("GET", tracked(kg.ID, "weight-history?from=05-11-2026&to=01-11-2026"), e.keyA, nil).expectError(t, api.CodeInvalidRange, "from")
		e.do("GET", tracked(kg.ID, "weight-history?from=22-11-2026"), e.keyA, nil).expectError(t, api.CodeInvalidRange, "from") // after today
		e.do("GET", tracked(kg.ID, "weight-history?from=31-02-2026"), e.keyA, nil).expectError(t, api.CodeInvalidDate, "from")
		e.do("GET", tracked(kg.ID, "weight-history?to=2026-11-21"), e.keyA, nil).expectError(t, api.CodeInvalidDate, "to")
		e.do("GET", tracked(kg.ID, "weight-history?from="), e.keyA, nil).expectError(t, api.CodeInvalidDate, "from")

		// Company B's today is 22-11-2026 (Auckland) while it is 21-11 in UTC.
		nz := e.create(e.keyB, newTraineeBody("Kiwi Weigher"))
		e.record(e.companyB,
			weightLine(nz.ID, "23-10-2026", 72, "KG"),
			weightLine(nz.ID, "24-10-2026", 71, "KG"),
			weightLine(nz.ID, "22-11-2026", 70, "KG"),
		)
		e.get(tracked(nz.ID, "weight-history"), e.keyB, &wh)
		if wh.From.String() != "24-10-2026" || wh.To.String() != "22-11-2026" || entries(wh.Entries) != "24-10-2026=71 22-11-2026=70" {
			t.Fatalf("Auckland: %s..%s %s", wh.From, wh.To, entries(wh.Entries))
		}
	})
}

func TestMeasurementsAPI(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		tr := e.create(e.keyA, newTraineeBody("Tape Measure"))
		e.record(e.companyA,
			measureLine(tr.ID, "20-10-2026", "WAIST", "", 85, "CM"), // before the default range
			measureLine(tr.ID, "05-11-2026", "WAIST", "", 82.25, "CM"),
			measureLine(tr.ID, "05-11-2026", "CUSTOM", "Wrist", 17, "CM"),
			measureLine(tr.ID, "05-11-2026", "BODY_FAT", "", 18.5, "PERCENT"),
			measureLine(tr.ID, "05-11-2026", "CUSTOM", "Forearm", 11.04, "IN"),
			measureLine(tr.ID, "05-11-2026", "CHEST", "", 100, "CM"),
			measureLine(tr.ID, "01-11-2026", "HIPS", "", 95, "CM"),
			measureLine(tr.ID, "20-11-2026", "WAIST", "", 81, "CM"),
			measureLine(tr.ID, "20-11-2026", "WAIST", "", 80.5, "CM"), // appended, not replacing
			measureLine(tr.ID, "21-11-2026", "WEIGHT", "", 180, "LB"),
		)
		var ms api.Measurements
		r := e.get(tracked(tr.ID, "measurements"), e.keyA, &ms)
		if ms.TraineeID != tr.ID || ms.From.String() != "23-10-2026" || ms.To.String() != "21-11-2026" {
			t.Fatalf("defaults: %s", r.Body)
		}
		s := func(p *string) string {
			if p == nil {
				return "-"
			}
			return *p
		}
		list := func(ms []api.Measurement) string {
			var parts []string
			for _, m := range ms {
				parts = append(parts, fmt.Sprintf("%s %s %s %v %s", m.Date, m.Type, s(m.Name), m.Value, m.Unit))
			}
			return strings.Join(parts, "; ")
		}
		want := "01-11-2026 HIPS - 95 CM; 05-11-2026 BODY_FAT - 18.5 PERCENT; 05-11-2026 CHEST - 100 CM; " +
			"05-11-2026 CUSTOM Forearm 11 IN; 05-11-2026 CUSTOM Wrist 17 CM; 05-11-2026 WAIST - 82.3 CM; " +
			"20-11-2026 WAIST - 81 CM; 20-11-2026 WAIST - 80.5 CM; 21-11-2026 WEIGHT - 180 LB"
		if got := list(ms.Measurements); got != want {
			t.Fatalf("measurements\n got %s\nwant %s", got, want)
		}
		if !strings.Contains(string(r.Body), `{"date":"01-11-2026","type":"HIPS","name":null,"value":95,"unit":"CM"}`) {
			t.Errorf("body %s", r.Body)
		}
		e.get(tracked(tr.ID, "measurements?type=WAIST&from=01-10-2026"), e.keyA, &ms)
		if got := list(ms.Measurements); got != "20-10-2026 WAIST - 85 CM; 05-11-2026 WAIST - 82.3 CM; 20-11-2026 WAIST - 81 CM; 20-11-2026 WAIST - 80.5 CM" {
			t.Fatalf("WAIST: %s", got)
		}
		e.get(tracked(tr.ID, "measurements?type=CUSTOM"), e.keyA, &ms)
		if got := list(ms.Measurements); got != "05-11-2026 CUSTOM Forearm 11 IN; 05-11-2026 CUSTOM Wrist 17 CM" {
			t.Fatalf("CUSTOM: %s", got)
		}
		r = e.get(tracked(tr.ID, "measurements?type=NECK"), e.keyA, &ms)
		if !strings.Contains(string(r.Body), `"measurements":[]`) {
			t.Errorf("no NECK: %s", r.Body)
		}
		e.do("GET", tracked(tr.ID, "measurements?type=waist"), e.keyA, nil).expectError(t, api.CodeInvalidEnum, "type")
		e.do("GET", tracked(tr.ID, "measurements?type=BICEP"), e.keyA, nil).expectError(t, api.CodeInvalidEnum, "type")
		e.do("GET", tracked(tr.ID, "measurements?from=30-02-2026"), e.keyA, nil).expectError(t, api.CodeInvalidDate, "from")
		e.do("GET", tracked(tr.ID, "measurements?from=01-01-2025&to=02-01-2026"), e.keyA, nil).expectError(t, api.CodeInvalidRange, "to")
	})
}

func TestNutritionAPI(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		tr := e.create(e.keyA, newTraineeBody("Meal Logger"))
		e.record(e.companyA,
			foodLine(tr.ID, "01-11-2026", "SNACK", "Apple", 1, "piece", 95, 0.5, 25, 0.3),
			foodLine(tr.ID, "01-11-2026", "BREAKFAST", "Oats", 80, "g", 300, 10, 54, 5),
			foodLine(tr.ID, "01-11-2026", "DINNER", "Salmon", 150.004, "g", 312.34, 30.05, 0, 19.55),
			foodLine(tr.ID, "01-11-2026", "BREAKFAST", "Milk", 200, "ml", 100.1, 6.8, 10, 3),
			foodLine(tr.ID, "21-11-2026", "LUNCH", "Soup", 300, "ml", 150, 6, 20, 4),
		)
		var n api.Nutrition
		e.get(tracked(tr.ID, "nutrition?date=01-11-2026"), e.keyA, &n)
		want := api.Nutrition{Timestamp: fixedNow.Unix(), TraineeID: tr.ID, Date: api.Date{Year: 2026, Month: 11, Day: 1},
			Meals: []api.Meal{
				{Meal: "BREAKFAST", Items: []api.NutritionItem{
					{Name: "Oats", Quantity: 80, Unit: "g", Calories: 300, Protein: 10, Carbs: 54, Fat: 5},
					{Name: "Milk", Quantity: 200, Unit: "ml", Calories: 100.1, Protein: 6.8, Carbs: 10, Fat: 3},
				}, Totals: api.NutritionTotals{Calories: 400.1, Protein: 16.8, Carbs: 64, Fat: 8}},
				// Rounded: quantity to 0.01, the rest to 0.1, before adding up.
				{Meal: "DINNER", Items: []api.NutritionItem{
					{Name: "Salmon", Quantity: 150, Unit: "g", Calories: 312.3, Protein: 30.1, Carbs: 0, Fat: 19.6},
				}, Totals: api.NutritionTotals{Calories: 312.3, Protein: 30.1, Carbs: 0, Fat: 19.6}},
				{Meal: "SNACK", Items: []api.NutritionItem{
					{Name: "Apple", Quantity: 1, Unit: "piece", Calories: 95, Protein: 0.5, Carbs: 25, Fat: 0.3},
				}, Totals: api.NutritionTotals{Calories: 95, Protein: 0.5, Carbs: 25, Fat: 0.3}},
			},
			// 400.1 + 312.3 + 95, 16.8 + 30.1 + 0.5, 64 + 0 + 25, 8 + 19.6 + 0.3
			Totals: api.NutritionTotals{Calories: 807.4, Protein: 47.4, Carbs: 89, Fat: 27.9},
		}
		if !reflect.DeepEqual(n, want) {
			t.Fatalf("nutrition\n got %+v\nwant %+v", n, want)
		}
		// Appended: logging the same item again adds it.
		e.record(e.companyA, foodLine(tr.ID, "01-11-2026", "SNACK", "Apple", 1, "piece", 95, 0.5, 25, 0.3))
		e.get(tracked(tr.ID, "nutrition?date=01-11-2026"), e.keyA, &n)
		if len(n.Meals[2].Items) != 2 || n.Meals[2].Totals.Calories != 190 || n.Totals.Calories != 902.4 {
			t.Fatalf("appended snack: %+v", n)
		}

		// An empty day.
		r := e.get(tracked(tr.ID, "nutrition?date=02-11-2026"), e.keyA, &n)
		if !strings.Contains(string(r.Body), `"meals":[],"totals":{"calories":0,"protein":0,"carbs":0,"fat":0}`) || n.Date.String() != "02-11-2026" {
			t.Fatalf("empty day: %s", r.Body)
		}
		// The default date is today: 21-11-2026 for company A...
		e.get(tracked(tr.ID, "nutrition"), e.keyA, &n)
		if n.Date.String() != "21-11-2026" || len(n.Meals) != 1 || n.Meals[0].Meal != "LUNCH" || n.Totals.Calories != 150 {
			t.Fatalf("A's today: %+v", n)
		}
		// ...and 22-11-2026 for company B in Auckland.
		nz := e.create(e.keyB, newTraineeBody("Kiwi Eater"))
		e.record(e.companyB,
			foodLine(nz.ID, "21-11-2026", "DINNER", "Pie", 1, "piece", 500, 20, 40, 30),
			foodLine(nz.ID, "22-11-2026", "BREAKFAST", "Toast", 2, "slice", 160, 8, 24, 2),
		)
		e.get(tracked(nz.ID, "nutrition"), e.keyB, &n)
		if n.Date.String() != "22-11-2026" || len(n.Meals) != 1 || n.Meals[0].Items[0].Name != "Toast" {
			t.Fatalf("B's today: %+v", n)
		}
		e.do("GET", tracked(tr.ID, "nutrition?date=31-02-2026"), e.keyA, nil).expectError(t, api.CodeInvalidDate, "date")
		e.do("GET", tracked(tr.ID, "nutrition?date=2026-11-01"), e.keyA, nil).expectError(t, api.CodeInvalidDate, "date")
	})
}

func TestAverageStepsAPI(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		walker := e.create(e.keyA, newTraineeBody("Walker"))
		half := e.create(e.keyA, newTraineeBody("Half Step"))
		idle := e.create(e.keyA, newTraineeBody("Idle"))
		e.record(e.companyA,
			stepsLine(walker.ID, "14-11-2026", 50000), // before the window
			stepsLine(walker.ID, "15-11-2026", 8000),  // its first day
			stepsLine(walker.ID, "16-11-2026", 9001),
			// 17-11 missing: left out of the mean, not a zero
			stepsLine(walker.ID, "18-11-2026", 10000),
			// 19-11 and 20-11 missing
			stepsLine(walker.ID, "21-11-2026", 7000),  // today
			stepsLine(walker.ID, "22-11-2026", 50000), // tomorrow in UTC
			stepsLine(half.ID, "20-11-2026", 1000),
			stepsLine(half.ID, "21-11-2026", 2001),
		)
		var a api.AverageSteps
		// (8000 + 9001 + 10000 + 7000) / 4 = 8500.25
		e.get(tracked(walker.ID, "average-steps"), e.keyA, &a)
		if a.TraineeID != walker.ID || a.From.String() != "15-11-2026" || a.To.String() != "21-11-2026" ||
			a.AverageSteps == nil || *a.AverageSteps != 8500 || a.DaysWithData != 4 {
			t.Fatalf("walker: %+v", a)
		}
		// (1000 + 2001) / 2 = 1500.5: halves go away from zero.
		e.get(tracked(half.ID, "average-steps"), e.keyA, &a)
		if a.AverageSteps == nil || *a.AverageSteps != 1501 || a.DaysWithData != 2 {
			t.Fatalf("half: %+v", a)
		}
		r := e.get(tracked(idle.ID, "average-steps"), e.keyA, &a)
		if !strings.Contains(string(r.Body), `"averageSteps":null,"daysWithData":0`) {
			t.Fatalf("idle: %s", r.Body)
		}
		// Re-ingesting a day replaces its count: (8000 + 9001 + 10000 + 9000) / 4 = 9000.25.
		e.record(e.companyA, stepsLine(walker.ID, "21-11-2026", 9000))
		e.get(tracked(walker.ID, "average-steps"), e.keyA, &a)
		if *a.AverageSteps != 9000 || a.DaysWithData != 4 {
			t.Fatalf("replaced: %+v", a)
		}

		// Company B: the window is 16-11 to 22-11-2026 in Auckland.
		nz := e.create(e.keyB, newTraineeBody("Kiwi Walker"))
		e.record(e.companyB,
			stepsLine(nz.ID, "15-11-2026", 9999), // outside B's window, inside A's
			stepsLine(nz.ID, "16-11-2026", 4001),
			stepsLine(nz.ID, "22-11-2026", 6000),
		)
		e.get(tracked(nz.ID, "average-steps"), e.keyB, &a)
		if a.From.String() != "16-11-2026" || a.To.String() != "22-11-2026" || a.AverageSteps == nil || *a.AverageSteps != 5001 || a.DaysWithData != 2 {
			t.Fatalf("Auckland: %+v", a)
		}
	})
}

func TestWorkoutsMoveLastTrained(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		tr := e.create(e.keyA, newTraineeBody("Gym Goer"))
		path := fmt.Sprintf("/public-api/trainees/%d", tr.ID)
		last := func() string {
			t.Helper()
			got := e.do("GET", path, e.keyA, nil).expect(t, 200).trainee(t)
			if got.LastTrained == nil {
				return "null"
			}
			return got.LastTrained.String()
		}
		if l := last(); l != "null" {
			t.Fatalf("new trainee lastTrained %s", l)
		}
		e.record(e.companyA, workoutLine(tr.ID, "10-11-2026"), workoutLine(tr.ID, "08-11-2026"))
		if l := last(); l != "10-11-2026" {
			t.Fatalf("after workouts: %s", l)
		}
		e.record(e.companyA, workoutLine(tr.ID, "05-11-2026"))
		if l := last(); l != "10-11-2026" {
			t.Fatalf("an older workout moved lastTrained back: %s", l)
		}
		e.record(e.companyA, workoutLine(tr.ID, "12-11-2026"))
		if l := last(); l != "12-11-2026" {
			t.Fatalf("a newer workout: %s", l)
		}
		// Sorting by lastTrained sees it.
		other := e.create(e.keyA, newTraineeBody("Gym Rookie"))
		e.record(e.companyA, workoutLine(other.ID, "01-11-2026"))
		var page api.TraineePage
		e.do("GET", "/public-api/trainees/search?sort=lastTrained,desc&q=gym", e.keyA, nil).expect(t, 200).JSON(t, &page)
		if len(page.Content) != 2 || page.Content[0].ID != tr.ID || page.Content[1].ID != other.ID {
			t.Fatalf("sort by lastTrained: %+v", page.Content)
		}
	})
}

func TestTrackedForeignAndUnknownIDs(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		theirs := e.create(e.keyB, newTraineeBody("Not Yours"))
		e.record(e.companyB, weightLine(theirs.ID, "20-11-2026", 70, "KG"), stepsLine(theirs.ID, "20-11-2026", 5000))
		mine := e.create(e.keyA, newTraineeBody("Mine"))
		for _, what := range []string{"weight-history", "measurements", "nutrition", "average-steps"} {
			for _, id := range []int64{theirs.ID, 987654321} {
				e.do("GET", tracked(id, what), e.keyA, nil).expectNotFound(t)
			}
			e.do("GET", tracked(mine.ID, what), e.keyB, nil).expectNotFound(t)
			e.do("GET", "/public-api/trainees/abc/"+what, e.keyA, nil).expectError(t, api.CodeInvalidParameter, "id")
			e.do("GET", "/public-api/trainees/0/"+what, e.keyA, nil).expectError(t, api.CodeInvalidParameter, "id")
			e.do("GET", tracked(mine.ID, what), "", nil).expect(t, http.StatusUnauthorized)
			r := e.do("POST", tracked(mine.ID, what), e.keyA, nil).expect(t, http.StatusMethodNotAllowed)
			if allow := r.Header.Get("Allow"); !strings.Contains(allow, "GET") {
				t.Errorf("%s: Allow %q", what, allow)
			}
			// Their own company sees them.
			e.do("GET", tracked(theirs.ID, what), e.keyB, nil).expect(t, http.StatusOK)
		}
		// Parameters are checked before the trainee: a bad date is a 400
		// whoever the id belongs to.
		e.do("GET", tracked(theirs.ID, "weight-history?from=32-01-2026"), e.keyA, nil).expectError(t, api.CodeInvalidDate, "from")
	})
}

// GET /trainees/{id}/steps: each day with a count in the range, oldest
// first (the default range the last 30 days to today, in the company's
// zone); a re-ingested day shows its last count; another company's
// trainee is the empty 500; a bad range is a 400.
func TestDailyStepsAPI(t *testing.T) {
	each(t, func(t *testing.T, e *env) {
		walker := e.create(e.keyA, newTraineeBody("Walker"))
		e.record(e.companyA,
			stepsLine(walker.ID, "21-10-2026", 1),    // before the default range
			stepsLine(walker.ID, "23-10-2026", 4000), // its first day
			stepsLine(walker.ID, "15-11-2026", 8000),
			stepsLine(walker.ID, "21-11-2026", 7000), // today
			stepsLine(walker.ID, "22-11-2026", 9999), // tomorrow in UTC
		)
		e.record(e.companyA, stepsLine(walker.ID, "15-11-2026", 8500))
		var d api.DailySteps
		e.get(tracked(walker.ID, "steps"), e.keyA, &d)
		var got []string
		for _, s := range d.Days {
			got = append(got, fmt.Sprintf("%s=%d", s.Date, s.Steps))
		}
		if d.TraineeID != walker.ID || d.From.String() != "23-10-2026" || d.To.String() != "21-11-2026" ||
			strings.Join(got, " ") != "23-10-2026=4000 15-11-2026=8500 21-11-2026=7000" {
			t.Fatalf("default range: %+v %v", d, got)
		}
		e.get(tracked(walker.ID, "steps")+"?from=21-10-2026&to=22-10-2026", e.keyA, &d)
		if len(d.Days) != 1 || d.Days[0].Steps != 1 {
			t.Fatalf("an old range: %+v", d)
		}
		r := e.get(tracked(walker.ID, "steps")+"?from=01-01-2026&to=02-01-2026", e.keyA, &d)
		if !strings.Contains(string(r.Body), `"days":[]`) {
			t.Fatalf("no data: %s", r.Body)
		}
		e.do("GET", tracked(walker.ID, "steps")+"?from=22-11-2026&to=21-11-2026", e.keyA, nil).expectError(t, api.CodeInvalidRange, "from")
		e.do("GET", tracked(walker.ID, "steps"), e.keyB, nil).expectNotFound(t)
	})
}
