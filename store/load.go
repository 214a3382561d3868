package store

import (
	"context"
	"fmt"

	"github.com/uptrace/bun"

	"github.com/traineed/traineed/api"
)

// loadChunk bounds the rows of one INSERT statement of a Loader.
const loadChunk = 1000

// Loader writes a whole data set in one transaction, through the same code
// as the API's writes (a trainee created here gets its trainee.created
// event like any other). Generators such as the demo data set build the
// data; the store only writes it.
type Loader struct {
	s   *Store
	tx  bun.Tx
	eff *effects // the load's transaction's: its events take effect when it commits
}

// in is ctx carrying the load's effects, whatever context the caller passes.
func (l *Loader) in(ctx context.Context) context.Context {
	return context.WithValue(ctx, effectsKey{}, l.eff)
}

// Load runs fn with a Loader in one transaction: all of it is stored, or,
// when fn fails, nothing.
func (s *Store) Load(ctx context.Context, fn func(ctx context.Context, l *Loader) error) error {
	return s.inTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		return fn(ctx, &Loader{s: s, tx: tx, eff: effectsOf(ctx)})
	})
}

// HasCompanyNamed reports whether a company of that name exists.
func (l *Loader) HasCompanyNamed(ctx context.Context, name string) (bool, error) {
	return l.tx.NewSelect().Model((*companyRow)(nil)).Where("c.name = ?", name).Exists(ctx)
}

// CreateCompany adds a company (see Store.CreateCompany).
func (l *Loader) CreateCompany(ctx context.Context, name, timeZone string) (*api.Company, error) {
	return l.s.createCompany(ctx, l.tx, name, timeZone)
}

// CreateTrainer adds a trainer (see Store.CreateTrainer).
func (l *Loader) CreateTrainer(ctx context.Context, companyID int64, name, email string) (*api.Trainer, error) {
	return l.s.createTrainer(ctx, l.tx, companyID, name, email)
}

// CreateTrainee adds a trainee (see Store.CreateTrainee); unlike the API,
// a loader chooses whether it must change its password.
func (l *Loader) CreateTrainee(ctx context.Context, companyID int64, nt api.NewTrainee, forcePasswordChange bool) (*api.Trainee, error) {
	row, _, err := l.s.createTraineeChange(l.in(ctx), l.tx, companyID, nt, newTraineeOptions{forcePasswordChange: forcePasswordChange})
	if err != nil {
		return nil, err
	}
	return row.toAPI(), nil
}

// CreateKey adds an admin API key (see Store.CreateScopedKey): a loaded
// company's first key, which runs it over the API.
func (l *Loader) CreateKey(ctx context.Context, companyID int64, name string, hash [32]byte, prefix string) (*api.APIKey, error) {
	return l.s.createKey(ctx, l.tx, companyID, name, api.KeyScopeAdmin, hash, prefix)
}

// AddTracked appends tracked data of the company's trainees, already
// valid (as api.ParseTrackedRecord makes it), in statements of at most
// loadChunk rows: each type in the order given, weights, steps, workouts,
// measurements and nutrition items in that order. Unlike an ingest it
// replaces nothing: a weight, steps or workout of a day that has one is a
// conflict error. Workouts move lastTrained forward.
func (l *Loader) AddTracked(ctx context.Context, companyID int64, recs []api.TrackedRecord) error {
	var (
		weights  []weightRow
		steps    []stepsRow
		workouts []workoutRow
		measures []measurementRow
		items    []nutritionRow
		latest   = map[int64]int{}
	)
	for _, r := range recs {
		day := r.Date.Int()
		switch r.Type {
		case api.RecordWeight:
			weights = append(weights, weightRow{CompanyID: companyID, TraineeID: r.TraineeID, Day: day, WeightKG: r.WeightKG})
		case api.RecordSteps:
			steps = append(steps, stepsRow{CompanyID: companyID, TraineeID: r.TraineeID, Day: day, Steps: r.Steps})
		case api.RecordWorkout:
			workouts = append(workouts, workoutRow{CompanyID: companyID, TraineeID: r.TraineeID, Day: day})
			latest[r.TraineeID] = max(latest[r.TraineeID], day)
		case api.RecordMeasurement:
			m := r.Measurement
			measures = append(measures, measurementRow{CompanyID: companyID, TraineeID: r.TraineeID, Day: day,
				Type: m.Type, Name: m.Name, Value: m.Value, Unit: m.Unit})
		case api.RecordNutrition:
			it := r.Item
			items = append(items, nutritionRow{CompanyID: companyID, TraineeID: r.TraineeID, Day: day, Meal: r.Meal,
				Name: it.Name, Quantity: it.Quantity, Unit: it.Unit, Calories: it.Calories, Protein: it.Protein, Carbs: it.Carbs, Fat: it.Fat})
		default:
			return fmt.Errorf("store: unknown record type %q", r.Type)
		}
	}
	for _, ins := range []func() error{
		func() error { return insertChunks(ctx, l.tx, weights) },
		func() error { return insertChunks(ctx, l.tx, steps) },
		func() error { return insertChunks(ctx, l.tx, workouts) },
		func() error { return insertChunks(ctx, l.tx, measures) },
		func() error { return insertChunks(ctx, l.tx, items) },
	} {
		if err := ins(); err != nil {
			return dbError(err)
		}
	}
	return l.s.moveLastTrained(ctx, l.tx, companyID, latest)
}

// insertChunks inserts rows in statements of at most loadChunk rows.
func insertChunks[T any](ctx context.Context, tx bun.Tx, rows []T) error {
	for start := 0; start < len(rows); start += loadChunk {
		chunk := rows[start:min(len(rows), start+loadChunk)]
		if _, err := tx.NewInsert().Model(&chunk).Exec(ctx); err != nil {
			return err
		}
	}
	return nil
}
