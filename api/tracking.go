package api

import (
	"context"
	"math"
	"net/url"
	"strings"
)

// Tracked data: the wire types of the four read-only endpoints of contract
// section 3 "Tracked data", the rules that shape them (ranges, conversion,
// rounding, grouping, averaging) and the store interface behind them. The
// ingest record format is in ingest.go.
//
// Rounding (documented in openapi.yaml): weights are converted to the
// trainee's unit and then rounded to 0.1; measurement values, nutrition
// calories and macros are rounded to 0.1 and quantities to 0.01. Nutrition
// totals are the sums of the rounded item values (so they always equal
// what the caller can add up), rounded to 0.1 again. Every rounding is
// half away from zero on the decimal value (81.45 becomes 81.5).

// WeightHistory is the body of GET /trainees/{id}/weight-history.
type WeightHistory struct {
	Timestamp int64         `json:"timestamp"`
	TraineeID int64         `json:"traineeId"`
	From      Date          `json:"from"`
	To        Date          `json:"to"`
	Unit      string        `json:"unit"`
	Entries   []WeightEntry `json:"entries"`
}

// WeightEntry is the weight of one day, in the history's unit.
type WeightEntry struct {
	Date   Date    `json:"date"`
	Weight float64 `json:"weight"`
}

// Measurements is the body of GET /trainees/{id}/measurements.
type Measurements struct {
	Timestamp    int64         `json:"timestamp"`
	TraineeID    int64         `json:"traineeId"`
	From         Date          `json:"from"`
	To           Date          `json:"to"`
	Measurements []Measurement `json:"measurements"`
}

// Measurement is one recorded body measurement. Name is set for CUSTOM
// measurements only.
type Measurement struct {
	Date  Date    `json:"date"`
	Type  string  `json:"type"`
	Name  *string `json:"name"`
	Value float64 `json:"value"`
	Unit  string  `json:"unit"`
}

// Nutrition is the body of GET /trainees/{id}/nutrition: one day.
type Nutrition struct {
	Timestamp int64           `json:"timestamp"`
	TraineeID int64           `json:"traineeId"`
	Date      Date            `json:"date"`
	Meals     []Meal          `json:"meals"`
	Totals    NutritionTotals `json:"totals"`
}

// Meal is one meal of a day with its items and their totals.
type Meal struct {
	Meal   string          `json:"meal"`
	Items  []NutritionItem `json:"items"`
	Totals NutritionTotals `json:"totals"`
}

// NutritionItem is one thing eaten. Protein, carbs and fat are grams.
type NutritionItem struct {
	Name     string  `json:"name"`
	Quantity float64 `json:"quantity"`
	Unit     string  `json:"unit"`
	Calories float64 `json:"calories"`
	Protein  float64 `json:"protein"`
	Carbs    float64 `json:"carbs"`
	Fat      float64 `json:"fat"`
}

// NutritionTotals sums items.
type NutritionTotals struct {
	Calories float64 `json:"calories"`
	Protein  float64 `json:"protein"`
	Carbs    float64 `json:"carbs"`
	Fat      float64 `json:"fat"`
}

// DailySteps is the body of GET /trainees/{id}/steps: the steps of each
// day of the range that has a count, oldest first.
type DailySteps struct {
	Timestamp int64      `json:"timestamp"`
	TraineeID int64      `json:"traineeId"`
	From      Date       `json:"from"`
	To        Date       `json:"to"`
	Days      []StepsDay `json:"days"`
}

// StepsDay is one day's step count.
type StepsDay struct {
	Date  Date  `json:"date"`
	Steps int64 `json:"steps"`
}

// AverageSteps is the body of GET /trainees/{id}/average-steps.
type AverageSteps struct {
	Timestamp    int64  `json:"timestamp"`
	TraineeID    int64  `json:"traineeId"`
	From         Date   `json:"from"`
	To           Date   `json:"to"`
	AverageSteps *int64 `json:"averageSteps"`
	DaysWithData int    `json:"daysWithData"`
}

