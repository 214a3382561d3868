package demo

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/traineed/traineed/api"
)

// demoDays is how far back the demo's tracked data reaches: a year, today
// included.
const demoDays = 365

// demoMealStreakDays: the main stream decides the meals of the last six
// weeks (and a few before); the older days of a meal logger get the rest of
// their meals from a stream of their own, so that the whole year has meals
// on most days while the recent data (and the screens captured from it)
// stay as they are.
const demoMealStreakDays = 42

// demoFood is something a demo trainee eats: macros per `per` units of
// unit (100 g or ml, or 1 piece).
type demoFood struct {
	name          string
	unit          string
	min, max      float64 // quantity range
	per           float64
	protein, carb float64
	fat           float64
}

var demoMeals = map[string][]demoFood{
	api.MealBreakfast: {
		{"Oats", "g", 40, 100, 100, 13, 60, 7},
		{"Greek yoghurt", "g", 150, 250, 100, 10, 4, 5},
		{"Eggs", "piece", 1, 3, 1, 6.3, 0.4, 4.8},
		{"Wholemeal toast", "slice", 1, 2, 1, 4, 12, 1},
		{"Banana", "piece", 1, 1, 1, 1.3, 27, 0.4},
		{"Milk", "ml", 150, 300, 100, 3.4, 5, 1.5},
		{"Blueberries", "g", 50, 120, 100, 0.7, 14, 0.3},
	},
	api.MealLunch: {
		{"Chicken breast", "g", 120, 200, 100, 31, 0, 3.6},
		{"Brown rice", "g", 120, 250, 100, 2.6, 23, 0.9},
		{"Mixed salad", "g", 80, 150, 100, 1.5, 4, 0.2},
		{"Tuna sandwich", "piece", 1, 1, 1, 24, 35, 12},
		{"Lentil soup", "ml", 300, 400, 100, 4.5, 10, 1.2},
		{"Quinoa", "g", 120, 200, 100, 4.4, 21, 1.9},
		{"Hummus", "g", 50, 100, 100, 8, 14, 10},
		{"Wholemeal wrap", "piece", 1, 1, 1, 6, 30, 4},
	},
	api.MealDinner: {
		{"Salmon fillet", "g", 120, 180, 100, 20, 0, 13},
		{"Pasta", "g", 180, 300, 100, 5.8, 31, 0.9},
		{"Beef mince", "g", 120, 200, 100, 20, 0, 10},
		{"Sweet potato", "g", 150, 300, 100, 1.6, 20, 0.1},
		{"Broccoli", "g", 80, 150, 100, 2.8, 7, 0.4},
		{"Tofu", "g", 120, 200, 100, 8, 2, 4.8},
		{"Roast vegetables", "g", 150, 250, 100, 2, 10, 3},
	},
	api.MealSnack: {
		{"Apple", "piece", 1, 1, 1, 0.5, 25, 0.3},
		{"Almonds", "g", 20, 40, 100, 21, 22, 49},
		{"Protein bar", "piece", 1, 1, 1, 20, 22, 7},
		{"Cottage cheese", "g", 100, 200, 100, 11, 3.4, 4.3},
		{"Dark chocolate", "g", 15, 30, 100, 7.8, 46, 43},
		{"Rice cakes", "piece", 2, 3, 1, 0.7, 7, 0.3},
	},
}

// demoItemsPerMeal is the range of items each meal has.
var demoItemsPerMeal = map[string][2]int{
	api.MealBreakfast: {1, 1}, api.MealLunch: {1, 1}, api.MealDinner: {1, 2}, api.MealSnack: {0, 1},
}

// demoTracked adds a year of tracked data for every demo trainee, drawn
// from its own random stream: a daily weight most days (a trend with a
// weekly swing and noise), monthly measurements, most days' meals, step
// counts with gaps, and two to five workouts a week (which set
// lastTrained). Soft-deleted trainees stopped recording some weeks before
// today; a few trainees never log a workout, so lastTrained stays null.
func (d *demoData) tracked(ctx context.Context) error {
	rng := rand.New(rand.NewPCG(demoSeed, demoStreamTracked))
	for _, t := range d.trainees {
		if err := d.l.AddTracked(ctx, d.companyID, d.trackedOf(rng, t)); err != nil {
			return err
		}
	}
	return nil
}

