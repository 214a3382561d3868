package api

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The records of `traineed ingest` (commands.md): one JSON object a line,
// its "type" picking the shape. The parsing and every check that needs no
// database live here, beside the wire types they share with the API, so
// that any other importer (a future HTTP ingest, traineectl) validates a
// record exactly the same way. The store checks the one rule that needs
// the database (the trainee belongs to the company) and writes.

// Record types of an ingest line.
const (
	RecordWeight      = "weight"
	RecordMeasurement = "measurement"
	RecordNutrition   = "nutrition"
	RecordSteps       = "steps"
	RecordWorkout     = "workout"
)

// Sane ranges of ingested values.
const (
	MinWeightKG      = 20.0
	MaxWeightKG      = 400.0
	MinBodyFat       = 1.0
	MaxBodyFat       = 75.0
	MaxCircumference = 300.0 // cm; inches are converted to check
	MaxCustomValue   = 10_000.0
	MaxSteps         = 200_000
	MaxQuantity      = 100_000.0
	MaxCalories      = 20_000.0
	MaxMacroGrams    = 2_000.0
	MaxItemUnit      = 20 // characters of a nutrition item's unit
	CMPerIN          = 2.54
)

// minTrackedDate is the earliest date a record may carry.
var minTrackedDate = Date{1900, 1, 1}

// TrackedRecord is one validated ingest line.
type TrackedRecord struct {
	Type      string // one of the Record* constants
	TraineeID int64
	Date      Date

	WeightKG    float64       // weight: in kilograms, converted from LB
	Measurement Measurement   // measurement: Date is the record's Date
	Meal        string        // nutrition: BREAKFAST, LUNCH, DINNER or SNACK
	Item        NutritionItem // nutrition
	Steps       int64         // steps
}

// Ingest outcomes of one record.
const (
	IngestStored   = "stored"   // new data
	IngestReplaced = "replaced" // a weight, steps or workout of a day that had one
	IngestRejected = "rejected" // nothing stored; Reason says why
)

// IngestResult is what became of one record.
type IngestResult struct {
	Status string
	Reason string // for IngestRejected
}

// IngestSummary counts the lines of one ingest.
type IngestSummary struct {
	Lines    int `json:"lines"` // non-blank lines read
	Stored   int `json:"stored"`
	Replaced int `json:"replaced"`
	Rejected int `json:"rejected"`
}

// String is the summary `traineed ingest` prints.
func (s IngestSummary) String() string {
	noun := "lines"
	if s.Lines == 1 {
		noun = "line"
	}
	return fmt.Sprintf("%d %s: %d stored, %d replaced, %d rejected", s.Lines, noun, s.Stored, s.Replaced, s.Rejected)
}

// Add counts one result.
func (s *IngestSummary) Add(status string) {
	switch status {
	case IngestStored:
		s.Stored++
	case IngestReplaced:
		s.Replaced++
	default:
		s.Rejected++
	}
}

// RecordError is why a line was refused: every problem found in it.
type RecordError struct {
	Problems []string
}

func (e *RecordError) Error() string { return strings.Join(e.Problems, "; ") }

func (e *RecordError) add(format string, args ...any) {
	e.Problems = append(e.Problems, fmt.Sprintf(format, args...))
}

// recordFields decodes the members of one ingest object.
type recordFields struct {
	m   map[string]json.RawMessage
	err *RecordError
}

// get returns a member that is present and not null; a missing required
// one is reported.
func (f *recordFields) get(name string, required bool) (json.RawMessage, bool) {
	raw, ok := f.m[name]
	if !ok || isNull(raw) {
		if required {
			f.err.add("%s is required", name)
		}
		return nil, false
	}
	return raw, true
}

func (f *recordFields) str(name string, required bool) (string, bool) {
	raw, ok := f.get(name, required)
	if !ok {
		return "", false
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		f.err.add("%s must be a string", name)
		return "", false
	}
	if c, bad := ControlChar(s); bad {
		f.err.add("%s must not contain %s", name, controlName(c))
		return "", false
	}
	return s, true
}

// number reads a JSON number (a quoted one is refused).
func (f *recordFields) number(name string, required bool) (float64, bool) {
	raw, ok := f.get(name, required)
	if !ok {
		return 0, false
	}
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || (raw[0] != '-' && (raw[0] < '0' || raw[0] > '9')) {
		f.err.add("%s must be a number", name)
		return 0, false
	}
	x, err := strconv.ParseFloat(string(raw), 64)
	if err != nil || math.IsInf(x, 0) || math.IsNaN(x) {
		f.err.add("%s must be a finite number", name)
		return 0, false
	}
	return x, true
}

func (f *recordFields) integer(name string, required bool) (int64, bool) {
	raw, ok := f.get(name, required)
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseInt(string(bytes.TrimSpace(raw)), 10, 64)
	if err != nil {
		f.err.add("%s must be an integer", name)
		return 0, false
	}
	return n, true
}

// inRange reports x outside [lo, hi].
func (f *recordFields) inRange(name string, x, lo, hi float64, unit string) {
	if x < lo || x > hi {
		f.err.add("%s must be between %s and %s%s (got %s)", name, fmtNum(lo), fmtNum(hi), unit, fmtNum(x))
	}
}

func fmtNum(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }

// oneOf checks an enum value.
func (f *recordFields) oneOf(name, v string, allowed []string) bool {
	for _, a := range allowed {
		if v == a {
			return true
		}
	}
	f.err.add("%s must be %s (got %q)", name, orList(allowed), v)
	return false
}

func orList(xs []string) string {
	switch len(xs) {
	case 1:
		return xs[0]
	case 2:
		return xs[0] + " or " + xs[1]
	}
	return strings.Join(xs[:len(xs)-1], ", ") + " or " + xs[len(xs)-1]
}

