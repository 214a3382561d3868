package store

import (
	"context"
	"database/sql"

	"github.com/uptrace/bun"

	"github.com/traineed/traineed/api"
)

// ExportTrainee returns everything held about one trainee of the company
// (see api.LifecycleStore), read in one transaction so that the parts
// agree: the trainee, its trainer, and every tracked row within r, as
// stored (weights in kilograms, values unrounded), oldest first.
func (s *Store) ExportTrainee(ctx context.Context, companyID, id int64, r api.ExportRange) (*api.TraineeExport, error) {
	var out *api.TraineeExport
	var opts *sql.TxOptions
	if s.dialect == DialectPostgres {
		opts = &sql.TxOptions{Isolation: sql.LevelRepeatableRead, ReadOnly: true}
	}
	err := s.runTx(ctx, opts, func(ctx context.Context, tx bun.Tx) error {
		row, err := s.loadTrainee(ctx, tx, companyID, id, false)
		if err != nil {
			return err
		}
		out = &api.TraineeExport{Trainee: row.toAPI(), From: r.From, To: r.To}
		if row.TrainerID != nil {
			var tr trainerRow
			err := tx.NewSelect().Model(&tr).ColumnExpr("tr.id, u.name, u.email").
				Join("JOIN users AS u ON u.id = tr.user_id").
				Where("tr.company_id = ? AND tr.id = ?", companyID, *row.TrainerID).Scan(ctx)
			if err != nil {
				return dbError(err)
			}
			out.Trainer = &api.TrainerRef{ID: tr.ID, Name: tr.Name, Email: tr.Email}
		}
		return exportTracked(ctx, tx, companyID, id, r, out)
	})
	if err != nil {
		return nil, dbError(err)
	}
	return out, nil
}

// exportTracked fills out's tracked data: one query per table.
func exportTracked(ctx context.Context, tx bun.Tx, companyID, id int64, r api.ExportRange, out *api.TraineeExport) error {
	out.Weight, out.Measurements, out.Nutrition, out.Steps, out.Workouts =
		[]api.ExportWeight{}, []api.Measurement{}, []api.ExportNutrition{}, []api.ExportSteps{}, []api.Date{}
	scope := func(q *bun.SelectQuery, alias string) *bun.SelectQuery {
		q = q.Where(alias+".company_id = ? AND "+alias+".trainee_id = ?", companyID, id)
		if r.From != nil {
			q = q.Where(alias+".day >= ?", r.From.Int())
		}
		if r.To != nil {
			q = q.Where(alias+".day <= ?", r.To.Int())
		}
		return q
	}
	var weights []weightRow
	if err := scope(tx.NewSelect().Model(&weights), "w").OrderExpr("w.day ASC").Scan(ctx); err != nil {
		return dbError(err)
	}
	for _, w := range weights {
		out.Weight = append(out.Weight, api.ExportWeight{Date: api.DateFromInt(w.Day), WeightKG: w.WeightKG})
	}
	var ms []measurementRow
	if err := scope(tx.NewSelect().Model(&ms), "m").OrderExpr("m.day ASC, m.id ASC").Scan(ctx); err != nil {
		return dbError(err)
	}
	for _, m := range ms {
		out.Measurements = append(out.Measurements, api.Measurement{Date: api.DateFromInt(m.Day), Type: m.Type, Name: m.Name, Value: m.Value, Unit: m.Unit})
	}
	var ns []nutritionRow
	if err := scope(tx.NewSelect().Model(&ns), "n").OrderExpr("n.day ASC, n.id ASC").Scan(ctx); err != nil {
		return dbError(err)
	}
	for _, n := range ns {
		out.Nutrition = append(out.Nutrition, api.ExportNutrition{Date: api.DateFromInt(n.Day), Meal: n.Meal, NutritionItem: api.NutritionItem{
			Name: n.Name, Quantity: n.Quantity, Unit: n.Unit, Calories: n.Calories, Protein: n.Protein, Carbs: n.Carbs, Fat: n.Fat}})
	}
	var steps []stepsRow
	if err := scope(tx.NewSelect().Model(&steps), "st").OrderExpr("st.day ASC").Scan(ctx); err != nil {
		return dbError(err)
	}
	for _, st := range steps {
		out.Steps = append(out.Steps, api.ExportSteps{Date: api.DateFromInt(st.Day), Steps: st.Steps})
	}
	var workouts []workoutRow
	if err := scope(tx.NewSelect().Model(&workouts), "wo").OrderExpr("wo.day ASC").Scan(ctx); err != nil {
		return dbError(err)
	}
	for _, w := range workouts {
		out.Workouts = append(out.Workouts, api.DateFromInt(w.Day))
	}
	return nil
}