// trackedOf draws a year of one trainee's tracked data, each type in the
// order stored: weights, steps, workouts, measurements and meals.
func (d *demoData) trackedOf(rng *rand.Rand, t *api.Trainee) []api.TrackedRecord {
	var weights, steps, workouts, measures, items []api.TrackedRecord
	first := -(demoDays - 1)
	if rng.IntN(5) == 0 { // a newer member
		first = -(30 + rng.IntN(250))
	}
	last := 0
	if !t.Enabled {
		last = -(15 + rng.IntN(90))
	}
	startKG := 55 + rng.Float64()*50
	trend := (rng.Float64()*0.04 - 0.03) // kg a day: from losing ~11 kg a year to gaining ~3.5
	weighEvery := 0.65 + rng.Float64()*0.3
	stepsBase := 4000 + rng.Float64()*8000
	workoutRate := 0.0
	if rng.IntN(10) != 0 {
		workoutRate = float64(2+rng.IntN(4)) / 7
	}
	// About 6 in 10 trainees log their meals, on most days of the year.
	mealRate, mealStreak := 0.0, 0.0
	if rng.IntN(10) < 6 {
		mealRate, mealStreak = 0.08+rng.Float64()*0.1, 0.8+rng.Float64()*0.15
	}
	phase := rng.IntN(30)
	imperial := t.WeightUnit == api.UnitLB
	custom := rng.IntN(3) == 0
	bodyFat := 15 + rng.Float64()*20
	meals := rand.New(rand.NewPCG(demoSeed, demoStreamMeals^uint64(t.ID)))
	gap := 0
	for off := first; off <= last; off++ {
		day := d.today.AddDays(off)
		n := float64(off - first)
		kg := startKG + trend*n + 0.3*math.Sin(2*math.Pi*n/7) + rng.NormFloat64()*0.4
		if rng.Float64() < weighEvery {
			weights = append(weights, api.TrackedRecord{Type: api.RecordWeight, TraineeID: t.ID, Date: day, WeightKG: api.Round(kg, 2)})
		}
		// Steps: most days, with gaps of a few days (a watch left at home).
		if gap > 0 {
			gap--
		} else if rng.IntN(25) == 0 {
			gap = 1 + rng.IntN(6)
		} else if rng.IntN(10) != 0 {
			weekend := day.Time().Weekday()%6 == 0
			st := stepsBase * (1 + 0.25*rng.NormFloat64())
			if weekend {
				st *= 1.2
			}
			steps = append(steps, api.TrackedRecord{Type: api.RecordSteps, TraineeID: t.ID, Date: day, Steps: int64(math.Max(300, st))})
		}
		if rng.Float64() < workoutRate {
			workouts = append(workouts, api.TrackedRecord{Type: api.RecordWorkout, TraineeID: t.ID, Date: day})
		}
		rate := mealRate
		if off > -demoMealStreakDays {
			rate = mealStreak
		}
		if rng.Float64() < rate {
			items = demoDayMeals(rng, items, t.ID, day)
		} else if rate == mealRate && mealRate > 0 && meals.Float64() < (mealStreak-mealRate)/(1-mealRate) {
			items = demoDayMeals(meals, items, t.ID, day)
		}
		if (off-first)%30 == phase {
			measures = demoMeasure(rng, measures, t.ID, day, kg, startKG, bodyFat, imperial, custom)
		}
	}
	return slices.Concat(weights, steps, workouts, measures, items)
}

// demoDayMeals appends one day's meals.
func demoDayMeals(rng *rand.Rand, items []api.TrackedRecord, traineeID int64, day api.Date) []api.TrackedRecord {
	for _, meal := range api.MealOrder {
		r := demoItemsPerMeal[meal]
		foods := demoMeals[meal]
		picks := rng.Perm(len(foods))[:r[0]+rng.IntN(r[1]-r[0]+1)]
		for _, pick := range picks {
			f := foods[pick]
			q := f.min + rng.Float64()*(f.max-f.min)
			if f.per == 1 {
				q = math.Round(q)
			} else {
				q = math.Round(q/5) * 5
			}
			k := q / f.per
			p, c, fat := api.Round(f.protein*k, 1), api.Round(f.carb*k, 1), api.Round(f.fat*k, 1)
			items = append(items, api.TrackedRecord{Type: api.RecordNutrition, TraineeID: traineeID, Date: day, Meal: meal,
				Item: api.NutritionItem{Name: f.name, Quantity: q, Unit: f.unit, Calories: api.Round(4*p+4*c+9*fat, 0), Protein: p, Carbs: c, Fat: fat}})
		}
	}
	return items
}

var (
	demoWrist  = "Wrist"
	demoMuscle = "Muscle mass"
)

// demoMeasure appends one monthly measurement session: circumferences
// that follow the weight, body fat, and for some trainees custom ones.
func demoMeasure(rng *rand.Rand, ms []api.TrackedRecord, traineeID int64, day api.Date, kg, startKG, bodyFat float64,
	imperial, custom bool) []api.TrackedRecord {
	lengthUnit, massUnit, toLength, toMass := api.UnitCM, api.UnitKG, 1.0, 1.0
	if imperial {
		lengthUnit, massUnit, toLength, toMass = api.UnitIN, api.UnitLB, 1/api.CMPerIN, api.LBPerKG
	}
	add := func(typ string, name *string, v float64, unit string) {
		ms = append(ms, api.TrackedRecord{Type: api.RecordMeasurement, TraineeID: traineeID, Date: day,
			Measurement: api.Measurement{Date: day, Type: typ, Name: name, Value: api.Round(v, 1), Unit: unit}})
	}
	// Circumferences in cm grow with the weight: base + perKG·kg.
	circ := func(typ string, base, perKG float64) {
		add(typ, nil, (base+perKG*kg+rng.NormFloat64()*0.5)*toLength, lengthUnit)
	}
	circ(api.MeasureWaist, 40, 0.55)
	circ(api.MeasureChest, 55, 0.5)
	circ(api.MeasureHips, 60, 0.45)
	add(api.MeasureBodyFat, nil, math.Max(5, bodyFat+(kg-startKG)*0.4+rng.NormFloat64()*0.5), api.UnitPercent)
	if rng.IntN(3) == 0 {
		circ(api.MeasureLeftArm, 22, 0.12)
		circ(api.MeasureRightArm, 22.5, 0.12)
		circ(api.MeasureLeftThigh, 38, 0.22)
		circ(api.MeasureRightThigh, 38, 0.22)
	}
	if custom {
		add(api.MeasureCustom, &demoWrist, (16.5+rng.NormFloat64()*0.2)*toLength, lengthUnit)
		add(api.MeasureCustom, &demoMuscle, (kg*0.42+rng.NormFloat64()*0.3)*toMass, massUnit)
	}
	return ms
}