// text checks a name-like string: trimmed, 1 to max characters.
func (f *recordFields) text(name string, s *string, max int) {
	*s = strings.TrimSpace(*s)
	if n := utf8.RuneCountInString(*s); n == 0 || n > max {
		f.err.add("%s must be 1 to %d characters", name, max)
	}
}

var recordTypes = []string{RecordWeight, RecordMeasurement, RecordNutrition, RecordSteps, RecordWorkout}

// ParseTrackedRecord reads and validates one ingest line: exactly one JSON
// object whose "type" is weight, measurement, nutrition, steps or workout,
// with a positive traineeId, a real dd-MM-yyyy date between 01-01-1900 and
// today, and the fields of its type in their sane ranges (see the Max*
// constants and commands.md). Unknown members are ignored, as in request
// bodies. The error is a *RecordError listing every problem.
func ParseTrackedRecord(line []byte, today Date) (*TrackedRecord, error) {
	// Unmarshal refuses anything after the object, as it should.
	var m map[string]json.RawMessage
	if err := json.Unmarshal(line, &m); err != nil || m == nil {
		return nil, &RecordError{Problems: []string{"not a JSON object"}}
	}
	f := &recordFields{m: m, err: &RecordError{}}
	r := &TrackedRecord{}

	typ, ok := f.str("type", true)
	if ok && f.oneOf("type", typ, recordTypes) {
		r.Type = typ
	}
	if id, ok := f.integer("traineeId", true); ok {
		if id <= 0 {
			f.err.add("traineeId must be a positive integer")
		}
		r.TraineeID = id
	}
	if s, ok := f.str("date", true); ok {
		d, err := ParseDate(s)
		switch {
		case err != nil:
			f.err.add("date must be a real date written dd-MM-yyyy (got %q)", s)
		case d.Before(minTrackedDate) || d.After(today):
			f.err.add("date must be between %s and today (%s), got %s", minTrackedDate, today, d)
		}
		r.Date = d
	}

	switch r.Type {
	case RecordWeight:
		w, okW := f.number("weight", true)
		unit, okU := f.str("unit", true)
		if okU && f.oneOf("unit", unit, []string{UnitKG, UnitLB}) && okW {
			r.WeightKG = KGFrom(w, unit)
			f.inRange("weight", r.WeightKG, MinWeightKG, MaxWeightKG, " kg")
		}
	case RecordMeasurement:
		f.measurement(r)
	case RecordNutrition:
		f.nutrition(r)
	case RecordSteps:
		if n, ok := f.integer("steps", true); ok {
			if n < 0 || n > MaxSteps {
				f.err.add("steps must be an integer between 0 and %d (got %d)", MaxSteps, n)
			}
			r.Steps = n
		}
	case RecordWorkout:
		// The day is all a workout records.
	}
	if len(f.err.Problems) > 0 {
		return nil, f.err
	}
	return r, nil
}

func (f *recordFields) measurement(r *TrackedRecord) {
	m := &r.Measurement
	m.Date = r.Date
	typ, okT := f.str("measurement", true)
	okT = okT && f.oneOf("measurement", typ, MeasurementTypes)
	m.Type = typ
	value, okV := f.number("value", true)
	m.Value = value
	unit, okU := f.str("unit", true)
	m.Unit = unit
	name, hasName := f.str("name", false)
	if okT {
		switch {
		case typ == MeasureCustom && !hasName:
			if _, ok := f.get("name", false); !ok {
				f.err.add("name is required for a CUSTOM measurement")
			}
		case typ == MeasureCustom:
			f.text("name", &name, MaxNameLength)
			m.Name = &name
		case hasName:
			f.err.add("name is only for CUSTOM measurements")
		}
		okU = okU && f.oneOf("unit", unit, MeasurementUnits(typ))
	}
	if !okT || !okU || !okV {
		return
	}
	switch typ {
	case MeasureBodyFat:
		f.inRange("value", value, MinBodyFat, MaxBodyFat, " %")
	case MeasureWeight:
		f.inRange("value", KGFrom(value, unit), MinWeightKG, MaxWeightKG, " kg")
	case MeasureCustom:
		f.inRange("value", value, 0, MaxCustomValue, "")
	default: // circumferences
		cm := value
		if unit == UnitIN {
			cm *= CMPerIN
		}
		if cm <= 0 || cm > MaxCircumference {
			f.err.add("value must be above 0 and at most %s cm (%s in) (got %s %s)",
				fmtNum(MaxCircumference), fmtNum(Round(MaxCircumference/CMPerIN, 1)), fmtNum(value), unit)
		}
	}
}

func (f *recordFields) nutrition(r *TrackedRecord) {
	if meal, ok := f.str("meal", true); ok && f.oneOf("meal", meal, MealOrder) {
		r.Meal = meal
	}
	it := &r.Item
	if name, ok := f.str("name", true); ok {
		f.text("name", &name, MaxNameLength)
		it.Name = name
	}
	if unit, ok := f.str("unit", true); ok {
		f.text("unit", &unit, MaxItemUnit)
		it.Unit = unit
	}
	for _, n := range []struct {
		name string
		dst  *float64
		max  float64
		unit string
	}{
		{"quantity", &it.Quantity, MaxQuantity, ""},
		{"calories", &it.Calories, MaxCalories, " kcal"},
		{"protein", &it.Protein, MaxMacroGrams, " g"},
		{"carbs", &it.Carbs, MaxMacroGrams, " g"},
		{"fat", &it.Fat, MaxMacroGrams, " g"},
	} {
		if x, ok := f.number(n.name, true); ok {
			f.inRange(n.name, x, 0, n.max, n.unit)
			*n.dst = x
		}
	}
}
