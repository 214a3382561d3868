package store

// Ingesting tracked records (IngestTracked): a batch of one company's
// records in one transaction, each day's weight and steps replaced.

import (
	"context"
	"fmt"
	"slices"

	"github.com/uptrace/bun"

	"github.com/traineed/traineed/api"
)

// dayKey is one trainee's day: the key of weights, steps and workouts.
type dayKey struct {
	trainee int64
	day     int
}

// IngestTracked stores validated records of one company in one
// transaction and says what became of each, in order. A record naming a
// trainee that is not of the company is rejected and stores nothing. A
// weight or step count replaces the day's (the last record of a day wins,
// in the batch as across batches), a workout of a day already recorded
// changes nothing; both count as replaced. Measurements and nutrition items
// are appended. A workout moves the trainee's lastTrained forward, never
// back. A database error rolls the whole batch back.
func (s *Store) IngestTracked(ctx context.Context, companyID int64, recs []api.TrackedRecord) ([]api.IngestResult, error) {
	out := make([]api.IngestResult, len(recs))
	if len(recs) == 0 {
		return out, nil
	}
	err := s.inTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		return s.ingestTx(ctx, tx, companyID, recs, out)
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// dayTable is the batch's records of one keyed-by-day kind.
type dayTable struct {
	table string
	last  map[dayKey]int // key -> index of the batch's last record for it
	order []dayKey       // keys in first-seen order, for a stable insert
}

func newDayTable(table string) *dayTable { return &dayTable{table: table, last: map[dayKey]int{}} }

func (d *dayTable) add(k dayKey, i int) {
	if _, ok := d.last[k]; !ok {
		d.order = append(d.order, k)
	}
	d.last[k] = i
}

// existing returns which of the table's keys are stored already.
func (d *dayTable) existing(ctx context.Context, tx bun.Tx, companyID int64) (map[dayKey]bool, error) {
	found := map[dayKey]bool{}
	if len(d.order) == 0 {
		return found, nil
	}
	var trainees []int64
	var days []int
	for _, k := range d.order {
		trainees = append(trainees, k.trainee)
		days = append(days, k.day)
	}
	slices.Sort(trainees)
	slices.Sort(days)
	var rows []struct {
		TraineeID int64 `bun:"trainee_id"`
		Day       int   `bun:"day"`
	}
	// Both lists may pair a trainee with a day it has no record for; the
	// map lookup below keeps only the batch's own keys.
	err := tx.NewSelect().
		TableExpr(d.table).
		Column("trainee_id", "day").
		Where("company_id = ?", companyID).
		Where("trainee_id IN (?)", bun.List(slices.Compact(trainees))).
		Where("day IN (?)", bun.List(slices.Compact(days))).
		Scan(ctx, &rows)
	if err != nil {
		return nil, err
	}
	for _, r := range rows {
		k := dayKey{r.TraineeID, r.Day}
		if _, ok := d.last[k]; ok {
			found[k] = true
		}
	}
	return found, nil
}

// ingestTx stores one batch in tx and fills out with each record's
// outcome.
func (s *Store) ingestTx(ctx context.Context, tx bun.Tx, companyID int64, recs []api.TrackedRecord, out []api.IngestResult) error {
	known, err := s.knownTrainees(ctx, tx, companyID, recs)
	if err != nil {
		return err
	}
	b := &ingestBatch{companyID: companyID, recs: recs,
		weights: newDayTable("weight_entries"), steps: newDayTable("daily_steps"), workouts: newDayTable("workouts")}
	if err := b.sort(known, out); err != nil {
		return err
	}
	if err := b.markReplaced(ctx, tx, out); err != nil {
		return err
	}
	return s.writeBatch(ctx, tx, b)
}

// knownTrainees is which trainees of recs are the company's: the one check
// that needs the database, through the scoped helper.
func (s *Store) knownTrainees(ctx context.Context, tx bun.Tx, companyID int64, recs []api.TrackedRecord) (map[int64]bool, error) {
	ids := make([]int64, 0, len(recs))
	for _, r := range recs {
		ids = append(ids, r.TraineeID)
	}
	slices.Sort(ids)
	ids = slices.Compact(ids)
	var found []int64
	if err := s.traineeScope(tx, companyID).Column("t.id").Where("t.id IN (?)", bun.List(ids)).Scan(ctx, &found); err != nil {
		return nil, err
	}
	known := make(map[int64]bool, len(found))
	for _, id := range found {
		known[id] = true
	}
	return known, nil
}

// ingestBatch is a batch's records sorted by where they go.
type ingestBatch struct {
	companyID                int64
	recs                     []api.TrackedRecord
	weights, steps, workouts *dayTable // keyed by trainee and day: the last record of a day wins
	measures                 []measurementRow
	items                    []nutritionRow
}

// sort puts each record of a known trainee in its table (stored, for now)
// and rejects the others.
func (b *ingestBatch) sort(known map[int64]bool, out []api.IngestResult) error {
	for i, r := range b.recs {
		if !known[r.TraineeID] {
			out[i] = api.IngestResult{Status: api.IngestRejected,
				Reason: fmt.Sprintf("trainee %d is not a trainee of company %d", r.TraineeID, b.companyID)}
			continue
		}
		out[i].Status = api.IngestStored
		k := dayKey{r.TraineeID, r.Date.Int()}
		switch r.Type {
		case api.RecordWeight:
			b.weights.add(k, i)
		case api.RecordSteps:
			b.steps.add(k, i)
		case api.RecordWorkout:
			b.workouts.add(k, i)
		case api.RecordMeasurement:
			m := r.Measurement
			b.measures = append(b.measures, measurementRow{CompanyID: b.companyID, TraineeID: r.TraineeID, Day: k.day,
				Type: m.Type, Name: m.Name, Value: m.Value, Unit: m.Unit})
		case api.RecordNutrition:
			it := r.Item
			b.items = append(b.items, nutritionRow{CompanyID: b.companyID, TraineeID: r.TraineeID, Day: k.day, Meal: r.Meal,
				Name: it.Name, Quantity: it.Quantity, Unit: it.Unit, Calories: it.Calories, Protein: it.Protein, Carbs: it.Carbs, Fat: it.Fat})
		default:
			return fmt.Errorf("store: unknown record type %q", r.Type)
		}
	}
	return nil
}

// markReplaced marks a keyed record replaced when its day was stored
// before the batch or earlier in it.
func (b *ingestBatch) markReplaced(ctx context.Context, tx bun.Tx, out []api.IngestResult) error {
	keyed := map[string]*dayTable{api.RecordWeight: b.weights, api.RecordSteps: b.steps, api.RecordWorkout: b.workouts}
	before := map[*dayTable]map[dayKey]bool{}
	for _, d := range keyed {
		found, err := d.existing(ctx, tx, b.companyID)
		if err != nil {
			return err
		}
		before[d] = found
	}
	for i, r := range b.recs {
		d := keyed[r.Type]
		if d == nil || out[i].Status != api.IngestStored {
			continue
		}
		k := dayKey{r.TraineeID, r.Date.Int()}
		if before[d][k] {
			out[i].Status = api.IngestReplaced
		}
		before[d][k] = true
	}
	return nil
}

// writeBatch writes a sorted batch: a day's weight and steps replace the
// stored ones, a workout of a day already recorded changes nothing but
// lastTrained, measurements and nutrition items are appended.
func (s *Store) writeBatch(ctx context.Context, tx bun.Tx, b *ingestBatch) error {
	weights := make([]weightRow, 0, len(b.weights.order))
	for _, k := range b.weights.order {
		weights = append(weights, weightRow{CompanyID: b.companyID, TraineeID: k.trainee, Day: k.day, WeightKG: b.recs[b.weights.last[k]].WeightKG})
	}
	steps := make([]stepsRow, 0, len(b.steps.order))
	for _, k := range b.steps.order {
		steps = append(steps, stepsRow{CompanyID: b.companyID, TraineeID: k.trainee, Day: k.day, Steps: b.recs[b.steps.last[k]].Steps})
	}
	workouts := make([]workoutRow, 0, len(b.workouts.order))
	latest := map[int64]int{}
	for _, k := range b.workouts.order {
		workouts = append(workouts, workoutRow{CompanyID: b.companyID, TraineeID: k.trainee, Day: k.day})
		latest[k.trainee] = max(latest[k.trainee], k.day)
	}
	for _, ins := range []func() error{
		func() error { return insertRows(ctx, tx, weights, "DO UPDATE SET weight_kg = EXCLUDED.weight_kg") },
		func() error { return insertRows(ctx, tx, steps, "DO UPDATE SET steps = EXCLUDED.steps") },
		func() error { return insertRows(ctx, tx, workouts, "DO NOTHING") },
		func() error { return s.moveLastTrained(ctx, tx, b.companyID, latest) },
		func() error { return insertRows(ctx, tx, b.measures, "") },
		func() error { return insertRows(ctx, tx, b.items, "") },
	} {
		if err := ins(); err != nil {
			return err
		}
	}
	return nil
}

// insertRows inserts rows in one statement; onConflict, when given, is
// what a row whose (company, trainee, day) is stored does instead.
func insertRows[T any](ctx context.Context, tx bun.Tx, rows []T, onConflict string) error {
	if len(rows) == 0 {
		return nil
	}
	q := tx.NewInsert().Model(&rows)
	if onConflict != "" {
		q = q.On("CONFLICT (company_id, trainee_id, day) " + onConflict)
	}
	_, err := q.Exec(ctx)
	return err
}

// moveLastTrained sets each trainee's last_trained to its latest workout
// day when that is later: forward, never back.
func (s *Store) moveLastTrained(ctx context.Context, tx bun.Tx, companyID int64, latest map[int64]int) error {
	ids := make([]int64, 0, len(latest))
	for id := range latest {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		day := latest[id]
		_, err := tx.NewUpdate().
			Model((*traineeRow)(nil)).
			Set("last_trained = ?", day).
			Set("version = version + 1"). // the row changed: its ETag too
			Where("t.company_id = ? AND t.id = ?", companyID, id).
			Where("t.last_trained IS NULL OR t.last_trained < ?", day).
			Exec(ctx)
		if err != nil {
			return err
		}
	}
	return nil
}
