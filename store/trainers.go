package store

import (
	"context"

	"github.com/uptrace/bun"

	"github.com/traineed/traineed/api"
)

// A company's trainers and its settings, as its admin keys manage them
// (issue 34).

// trainerScope is where every query of a company's trainers starts: the
// trainers of one company, alias tr, with their users (alias u) joined.
func (s *Store) trainerScope(db bun.IDB, companyID int64) *bun.SelectQuery {
	return db.NewSelect().
		Model((*trainerRow)(nil)).
		ColumnExpr("tr.id, tr.company_id, tr.user_id, tr.created_at, tr.active, u.name, u.email").
		Join("JOIN users AS u ON u.id = tr.user_id").
		Where("tr.company_id = ?", companyID)
}

// summaryOf is a trainer as the public API shows it, with count (nil: not
// counted).
func summaryOf(t *trainerRow, count *int) *api.TrainerSummary {
	return &api.TrainerSummary{ID: t.ID, Name: t.Name, Email: t.Email, Active: t.Active, Trainees: count, CreatedAt: t.CreatedAt.UTC()}
}

// trainerCounts counts the company's live trainees by trainer (of one
// trainer when only is set).
func (s *Store) trainerCounts(ctx context.Context, db bun.IDB, companyID int64, only *int64) (map[int64]int, error) {
	var rows []struct {
		TrainerID int64 `bun:"trainer_id"`
		N         int   `bun:"n"`
	}
	q := s.traineeScope(db, companyID).ColumnExpr("t.trainer_id, count(*) AS n").
		Where("t.trainer_id IS NOT NULL AND t.enabled").GroupExpr("t.trainer_id")
	if only != nil {
		q = q.Where("t.trainer_id = ?", *only)
	}
	if err := q.Scan(ctx, &rows); err != nil {
		return nil, err
	}
	out := make(map[int64]int, len(rows))
	for _, r := range rows {
		out[r.TrainerID] = r.N
	}
	return out, nil
}

// CompanyTrainers lists the company's trainers, lowest id first, each with
// its live trainees' count when counts is set (see api.AdminStore).
func (s *Store) CompanyTrainers(ctx context.Context, companyID int64, counts bool) ([]*api.TrainerSummary, error) {
	var rows []trainerRow
	if err := s.trainerScope(s.db, companyID).OrderExpr("tr.id ASC").Scan(ctx, &rows); err != nil {
		return nil, err
	}
	var byTrainer map[int64]int
	if counts {
		var err error
		if byTrainer, err = s.trainerCounts(ctx, s.db, companyID, nil); err != nil {
			return nil, err
		}
	}
	out := make([]*api.TrainerSummary, len(rows))
	for i := range rows {
		var n *int
		if counts {
			c := byTrainer[rows[i].ID]
			n = &c
		}
		out[i] = summaryOf(&rows[i], n)
	}
	return out, nil
}

// CompanyTrainer returns one trainer of the company with its count.
func (s *Store) CompanyTrainer(ctx context.Context, companyID, id int64) (*api.TrainerSummary, error) {
	return s.companyTrainer(ctx, s.db, companyID, id)
}

func (s *Store) companyTrainer(ctx context.Context, db bun.IDB, companyID, id int64) (*api.TrainerSummary, error) {
	row := new(trainerRow)
	if err := s.trainerScope(db, companyID).Where("tr.id = ?", id).Scan(ctx, row); err != nil {
		return nil, dbError(err)
	}
	counts, err := s.trainerCounts(ctx, db, companyID, &id)
	if err != nil {
		return nil, err
	}
	n := counts[id]
	return summaryOf(row, &n), nil
}

// CreateCompanyTrainer adds a trainer and records trainer.created.
func (s *Store) CreateCompanyTrainer(ctx context.Context, companyID int64, nt api.NewTrainer) (*api.TrainerSummary, error) {
	var out *api.TrainerSummary
	err := s.inTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		t, err := s.createTrainer(ctx, tx, companyID, nt.Name, nt.Email)
		if err != nil {
			return err
		}
		zero := 0
		out = &api.TrainerSummary{ID: t.ID, Name: t.Name, Email: t.Email, Active: true, Trainees: &zero, CreatedAt: t.CreatedAt.UTC()}
		return s.recordAdminEvent(ctx, tx, companyID, api.EventTrainerCreated, api.AdminData{Trainer: withoutCount(out)})
	})
	return out, err
}

// withoutCount is t as events carry it: no count, which would be stale.
func withoutCount(t *api.TrainerSummary) *api.TrainerSummary {
	c := *t
	c.Trainees = nil
	return &c
}

