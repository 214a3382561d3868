package store

import (
	"context"
	"database/sql"

	"github.com/uptrace/bun"

	"github.com/traineed/traineed/api"
)

var _ api.Store = (*Store)(nil)

// Tracked data rows. Each carries company_id beside trainee_id; the
// composite foreign key to trainees (company_id, id) makes the pair
// consistent, and every read scopes by it.

type weightRow struct {
	bun.BaseModel `bun:"table:weight_entries,alias:w"`

	CompanyID int64   `bun:"company_id,pk"`
	TraineeID int64   `bun:"trainee_id,pk"`
	Day       int     `bun:"day,pk"`
	WeightKG  float64 `bun:"weight_kg"`
}

type stepsRow struct {
	bun.BaseModel `bun:"table:daily_steps,alias:st"`

	CompanyID int64 `bun:"company_id,pk"`
	TraineeID int64 `bun:"trainee_id,pk"`
	Day       int   `bun:"day,pk"`
	Steps     int64 `bun:"steps"`
}

type workoutRow struct {
	bun.BaseModel `bun:"table:workouts,alias:wo"`

	CompanyID int64 `bun:"company_id,pk"`
	TraineeID int64 `bun:"trainee_id,pk"`
	Day       int   `bun:"day,pk"`
}

// measurementRow is inserted without its id (the database numbers rows).
type measurementRow struct {
	bun.BaseModel `bun:"table:measurements,alias:m"`

	CompanyID int64   `bun:"company_id"`
	TraineeID int64   `bun:"trainee_id"`
	Day       int     `bun:"day"`
	Type      string  `bun:"type"`
	Name      *string `bun:"name"`
	Value     float64 `bun:"value"`
	Unit      string  `bun:"unit"`
}

// nutritionRow is inserted without its id; a day lists its items by id.
type nutritionRow struct {
	bun.BaseModel `bun:"table:nutrition_items,alias:n"`

	CompanyID int64   `bun:"company_id"`
	TraineeID int64   `bun:"trainee_id"`
	Day       int     `bun:"day"`
	Meal      string  `bun:"meal"`
	Name      string  `bun:"name"`
	Quantity  float64 `bun:"quantity"`
	Unit      string  `bun:"unit"`
	Calories  float64 `bun:"calories"`
	Protein   float64 `bun:"protein"`
	Carbs     float64 `bun:"carbs"`
	Fat       float64 `bun:"fat"`
}

// trackedScope starts every tracked-data read: the one trainee of the
// company, from traineeScope (alias t). A read LEFT JOINs its rows to it on
// company_id and trainee_id, so one round trip answers both "is this a
// trainee of the company" (no row at all: api.ErrNotFound) and "what did it
// record" (the joined columns, NULL when nothing matched).
func (s *Store) trackedScope(db bun.IDB, companyID, traineeID int64) *bun.SelectQuery {
	return s.traineeScope(db, companyID).Where("t.id = ?", traineeID)
}

// scanTracked runs a tracked-data read and calls fn for each row with
// Scan of that row (plain database/sql: a year of rows through bun's
// reflection costs more than the query). No row at all is api.ErrNotFound:
// the trainee is not one of the company's.
func scanTracked(ctx context.Context, q *bun.SelectQuery, fn func(scan func(dest ...any) error) error) error {
	rows, err := q.Rows(ctx)
	if err != nil {
		return dbError(err)
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		n++
		if err := fn(rows.Scan); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return dbError(err)
	}
	if n == 0 {
		return api.ErrNotFound
	}
	return nil
}

