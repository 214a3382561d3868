package api

// Tracked data: the bodies of the four read-only endpoints of contract
// section 3. Timestamp is the response's Unix seconds.

// WeightHistory is the body of GET /trainees/{id}/weight-history: one entry
// per day with data, oldest first, in the trainee's weight unit.
type WeightHistory struct {
	Timestamp int64         `json:"timestamp"`
	TraineeID int64         `json:"traineeId"`
	From      Date          `json:"from"`
	To        Date          `json:"to"`
	Unit      string        `json:"unit"`
	Entries   []WeightEntry `json:"entries"`
}

// WeightEntry is one day's weight, rounded to 0.1.
type WeightEntry struct {
	Date   Date    `json:"date"`
	Weight float64 `json:"weight"`
}

// Measurement types of contract section 3.
const (
	MeasurementChest      = "CHEST"
	MeasurementWaist      = "WAIST"
	MeasurementHips       = "HIPS"
	MeasurementNeck       = "NECK"
	MeasurementShoulders  = "SHOULDERS"
	MeasurementLeftArm    = "LEFT_ARM"
	MeasurementRightArm   = "RIGHT_ARM"
	MeasurementLeftThigh  = "LEFT_THIGH"
	MeasurementRightThigh = "RIGHT_THIGH"
	MeasurementLeftCalf   = "LEFT_CALF"
	MeasurementRightCalf  = "RIGHT_CALF"
	MeasurementBodyFat    = "BODY_FAT"
	MeasurementWeight     = "WEIGHT"
	MeasurementCustom     = "CUSTOM"
)

// MeasurementTypes lists every measurement type, in the order of the contract.
var MeasurementTypes = []string{
	MeasurementChest, MeasurementWaist, MeasurementHips, MeasurementNeck, MeasurementShoulders,
	MeasurementLeftArm, MeasurementRightArm, MeasurementLeftThigh, MeasurementRightThigh,
	MeasurementLeftCalf, MeasurementRightCalf, MeasurementBodyFat, MeasurementWeight, MeasurementCustom,
}

// Measurements is the body of GET /trainees/{id}/measurements, ordered by
// date, then type, then name.
type Measurements struct {
	Timestamp    int64         `json:"timestamp"`
	TraineeID    int64         `json:"traineeId"`
	From         Date          `json:"from"`
	To           Date          `json:"to"`
	Measurements []Measurement `json:"measurements"`
}

// Measurement is one recorded measurement. Name is set for CUSTOM only.
type Measurement struct {
	Date  Date    `json:"date"`
	Type  string  `json:"type"`
	Name  *string `json:"name"`
	Value float64 `json:"value"`
	Unit  string  `json:"unit"`
}

// Meals, in the order a nutrition response lists them.
const (
	MealBreakfast = "BREAKFAST"
	MealLunch     = "LUNCH"
	MealDinner    = "DINNER"
	MealSnack     = "SNACK"
)

// MealTypes lists the meals in response order.
var MealTypes = []string{MealBreakfast, MealLunch, MealDinner, MealSnack}

// Nutrition is the body of GET /trainees/{id}/nutrition: one day's log.
// Nothing logged gives no meals and zero totals.
type Nutrition struct {
	Timestamp int64           `json:"timestamp"`
	TraineeID int64           `json:"traineeId"`
	Date      Date            `json:"date"`
	Meals     []Meal          `json:"meals"`
	Totals    NutritionTotals `json:"totals"`
}

// Meal is what was eaten at one meal.
type Meal struct {
	Meal   string          `json:"meal"`
	Items  []NutritionItem `json:"items"`
	Totals NutritionTotals `json:"totals"`
}

// NutritionItem is one food logged.
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

// AverageSteps is the body of GET /trainees/{id}/average-steps: the mean
// over the 7 days ending today, days without data left out; null when no
// day has data.
type AverageSteps struct {
	Timestamp    int64  `json:"timestamp"`
	TraineeID    int64  `json:"traineeId"`
	From         Date   `json:"from"`
	To           Date   `json:"to"`
	AverageSteps *int64 `json:"averageSteps"`
	DaysWithData int    `json:"daysWithData"`
}