// UpdateTrainer changes a trainer (see api.AdminStore): name and e-mail
// (its user's, unique among every user), active. Deactivating hands the
// trainer's trainees to p.ReassignTo in the same transaction, is refused
// (api.TrainerHasTrainees) when some are left without it, and disables
// the keys bound to the trainer (api.LastAdminKey when one is the
// company's last standing admin key).
func (s *Store) UpdateTrainer(ctx context.Context, companyID, id int64, p api.TrainerPatch) (*api.TrainerEnvelope, error) {
	out := &api.TrainerEnvelope{}
	err := s.inTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		*out = api.TrainerEnvelope{}
		before := new(trainerRow)
		if err := s.forUpdate(s.trainerScope(tx, companyID).Where("tr.id = ?", id)).Scan(ctx, before); err != nil {
			return dbError(err)
		}
		fields, err := s.writeTrainerUser(ctx, tx, before, p)
		if err != nil {
			return err
		}
		if p.Active != nil && *p.Active != before.Active {
			if err := s.setTrainerActive(ctx, tx, before, *p.Active, p.ReassignTo, out); err != nil {
				return err
			}
			fields = append(fields, "active")
		}
		if out.Trainer, err = s.companyTrainer(ctx, tx, companyID, id); err != nil || len(fields) == 0 {
			return err
		}
		return s.recordAdminEvent(ctx, tx, companyID, api.EventTrainerUpdated, api.AdminData{Trainer: withoutCount(out.Trainer), ChangedFields: fields})
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// writeTrainerUser writes a trainer's new name and e-mail into its user
// and returns the API names of those that changed.
func (s *Store) writeTrainerUser(ctx context.Context, tx bun.Tx, before *trainerRow, p api.TrainerPatch) ([]string, error) {
	var fields []string
	q := tx.NewUpdate().Model((*userRow)(nil)).Where("u.id = ?", before.UserID)
	if p.Name != nil && *p.Name != before.Name {
		q = q.Set("name = ?", *p.Name).Set("search_name = ?", searchName(*p.Name))
		fields = append(fields, "name")
	}
	if p.Email != nil && *p.Email != before.Email {
		q = q.Set("email = ?", *p.Email)
		fields = append(fields, "email")
	}
	if len(fields) == 0 {
		return nil, nil
	}
	_, err := q.Exec(ctx)
	return fields, dbError(err)
}

// setTrainerActive activates or deactivates a trainer (see UpdateTrainer),
// recording in out what a deactivation did.
func (s *Store) setTrainerActive(ctx context.Context, tx bun.Tx, t *trainerRow, active bool, reassignTo *int64, out *api.TrainerEnvelope) error {
	if !active {
		if reassignTo != nil {
			moved, err := s.reassign(ctx, tx, t.CompanyID, t.ID, *reassignTo)
			if err != nil {
				return err
			}
			out.Moved = &moved
		}
		n, err := s.traineeScope(tx, t.CompanyID).Where("t.trainer_id = ?", t.ID).Count(ctx)
		if err != nil {
			return err
		}
		if n > 0 {
			return api.TrainerHasTrainees(t.ID, int(n))
		}
		ids, err := s.disableTrainerKeys(ctx, tx, t.CompanyID, t.ID)
		if err != nil {
			return err
		}
		out.DisabledKeys = ids
	}
	_, err := tx.NewUpdate().Model((*trainerRow)(nil)).Set("active = ?", active).Where("tr.id = ?", t.ID).Exec(ctx)
	return err
}

// disableTrainerKeys disables the enabled keys bound to a trainer who is
// deactivated, keeping the company administrable (keepAdmin), and returns
// their ids.
func (s *Store) disableTrainerKeys(ctx context.Context, tx bun.Tx, companyID, trainerID int64) ([]int64, error) {
	var keys []apiKeyRow
	if err := s.forUpdate(s.keyScope(tx, companyID).Where("k.trainer_id = ? AND NOT k.disabled", trainerID).OrderExpr("k.id")).Scan(ctx, &keys); err != nil {
		return nil, err
	}
	ids := make([]int64, 0, len(keys))
	for i := range keys {
		after := keys[i]
		after.Disabled = true
		if err := s.keepAdmin(ctx, tx, &keys[i], &after); err != nil {
			return nil, err
		}
		if _, err := tx.NewUpdate().Model(&after).Column("disabled").WherePK().Exec(ctx); err != nil {
			return nil, err
		}
		ids = append(ids, keys[i].ID)
	}
	return ids, nil
}

// ReassignTrainees moves every trainee of trainer from to trainer to (see
// api.AdminStore).
func (s *Store) ReassignTrainees(ctx context.Context, companyID, from, to int64) (*api.ReassignResult, error) {
	var out *api.ReassignResult
	err := s.inTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		if _, err := s.companyTrainer(ctx, tx, companyID, from); err != nil {
			return err
		}
		n, err := s.reassign(ctx, tx, companyID, from, to)
		if err != nil {
			return err
		}
		out = &api.ReassignResult{Moved: n}
		if out.From, err = s.companyTrainer(ctx, tx, companyID, from); err != nil {
			return err
		}
		out.To, err = s.companyTrainer(ctx, tx, companyID, to)
		return err
	})
	return out, err
}