// WeightHistory returns the daily weights of [from, to], oldest first, in
// the trainee's unit and rounded to 0.1 (see api.TrackedStore).
func (s *Store) WeightHistory(ctx context.Context, companyID, traineeID int64, from, to api.Date) (*api.WeightHistory, error) {
	out := &api.WeightHistory{TraineeID: traineeID, From: from, To: to, Entries: []api.WeightEntry{}}
	q := s.trackedScope(s.db, companyID, traineeID).
		ColumnExpr("t.weight_unit, w.day, w.weight_kg").
		Join("LEFT JOIN weight_entries AS w ON w.company_id = t.company_id AND w.trainee_id = t.id AND w.day BETWEEN ? AND ?",
			from.Int(), to.Int()).
		OrderExpr("w.day ASC")
	var day sql.NullInt64
	var kg sql.NullFloat64
	err := scanTracked(ctx, q, func(scan func(...any) error) error {
		if err := scan(&out.Unit, &day, &kg); err != nil {
			return err
		}
		if day.Valid {
			out.Entries = append(out.Entries, api.WeightEntry{Date: api.DateFromInt(int(day.Int64)), Weight: api.WeightIn(kg.Float64, out.Unit)})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Measurements returns the measurements of [from, to], only those of type
// typ unless it is "", by date, type, name and then the order they were
// recorded; values are rounded to 0.1.
func (s *Store) Measurements(ctx context.Context, companyID, traineeID int64, from, to api.Date, typ string) (*api.Measurements, error) {
	join := "LEFT JOIN measurements AS m ON m.company_id = t.company_id AND m.trainee_id = t.id AND m.day BETWEEN ? AND ?"
	args := []any{from.Int(), to.Int()}
	if typ != "" {
		join += " AND m.type = ?"
		args = append(args, typ)
	}
	q := s.trackedScope(s.db, companyID, traineeID).
		ColumnExpr("m.day, m.type, m.name, m.value, m.unit").
		Join(join, args...).
		OrderExpr("m.day ASC, m.type ASC, m.name ASC, m.id ASC")
	out := &api.Measurements{TraineeID: traineeID, From: from, To: to, Measurements: []api.Measurement{}}
	var (
		day              sql.NullInt64
		mtype, name, unt sql.NullString
		value            sql.NullFloat64
	)
	err := scanTracked(ctx, q, func(scan func(...any) error) error {
		if err := scan(&day, &mtype, &name, &value, &unt); err != nil {
			return err
		}
		if !day.Valid {
			return nil
		}
		m := api.Measurement{Date: api.DateFromInt(int(day.Int64)), Type: mtype.String, Value: api.Round(value.Float64, 1), Unit: unt.String}
		if name.Valid {
			n := name.String // name is reused for the next row
			m.Name = &n
		}
		out.Measurements = append(out.Measurements, m)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Nutrition returns the meals logged on day (see api.BuildNutrition).
func (s *Store) Nutrition(ctx context.Context, companyID, traineeID int64, day api.Date) (*api.Nutrition, error) {
	q := s.trackedScope(s.db, companyID, traineeID).
		ColumnExpr("n.meal, n.name, n.quantity, n.unit, n.calories, n.protein, n.carbs, n.fat").
		Join("LEFT JOIN nutrition_items AS n ON n.company_id = t.company_id AND n.trainee_id = t.id AND n.day = ?", day.Int()).
		OrderExpr("n.id ASC")
	var items []api.LoggedItem
	var (
		meal, name, unit                        sql.NullString
		quantity, calories, protein, carbs, fat sql.NullFloat64
	)
	err := scanTracked(ctx, q, func(scan func(...any) error) error {
		if err := scan(&meal, &name, &quantity, &unit, &calories, &protein, &carbs, &fat); err != nil {
			return err
		}
		if meal.Valid {
			items = append(items, api.LoggedItem{Meal: meal.String, Item: api.NutritionItem{
				Name: name.String, Quantity: quantity.Float64, Unit: unit.String,
				Calories: calories.Float64, Protein: protein.Float64, Carbs: carbs.Float64, Fat: fat.Float64,
			}})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return api.BuildNutrition(traineeID, day, items), nil
}

// Steps returns the step count of each day of [from, to] that has one,
// oldest first.
func (s *Store) Steps(ctx context.Context, companyID, traineeID int64, from, to api.Date) (*api.DailySteps, error) {
	out := &api.DailySteps{TraineeID: traineeID, From: from, To: to, Days: []api.StepsDay{}}
	q := s.trackedScope(s.db, companyID, traineeID).
		ColumnExpr("st.day, st.steps").
		Join("LEFT JOIN daily_steps AS st ON st.company_id = t.company_id AND st.trainee_id = t.id AND st.day BETWEEN ? AND ?",
			from.Int(), to.Int()).
		OrderExpr("st.day ASC")
	var day, steps sql.NullInt64
	err := scanTracked(ctx, q, func(scan func(...any) error) error {
		if err := scan(&day, &steps); err != nil {
			return err
		}
		if day.Valid {
			out.Days = append(out.Days, api.StepsDay{Date: api.DateFromInt(int(day.Int64)), Steps: steps.Int64})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// AverageSteps returns the mean daily steps of the 7 days ending today
// (see api.BuildAverageSteps).
func (s *Store) AverageSteps(ctx context.Context, companyID, traineeID int64, today api.Date) (*api.AverageSteps, error) {
	from, to := api.StepsWindow(today)
	q := s.trackedScope(s.db, companyID, traineeID).
		ColumnExpr("COUNT(st.day), COALESCE(SUM(st.steps), 0)").
		Join("LEFT JOIN daily_steps AS st ON st.company_id = t.company_id AND st.trainee_id = t.id AND st.day BETWEEN ? AND ?",
			from.Int(), to.Int()).
		GroupExpr("t.id")
	var days int
	var total int64
	if err := scanTracked(ctx, q, func(scan func(...any) error) error { return scan(&days, &total) }); err != nil {
		return nil, err
	}
	return api.BuildAverageSteps(traineeID, today, days, total), nil
}