// TrackedStore is what the handler needs to read tracked data. Every
// method takes the caller's company id; a trainee id that is not a trainee
// of that company (another company's, or none) is ErrNotFound. Results
// carry everything but Timestamp, already converted and rounded.
type TrackedStore interface {
	// WeightHistory returns the daily weights of [from, to] in the
	// trainee's unit, oldest first.
	WeightHistory(ctx context.Context, companyID, traineeID int64, from, to Date) (*WeightHistory, error)
	// Measurements returns the measurements of [from, to], of type typ
	// only unless typ is "", by date, type and name.
	Measurements(ctx context.Context, companyID, traineeID int64, from, to Date, typ string) (*Measurements, error)
	// Nutrition returns the meals logged on day.
	Nutrition(ctx context.Context, companyID, traineeID int64, day Date) (*Nutrition, error)
	// AverageSteps returns the mean daily steps of the 7 days ending today.
	AverageSteps(ctx context.Context, companyID, traineeID int64, today Date) (*AverageSteps, error)
	// Steps returns the step count of each day of [from, to] that has
	// one, oldest first.
	Steps(ctx context.Context, companyID, traineeID int64, from, to Date) (*DailySteps, error)
}

// Store is everything the handler needs from storage.
type Store interface {
	TraineeStore
	TrackedStore
	WebhookStore
	AutomationStore
	IdempotencyStore
	LifecycleStore
	ErasedChecker
	AdminStore
}

// Measurement types.
const (
	MeasureChest      = "CHEST"
	MeasureWaist      = "WAIST"
	MeasureHips       = "HIPS"
	MeasureNeck       = "NECK"
	MeasureShoulders  = "SHOULDERS"
	MeasureLeftArm    = "LEFT_ARM"
	MeasureRightArm   = "RIGHT_ARM"
	MeasureLeftThigh  = "LEFT_THIGH"
	MeasureRightThigh = "RIGHT_THIGH"
	MeasureLeftCalf   = "LEFT_CALF"
	MeasureRightCalf  = "RIGHT_CALF"
	MeasureBodyFat    = "BODY_FAT"
	MeasureWeight     = "WEIGHT"
	MeasureCustom     = "CUSTOM"
)

// Measurement units.
const (
	UnitCM      = "CM"
	UnitIN      = "IN"
	UnitPercent = "PERCENT"
)

// MeasurementTypes lists every measurement type in contract order.
var MeasurementTypes = []string{
	MeasureChest, MeasureWaist, MeasureHips, MeasureNeck, MeasureShoulders, MeasureLeftArm, MeasureRightArm,
	MeasureLeftThigh, MeasureRightThigh, MeasureLeftCalf, MeasureRightCalf, MeasureBodyFat, MeasureWeight, MeasureCustom,
}

// measurementUnits are the units each type may be recorded in.
var measurementUnits = func() map[string][]string {
	m := map[string][]string{
		MeasureBodyFat: {UnitPercent},
		MeasureWeight:  {UnitKG, UnitLB},
		MeasureCustom:  {UnitCM, UnitIN, UnitPercent, UnitKG, UnitLB},
	}
	for _, t := range MeasurementTypes[:11] {
		m[t] = []string{UnitCM, UnitIN}
	}
	return m
}()

// MeasurementLabel is a measurement type in words, for people: "Body fat"
// for BODY_FAT, "Left arm" for LEFT_ARM, "Custom" for CUSTOM. The wire and
// JSON keep the enum.
func MeasurementLabel(t string) string {
	if t == "" {
		return ""
	}
	s := strings.ToLower(strings.ReplaceAll(t, "_", " "))
	return strings.ToUpper(s[:1]) + s[1:]
}

// IsMeasurementType reports whether t is one of MeasurementTypes.
func IsMeasurementType(t string) bool { return measurementUnits[t] != nil }

// MeasurementUnits returns the units a measurement type may be recorded in
// (nil for an unknown type).
func MeasurementUnits(t string) []string { return measurementUnits[t] }