// reassign moves the trainees of from to to inside tx, each as a change of
// its own (its trainee.updated event, its automations), and returns how
// many moved. to must be another active trainer of the company.
func (s *Store) reassign(ctx context.Context, tx bun.Tx, companyID, from, to int64) (int, error) {
	if to == from {
		return 0, api.Invalid(api.CodeInvalidParameter, "to", "trainees go to another trainer than %d", from)
	}
	if err := s.checkTrainer(ctx, tx, companyID, to); err != nil {
		return 0, err
	}
	var ids []int64
	if err := s.traineeScope(tx, companyID).Column("t.id").Where("t.trainer_id = ?", from).OrderExpr("t.id").Scan(ctx, &ids); err != nil {
		return 0, err
	}
	p := api.TraineePatch{TrainerID: api.Optional[int64]{Set: true, Value: to}}
	for _, id := range ids {
		before, err := s.loadTrainee(ctx, tx, companyID, id, true)
		if err != nil {
			return 0, err
		}
		if _, err := s.saveTrainee(ctx, tx, before, patchedRow(before, p), ""); err != nil {
			return 0, err
		}
	}
	return len(ids), nil
}

// Company returns the company's settings.
func (s *Store) Company(ctx context.Context, companyID int64) (*api.Company, error) {
	row := new(companyRow)
	if err := s.db.NewSelect().Model(row).Where("c.id = ?", companyID).Scan(ctx); err != nil {
		return nil, dbError(err)
	}
	return row.toAPI(), nil
}

// UpdateCompany changes the company's name or time zone and records
// company.updated. The zone decides "today" from the next request on.
func (s *Store) UpdateCompany(ctx context.Context, companyID int64, p api.CompanyPatch) (*api.Company, error) {
	var out *api.Company
	err := s.inTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		row := new(companyRow)
		if err := s.forUpdate(tx.NewSelect().Model(row).Where("c.id = ?", companyID)).Scan(ctx); err != nil {
			return dbError(err)
		}
		var fields []string
		if p.Name != nil && *p.Name != row.Name {
			row.Name = *p.Name
			fields = append(fields, "name")
		}
		if p.TimeZone != nil && *p.TimeZone != row.TimeZone {
			row.TimeZone = *p.TimeZone
			fields = append(fields, "timeZone")
		}
		out = row.toAPI()
		if len(fields) == 0 {
			return nil
		}
		if _, err := tx.NewUpdate().Model(row).Column("name", "time_zone").WherePK().Exec(ctx); err != nil {
			return err
		}
		return s.recordAdminEvent(ctx, tx, companyID, api.EventCompanyUpdated, api.AdminData{Company: out, ChangedFields: fields})
	})
	return out, err
}

// TraineeTrainer is the trainer of one trainee of the company (see
// api.AdminStore).
func (s *Store) TraineeTrainer(ctx context.Context, companyID, traineeID int64) (*int64, error) {
	var id *int64
	err := s.traineeScope(s.db, companyID).Column("t.trainer_id").Where("t.id = ?", traineeID).Scan(ctx, &id)
	return id, dbError(err)
}

// checkTrainer refuses a trainer id that is not a trainer of the company
// (1010), or a deactivated one (1035): trainees and keys go to active
// trainers only. On PostgreSQL the trainer's row is read FOR SHARE: a
// deactivation under way (its row FOR UPDATE) is waited for, and its
// result read, so no trainee or key slips to a trainer being deactivated.
func (s *Store) checkTrainer(ctx context.Context, db bun.IDB, companyID, trainerID int64) error {
	var active []bool
	q := db.NewSelect().Model((*trainerRow)(nil)).Column("tr.active").
		Where("tr.company_id = ? AND tr.id = ?", companyID, trainerID)
	if s.dialect == DialectPostgres {
		q = q.For("SHARE")
	}
	err := q.Scan(ctx, &active)
	switch {
	case err != nil:
		return dbError(err)
	case len(active) == 0:
		return api.Invalid(api.CodeUnknownTrainer, "trainerId", "trainer %d is not a trainer of this company", trainerID)
	case !active[0]:
		return api.Invalid(api.CodeTrainerInactive, "trainerId", "trainer %d is deactivated: choose an active trainer", trainerID)
	}
	return nil
}

// firstTrainerQuery is the id of company $1's active trainer with the
// lowest id, held FOR SHARE on PostgreSQL as checkTrainer holds it.
var firstTrainerQuery = &hotQuery{build: func(s *Store) *bun.SelectQuery {
	q := s.db.NewSelect().
		Model((*trainerRow)(nil)).
		Column("tr.id").
		Where("tr.company_id = ? AND tr.active", placeholder(1)).
		OrderExpr("tr.id ASC").
		Limit(1)
	if s.dialect == DialectPostgres {
		q = q.For("SHARE")
	}
	return q
}}

// noActiveTrainer is why a create without a trainerId is refused when
// the company has no active trainer (1034): the first active trainer
// (firstTrainerQuery) is the trainer of a trainee created without one.
const noActiveTrainer = "the company has no active trainer to assign: add one (POST /public-api/trainers) or give trainerId"
