package api

import (
	"errors"
	"net/url"
	"reflect"
	"strings"
	"testing"
)

func TestRound(t *testing.T) {
	cases := []struct {
		x    float64
		d    int
		want float64
	}{
		{81.45, 1, 81.5}, // the float is 81.4499…: the decimal half still goes up
		{81.44, 1, 81.4},
		{81.25, 1, 81.3},
		{-81.25, 1, -81.3}, // away from zero
		{0.15, 1, 0.2},
		{2.675, 2, 2.68},
		{8500.5, 0, 8501},
		{8500.49, 0, 8500},
		{179.456068, 1, 179.5},
		{0, 1, 0},
	}
	for _, c := range cases {
		if got := Round(c.x, c.d); got != c.want {
			t.Errorf("Round(%v, %d) = %v, want %v", c.x, c.d, got, c.want)
		}
	}
}

func TestWeightConversion(t *testing.T) {
	// 81.4 kg × 2.20462 = 179.456068 lb → 179.5; 100 kg = 220.462 lb → 220.5.
	for _, c := range []struct {
		kg   float64
		unit string
		want float64
	}{{81.4, UnitLB, 179.5}, {100, UnitLB, 220.5}, {81.4, UnitKG, 81.4}, {81.46, UnitKG, 81.5}} {
		if got := WeightIn(c.kg, c.unit); got != c.want {
			t.Errorf("WeightIn(%v, %s) = %v, want %v", c.kg, c.unit, got, c.want)
		}
	}
	// 180 lb in, 81.6466… kg stored, 180 lb out.
	if kg := KGFrom(180, UnitLB); Round(kg, 4) != 81.6467 || WeightIn(kg, UnitLB) != 180 {
		t.Errorf("180 lb → %v kg → %v lb", kg, WeightIn(kg, UnitLB))
	}
}

func wantValidation(t *testing.T, err error, code int, field string) {
	t.Helper()
	var v *ValidationError
	if !errors.As(err, &v) || v.Errors[0].ErrorCode != code || v.Errors[0].Field != field {
		t.Fatalf("err = %v, want %d on %q", err, code, field)
	}
}