// Meals, in the order a day lists them.
const (
	MealBreakfast = "BREAKFAST"
	MealLunch     = "LUNCH"
	MealDinner    = "DINNER"
	MealSnack     = "SNACK"
)

// MealOrder is the order of meals in a day.
var MealOrder = []string{MealBreakfast, MealLunch, MealDinner, MealSnack}

// IsMeal reports whether m is one of MealOrder.
func IsMeal(m string) bool {
	for _, x := range MealOrder {
		if x == m {
			return true
		}
	}
	return false
}

// LBPerKG converts kilograms to pounds (contract section 3).
const LBPerKG = 2.20462

// Range limits of the tracked-data reads.
const (
	// DefaultRangeDays is the length of a range without from: to and the
	// 29 days before it.
	DefaultRangeDays = 30
	// StepsWindowDays is the average-steps window: today and the 6 days
	// before it.
	StepsWindowDays = 7
)

// Round rounds x to decimals places, halves away from zero, on the
// decimal value x stands for: x is first taken to the nearest millionth,
// so float noise (81.45 is stored as 81.4499999…) cannot move a half.
// decimals is 0 to 6.
func Round(x float64, decimals int) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) || math.Abs(x) >= 1e12 || decimals < 0 || decimals > 6 {
		return x
	}
	micro := int64(math.Round(x * 1e6))
	step := int64(math.Pow10(6 - decimals))
	q, rem := micro/step, micro%step
	switch {
	case 2*rem >= step:
		q++
	case 2*rem <= -step:
		q--
	}
	return float64(q) / math.Pow10(decimals)
}

// WeightIn converts a weight in kilograms to unit (KG or LB) and rounds it
// to 0.1.
func WeightIn(kg float64, unit string) float64 {
	if unit == UnitLB {
		kg *= LBPerKG
	}
	return Round(kg, 1)
}

// KGFrom converts a weight in unit (KG or LB) to kilograms, unrounded.
func KGFrom(w float64, unit string) float64 {
	if unit == UnitLB {
		return w / LBPerKG
	}
	return w
}

// RoundItem rounds an item as responses show it: quantity to 0.01,
// calories and macros to 0.1.
func RoundItem(it NutritionItem) NutritionItem {
	it.Quantity = Round(it.Quantity, 2)
	it.Calories = Round(it.Calories, 1)
	it.Protein = Round(it.Protein, 1)
	it.Carbs = Round(it.Carbs, 1)
	it.Fat = Round(it.Fat, 1)
	return it
}

func (t *NutritionTotals) add(c, p, cb, f float64) {
	t.Calories += c
	t.Protein += p
	t.Carbs += cb
	t.Fat += f
}

func (t NutritionTotals) rounded() NutritionTotals {
	return NutritionTotals{Round(t.Calories, 1), Round(t.Protein, 1), Round(t.Carbs, 1), Round(t.Fat, 1)}
}

// LoggedItem is one nutrition item as stored: its meal and the item.
type LoggedItem struct {
	Meal string
	Item NutritionItem
}

// BuildNutrition groups a day's items (in the order they were logged) into
// meals in MealOrder, rounds them and computes per-meal and day totals.
// Meals without items are left out; no items gives Meals [] and zero
// totals.
func BuildNutrition(traineeID int64, day Date, items []LoggedItem) *Nutrition {
	n := &Nutrition{TraineeID: traineeID, Date: day, Meals: []Meal{}}
	for _, meal := range MealOrder {
		m := Meal{Meal: meal, Items: []NutritionItem{}}
		for _, li := range items {
			if li.Meal != meal {
				continue
			}
			it := RoundItem(li.Item)
			m.Items = append(m.Items, it)
			m.Totals.add(it.Calories, it.Protein, it.Carbs, it.Fat)
		}
		if len(m.Items) == 0 {
			continue
		}
		m.Totals = m.Totals.rounded()
		n.Totals.add(m.Totals.Calories, m.Totals.Protein, m.Totals.Carbs, m.Totals.Fat)
		n.Meals = append(n.Meals, m)
	}
	n.Totals = n.Totals.rounded()
	return n
}

// StepsWindow returns the average-steps window ending today.
func StepsWindow(today Date) (from, to Date) { return today.AddDays(1 - StepsWindowDays), today }

// BuildAverageSteps makes the average-steps body from the number of days
// of the window with a record and their total: the mean rounded to the
// nearest integer, halves away from zero; nil when no day has data.
func BuildAverageSteps(traineeID int64, today Date, days int, total int64) *AverageSteps {
	from, to := StepsWindow(today)
	a := &AverageSteps{TraineeID: traineeID, From: from, To: to, DaysWithData: days}
	if days > 0 {
		n := int64(days)
		// Step counts are never negative: (2·total + n) / 2n rounds halves up.
		avg := (2*total + n) / (2 * n)
		a.AverageSteps = &avg
	}
	return a
}

// ParseRange reads the from and to query parameters of a range read:
// inclusive; to defaults to today and from to 29 days before to. A value
// that is not a real dd-MM-yyyy date is a 1005; from after to, or to later
// than from plus one calendar year, a 1011 (exactly one year is allowed:
// from 29-02-2024, to may be 01-03-2025).
func ParseRange(q url.Values, today Date) (from, to Date, err error) {
	v := &ValidationError{}
	checkParam(v, "from", q.Get("from"))
	checkParam(v, "to", q.Get("to"))
	if err := v.Err(); err != nil {
		return Date{}, Date{}, err
	}
	to = today
	if q.Has("to") {
		d, derr := ParseDate(q.Get("to"))
		if derr != nil {
			v.Add(CodeInvalidDate, "to", "to must be a real date written dd-MM-yyyy")
		}
		to = d
	}
	hasFrom := q.Has("from")
	if hasFrom {
		d, derr := ParseDate(q.Get("from"))
		if derr != nil {
			v.Add(CodeInvalidDate, "from", "from must be a real date written dd-MM-yyyy")
		}
		from = d
	}
	if err := v.Err(); err != nil {
		return Date{}, Date{}, err
	}
	if !hasFrom {
		from = to.AddDays(1 - DefaultRangeDays)
	}
	switch {
	case from.After(to):
		return Date{}, Date{}, Invalid(CodeInvalidRange, "from", "from (%s) is after to (%s)", from, to)
	case to.After(from.AddYears(1)):
		return Date{}, Date{}, Invalid(CodeInvalidRange, "to", "the range is longer than one year: to may be at most %s", from.AddYears(1))
	}
	return from, to, nil
}

// ParseDay reads the date query parameter of GET /nutrition: today when
// absent, a 1005 when it is not a real dd-MM-yyyy date.
func ParseDay(q url.Values, today Date) (Date, error) {
	if !q.Has("date") {
		return today, nil
	}
	if err := paramError("date", q.Get("date")); err != nil {
		return Date{}, err
	}
	d, err := ParseDate(q.Get("date"))
	if err != nil {
		return Date{}, Invalid(CodeInvalidDate, "date", "date must be a real date written dd-MM-yyyy")
	}
	return d, nil
}

// ParseMeasurementType reads the optional type query parameter of GET
// /measurements: "" when absent, a 1004 when it is not a measurement type.
func ParseMeasurementType(q url.Values) (string, error) {
	if !q.Has("type") {
		return "", nil
	}
	t := q.Get("type")
	if err := paramError("type", t); err != nil {
		return "", err
	}
	if !IsMeasurementType(t) {
		return "", Invalid(CodeInvalidEnum, "type", "type must be one of CHEST, WAIST, HIPS, NECK, SHOULDERS, LEFT_ARM, "+
			"RIGHT_ARM, LEFT_THIGH, RIGHT_THIGH, LEFT_CALF, RIGHT_CALF, BODY_FAT, WEIGHT, CUSTOM")
	}
	return t, nil
}

// paramError is checkParam's problem with a query parameter, or nil.
func paramError(name, s string) error {
	v := &ValidationError{}
	checkParam(v, name, s)
	return v.Err()
}