func TestParseRange(t *testing.T) {
	today := Date{2026, 11, 21}
	q := func(s string) url.Values {
		v, err := url.ParseQuery(s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	ok := []struct{ query, from, to string }{
		{"", "23-10-2026", "21-11-2026"}, // 30 days ending today
		{"to=10-03-2026", "09-02-2026", "10-03-2026"},
		{"from=01-11-2026", "01-11-2026", "21-11-2026"},
		{"from=29-02-2024&to=01-03-2025", "29-02-2024", "01-03-2025"}, // exactly one year
		{"from=21-11-2025&to=21-11-2026", "21-11-2025", "21-11-2026"},
		{"from=05-05-2026&to=05-05-2026", "05-05-2026", "05-05-2026"},
		{"to=01-03-2024", "01-02-2024", "01-03-2024"}, // 29 days back across a leap day
	}
	for _, c := range ok {
		from, to, err := ParseRange(q(c.query), today)
		if err != nil || from.String() != c.from || to.String() != c.to {
			t.Errorf("%q: %s..%s %v, want %s..%s", c.query, from, to, err, c.from, c.to)
		}
	}
	bad := []struct {
		query string
		code  int
		field string
	}{
		{"from=29-02-2024&to=02-03-2025", CodeInvalidRange, "to"}, // one day more than a year
		{"from=21-11-2025&to=22-11-2026", CodeInvalidRange, "to"},
		{"from=02-11-2026&to=01-11-2026", CodeInvalidRange, "from"},
		{"from=22-11-2026", CodeInvalidRange, "from"}, // after the default to, today
		{"from=01-01-2020", CodeInvalidRange, "to"},
		{"from=31-02-2026", CodeInvalidDate, "from"},
		{"to=2026-11-21", CodeInvalidDate, "to"},
		{"from=", CodeInvalidDate, "from"},
		{"to=1-2-2026", CodeInvalidDate, "to"},
	}
	for _, c := range bad {
		_, _, err := ParseRange(q(c.query), today)
		t.Run(c.query, func(t *testing.T) { wantValidation(t, err, c.code, c.field) })
	}
	if _, err := ParseDay(q("date=30-02-2026"), today); err == nil {
		t.Error("30-02-2026 accepted")
	} else {
		wantValidation(t, err, CodeInvalidDate, "date")
	}
	if d, err := ParseDay(q(""), today); err != nil || d != today {
		t.Errorf("default day %v %v", d, err)
	}
	if typ, err := ParseMeasurementType(q("type=CUSTOM")); err != nil || typ != MeasureCustom {
		t.Errorf("type CUSTOM: %q %v", typ, err)
	}
	for _, s := range []string{"type=waist", "type=BICEP", "type="} {
		_, err := ParseMeasurementType(q(s))
		wantValidation(t, err, CodeInvalidEnum, "type")
	}
}

func TestBuildNutrition(t *testing.T) {
	day := Date{2026, 11, 1}
	empty := BuildNutrition(7, day, nil)
	if empty.Meals == nil || len(empty.Meals) != 0 || empty.Totals != (NutritionTotals{}) {
		t.Fatalf("empty day %+v", empty)
	}
	items := []LoggedItem{
		{MealSnack, NutritionItem{"Apple", 1, "piece", 95, 0.5, 25, 0.3}},
		{MealBreakfast, NutritionItem{"Oats", 80, "g", 300, 10, 54, 5}},
		{MealDinner, NutritionItem{"Salmon", 150.004, "g", 312.34, 30.05, 0, 19.55}},
		{MealBreakfast, NutritionItem{"Milk", 200, "ml", 100.1, 6.8, 10, 3}},
	}
	n := BuildNutrition(7, day, items)
	var order []string
	for _, m := range n.Meals {
		order = append(order, m.Meal)
	}
	if strings.Join(order, ",") != "BREAKFAST,DINNER,SNACK" {
		t.Fatalf("meals %v", order)
	}
	b := n.Meals[0]
	if len(b.Items) != 2 || b.Items[0].Name != "Oats" || b.Items[1].Name != "Milk" {
		t.Fatalf("breakfast items %+v", b.Items)
	}
	if b.Totals != (NutritionTotals{400.1, 16.8, 64, 8}) {
		t.Errorf("breakfast totals %+v", b.Totals)
	}
	// Items are rounded (quantity to 0.01, the rest to 0.1) before they are
	// added up: 312.34 → 312.3, 30.05 → 30.1, 19.55 → 19.6.
	d := n.Meals[1]
	if d.Items[0] != (NutritionItem{"Salmon", 150, "g", 312.3, 30.1, 0, 19.6}) || d.Totals != (NutritionTotals{312.3, 30.1, 0, 19.6}) {
		t.Errorf("dinner %+v", d)
	}
	// Day: 400.1 + 312.3 + 95 = 807.4; 16.8 + 30.1 + 0.5 = 47.4; 64 + 0 + 25 = 89; 8 + 19.6 + 0.3 = 27.9.
	if n.Totals != (NutritionTotals{807.4, 47.4, 89, 27.9}) {
		t.Errorf("day totals %+v", n.Totals)
	}
}

func TestBuildAverageSteps(t *testing.T) {
	today := Date{2026, 11, 21}
	a := BuildAverageSteps(3, today, 0, 0)
	if a.AverageSteps != nil || a.DaysWithData != 0 || a.From.String() != "15-11-2026" || a.To != today {
		t.Fatalf("no data %+v", a)
	}
	for _, c := range []struct {
		days  int
		total int64
		want  int64
	}{{2, 3001, 1501}, {2, 3000, 1500}, {3, 4, 1}, {3, 5, 2}, {4, 34001, 8500}, {1, 0, 0}, {7, 7 * 200000, 200000}} {
		a := BuildAverageSteps(3, today, c.days, c.total)
		if a.AverageSteps == nil || *a.AverageSteps != c.want || a.DaysWithData != c.days {
			t.Errorf("%d days, %d steps: %+v, want %d", c.days, c.total, a, c.want)
		}
	}
}

func TestParseTrackedRecord(t *testing.T) {
	today := Date{2026, 11, 21}
	good := map[string]TrackedRecord{
		`{"type":"weight","traineeId":41,"date":"01-11-2026","weight":81.4,"unit":"KG"}`: {
			Type: RecordWeight, TraineeID: 41, Date: Date{2026, 11, 1}, WeightKG: 81.4},
		`{"type":"weight","traineeId":41,"date":"21-11-2026","weight":220.462,"unit":"LB","extra":true}`: {
			Type: RecordWeight, TraineeID: 41, Date: today, WeightKG: 220.462 / LBPerKG},
		`{"type":"measurement","traineeId":41,"date":"01-11-2026","measurement":"WAIST","value":82,"unit":"CM"}`: {
			Type: RecordMeasurement, TraineeID: 41, Date: Date{2026, 11, 1},
			Measurement: Measurement{Date: Date{2026, 11, 1}, Type: MeasureWaist, Value: 82, Unit: UnitCM}},
		`{"type":"measurement","traineeId":41,"date":"01-11-2026","measurement":"CUSTOM","name":" Wrist ","value":17,"unit":"CM"}`: {
			Type: RecordMeasurement, TraineeID: 41, Date: Date{2026, 11, 1},
			Measurement: Measurement{Date: Date{2026, 11, 1}, Type: MeasureCustom, Name: ptrTo("Wrist"), Value: 17, Unit: UnitCM}},
		`{"type":"nutrition","traineeId":41,"date":"01-11-2026","meal":"BREAKFAST","name":"Oats","quantity":80,"unit":"g","calories":300,"protein":10,"carbs":54,"fat":5}`: {
			Type: RecordNutrition, TraineeID: 41, Date: Date{2026, 11, 1}, Meal: MealBreakfast,
			Item: NutritionItem{"Oats", 80, "g", 300, 10, 54, 5}},
		`{"type":"steps","traineeId":41,"date":"01-11-2026","steps":9500}`: {
			Type: RecordSteps, TraineeID: 41, Date: Date{2026, 11, 1}, Steps: 9500},
		` {"type":"workout","traineeId":41,"date":"01-11-2026"} `: {Type: RecordWorkout, TraineeID: 41, Date: Date{2026, 11, 1}},
	}
	for line, want := range good {
		got, err := ParseTrackedRecord([]byte(line), today)
		if err != nil {
			t.Errorf("%s: %v", line, err)
			continue
		}
		if !reflect.DeepEqual(*got, want) {
			t.Errorf("%s:\n got %+v\nwant %+v", line, *got, want)
		}
	}
	bad := map[string]string{
		`not json`: "not a JSON object",
		`[1]`:      "not a JSON object",
		`{"type":"workout","traineeId":41,"date":"01-11-2026"} {}`:                                                                                                      "not a JSON object",
		`{"type":"sleep","traineeId":41,"date":"01-11-2026"}`:                                                                                                           `type must be weight, measurement, nutrition, steps or workout (got "sleep")`,
		`{"traineeId":41,"date":"01-11-2026"}`:                                                                                                                          "type is required",
		`{"type":"workout","traineeId":0,"date":"01-11-2026"}`:                                                                                                          "traineeId must be a positive integer",
		`{"type":"workout","traineeId":"41","date":"01-11-2026"}`:                                                                                                       "traineeId must be an integer",
		`{"type":"workout","traineeId":41,"date":"31-02-2026"}`:                                                                                                         "date must be a real date",
		`{"type":"workout","traineeId":41,"date":"2026-11-01"}`:                                                                                                         "date must be a real date",
		`{"type":"workout","traineeId":41,"date":"22-11-2026"}`:                                                                                                         "date must be between 01-01-1900 and today (21-11-2026)",
		`{"type":"workout","traineeId":41}`:                                                                                                                             "date is required",
		`{"type":"weight","traineeId":41,"date":"01-11-2026","weight":19.9,"unit":"KG"}`:                                                                                "weight must be between 20 and 400 kg (got 19.9)",
		`{"type":"weight","traineeId":41,"date":"01-11-2026","weight":900,"unit":"LB"}`:                                                                                 "weight must be between 20 and 400 kg",
		`{"type":"weight","traineeId":41,"date":"01-11-2026","weight":44,"unit":"LB"}`:                                                                                  "weight must be between 20 and 400 kg",
		`{"type":"weight","traineeId":41,"date":"01-11-2026","weight":80,"unit":"ST"}`:                                                                                  `unit must be KG or LB (got "ST")`,
		`{"type":"weight","traineeId":41,"date":"01-11-2026","weight":"80","unit":"KG"}`:                                                                                "weight must be a number",
		`{"type":"weight","traineeId":41,"date":"01-11-2026","unit":"KG"}`:                                                                                              "weight is required",
		`{"type":"weight","traineeId":41,"date":"01-11-2026","weight":80}`:                                                                                              "unit is required",
		`{"type":"measurement","traineeId":41,"date":"01-11-2026","measurement":"BICEP","value":30,"unit":"CM"}`:                                                        "measurement must be CHEST",
		`{"type":"measurement","traineeId":41,"date":"01-11-2026","measurement":"WAIST","value":30,"unit":"PERCENT"}`:                                                   `unit must be CM or IN (got "PERCENT")`,
		`{"type":"measurement","traineeId":41,"date":"01-11-2026","measurement":"BODY_FAT","value":80,"unit":"PERCENT"}`:                                                "value must be between 1 and 75 % (got 80)",
		`{"type":"measurement","traineeId":41,"date":"01-11-2026","measurement":"BODY_FAT","value":20,"unit":"CM"}`:                                                     `unit must be PERCENT (got "CM")`,
		`{"type":"measurement","traineeId":41,"date":"01-11-2026","measurement":"WEIGHT","value":10,"unit":"KG"}`:                                                       "value must be between 20 and 400 kg",
		`{"type":"measurement","traineeId":41,"date":"01-11-2026","measurement":"WAIST","value":0,"unit":"CM"}`:                                                         "value must be above 0 and at most 300 cm",
		`{"type":"measurement","traineeId":41,"date":"01-11-2026","measurement":"WAIST","value":120,"unit":"IN"}`:                                                       "value must be above 0 and at most 300 cm (118.1 in) (got 120 IN)",
		`{"type":"measurement","traineeId":41,"date":"01-11-2026","measurement":"CUSTOM","value":17,"unit":"CM"}`:                                                       "name is required for a CUSTOM measurement",
		`{"type":"measurement","traineeId":41,"date":"01-11-2026","measurement":"CUSTOM","name":"  ","value":17,"unit":"CM"}`:                                           "name must be 1 to 100 characters",
		`{"type":"measurement","traineeId":41,"date":"01-11-2026","measurement":"WAIST","name":"x","value":80,"unit":"CM"}`:                                             "name is only for CUSTOM measurements",
		`{"type":"nutrition","traineeId":41,"date":"01-11-2026","meal":"BRUNCH","name":"Oats","quantity":80,"unit":"g","calories":300,"protein":10,"carbs":54,"fat":5}`: "meal must be BREAKFAST, LUNCH, DINNER or SNACK",
		`{"type":"nutrition","traineeId":41,"date":"01-11-2026","meal":"LUNCH","name":"Oats","quantity":80,"unit":"g","calories":300,"protein":-1,"carbs":54,"fat":5}`:  "protein must be between 0 and 2000 g (got -1)",
		`{"type":"nutrition","traineeId":41,"date":"01-11-2026","meal":"LUNCH","name":"Oats","quantity":-5,"unit":"g","calories":300,"protein":1,"carbs":54,"fat":5}`:   "quantity must be between 0 and 100000",
		`{"type":"nutrition","traineeId":41,"date":"01-11-2026","meal":"LUNCH","name":"Oats","quantity":5,"unit":"g","protein":1,"carbs":54,"fat":5}`:                   "calories is required",
		`{"type":"nutrition","traineeId":41,"date":"01-11-2026","meal":"LUNCH","name":"O\u0000ts","quantity":5,"unit":"g","calories":1,"protein":1,"carbs":54,"fat":5}`: "name must not contain NUL",
		`{"type":"steps","traineeId":41,"date":"01-11-2026","steps":200001}`:                                                                                            "steps must be an integer between 0 and 200000 (got 200001)",
		`{"type":"steps","traineeId":41,"date":"01-11-2026","steps":-1}`:                                                                                                "steps must be an integer between 0 and 200000",
		`{"type":"steps","traineeId":41,"date":"01-11-2026","steps":95.5}`:                                                                                              "steps must be an integer",
		`{"type":"steps","traineeId":41,"date":"01-11-2026","steps":1e400}`:                                                                                             "steps must be an integer",
		`{"type":"steps","traineeId":41,"date":"01-11-2026","steps":null}`:                                                                                              "steps is required",
		`{"type":"weight","traineeId":41,"date":"01-11-2026","weight":1e999}`:                                                                                           "weight must be a finite number",
	}
	for line, want := range bad {
		_, err := ParseTrackedRecord([]byte(line), today)
		var re *RecordError
		if !errors.As(err, &re) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err %v, want one containing %q", line, err, want)
		}
	}
	// Every problem of a line is listed.
	_, err := ParseTrackedRecord([]byte(`{"type":"steps","traineeId":-3,"date":"x","steps":-1}`), today)
	if err == nil || len(err.(*RecordError).Problems) != 3 {
		t.Errorf("want 3 problems: %v", err)
	}
}

func ptrTo[T any](v T) *T { return &v }

func TestMeasurementLabel(t *testing.T) {
	for in, want := range map[string]string{"BODY_FAT": "Body fat", "LEFT_ARM": "Left arm", "CHEST": "Chest", "CUSTOM": "Custom", "": ""} {
		if got := MeasurementLabel(in); got != want {
			t.Errorf("MeasurementLabel(%q) = %q, want %q", in, got, want)
		}
	}
}
