package store

import (
	"context"
	"time"

	"github.com/uptrace/bun"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/rules"
)

var _ api.TraineeStore = (*Store)(nil)

// traineeScope is where every trainee query starts: the trainees of one
// company, alias t. Nothing else in this package selects from trainees.
// companyID is an int64, or the placeholder standing for one in a hotQuery.
func (s *Store) traineeScope(db bun.IDB, companyID any) *bun.SelectQuery {
	return db.NewSelect().
		Model((*traineeRow)(nil)).
		Where("t.company_id = ?", companyID)
}

// traineeQuery is traineeScope with the trainee's user joined (alias u) and
// every column of traineeRow selected.
func (s *Store) traineeQuery(db bun.IDB, companyID any) *bun.SelectQuery {
	return s.traineeScope(db, companyID).
		ColumnExpr(traineeColumns).
		Join("JOIN users AS u ON u.id = t.user_id")
}

// loadTrainee reads one trainee of the company; forUpdate locks it on
// PostgreSQL for the rest of the transaction.
func (s *Store) loadTrainee(ctx context.Context, db bun.IDB, companyID, id int64, forUpdate bool) (*traineeRow, error) {
	q := s.traineeQuery(db, companyID).Where("t.id = ?", id)
	if forUpdate {
		q = s.forUpdate(q)
	}
	row := new(traineeRow)
	if err := q.Scan(ctx, row); err != nil {
		return nil, dbError(err)
	}
	return row, nil
}

// traineeByID is traineeQuery for company $1 and trainee id $2.
var traineeByID = &hotQuery{build: func(s *Store) *bun.SelectQuery {
	return s.byRowID(s.traineeQuery(s.db, placeholder(1))).Where("t.id = ?", placeholder(2))
}}

// byRowID makes a prepared statement that reads one trainee by its id
// ($n, bound on every call) read trainees by rowid alone on SQLite (NOT
// INDEXED): with ANALYZE's STAT4 samples of an index that leads with id
// (trainees_id_status_idx), SQLite counts a bound id as one that may change
// the plan, and prepares the statement again on every call to weigh it.
// That was half the CPU of a GET by id (it served 5,900 requests a second
// on 20,000 trainees, 12,200 without; docs/performance.md); the rowid is
// the plan for every id anyway.
func (s *Store) byRowID(q *bun.SelectQuery) *bun.SelectQuery {
	if s.dialect != DialectSQLite {
		return q
	}
	return q.ModelTableExpr("trainees AS t NOT INDEXED")
}

// Trainee returns one trainee of the company, soft-deleted ones included.
func (s *Store) Trainee(ctx context.Context, companyID, id int64) (*api.Trainee, error) {
	row := new(traineeRow)
	if err := s.queryHot(ctx, traineeByID, row, companyID, id); err != nil {
		return nil, err
	}
	return row.toAPI(), nil
}

// newTraineeOptions are what the API cannot choose but demo data can.
type newTraineeOptions struct {
	forcePasswordChange bool
}

// newTraineeRow is the row of a new trainee: its create fields (normalised,
// absent ones given their default), trainerID (already checked) and what
// only the server chooses. Its user's columns are in it too.
func newTraineeRow(companyID int64, nt *api.NewTrainee, trainerID *int64, forcePasswordChange bool) *traineeRow {
	p := nt.Patch()
	p.TrainerID = api.Optional[int64]{}
	p.SetDefaults()
	row := patchedRow(&traineeRow{
		CompanyID: companyID, TrainerID: clonePtr(trainerID), LastTrained: dateToInt(nt.LastTrained),
		Enabled: nt.Enabled, CreatedByType: nt.CreatedByType, ForcePasswordChange: forcePasswordChange,
	}, p)
	if row.CreatedByType == "" {
		row.CreatedByType = api.CreatedByAdmin
	}
	return row
}

// CreateTrainee stores a new trainee (see api.TraineeStore). Trainees
// created through the API must change their password at first login.
func (s *Store) CreateTrainee(ctx context.Context, companyID int64, nt api.NewTrainee) (*api.Trainee, error) {
	var out *api.Trainee
	err := s.inTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		row, c, err := s.createTraineeChange(ctx, tx, companyID, nt, newTraineeOptions{forcePasswordChange: true})
		if err != nil {
			return err
		}
		out, err = s.result(ctx, tx, c, row)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// createTrainee inserts a trainee and its user inside tx.
func (s *Store) createTrainee(ctx context.Context, tx bun.Tx, companyID int64, nt api.NewTrainee, opt newTraineeOptions) (*traineeRow, error) {
	row, _, err := s.createTraineeChange(ctx, tx, companyID, nt, opt)
	return row, err
}

// createTraineeChange is createTrainee that also returns the change.
func (s *Store) createTraineeChange(ctx context.Context, tx bun.Tx, companyID int64, nt api.NewTrainee, opt newTraineeOptions) (*traineeRow, *traineeChange, error) {
	trainerID := nt.TrainerID
	if trainerID != nil {
		if err := s.checkTrainer(ctx, tx, companyID, *trainerID); err != nil {
			return nil, nil, err
		}
	} else {
		var err error
		if trainerID, err = s.firstTrainer(ctx, tx, companyID); err != nil {
			return nil, nil, err
		}
	}
	row := newTraineeRow(companyID, &nt, trainerID, opt.forcePasswordChange)
	ch, err := s.saveTrainee(ctx, tx, nil, row, nt.PasswordHash)
	if err != nil {
		return nil, nil, err
	}
	return row, ch, nil
}

// IsTrainer reports whether trainerID is a trainer of the company.
func (s *Store) IsTrainer(ctx context.Context, companyID, trainerID int64) (bool, error) {
	return s.isTrainer(ctx, s.db, companyID, trainerID)
}

func (s *Store) isTrainer(ctx context.Context, db bun.IDB, companyID, trainerID int64) (bool, error) {
	ok, err := db.NewSelect().
		Model((*trainerRow)(nil)).
		Where("tr.company_id = ? AND tr.id = ?", companyID, trainerID).
		Exists(ctx)
	return ok, dbError(err)
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

// firstTrainer is the company's active trainer with the lowest id: the
// trainer of a trainee created without one. A company with none refuses
// the create (1034).
func (s *Store) firstTrainer(ctx context.Context, tx bun.Tx, companyID int64) (*int64, error) {
	var ids []int64
	if err := s.selectHot(ctx, tx, firstTrainerQuery, &ids, companyID); err != nil {
		return nil, err
	}
	if len(ids) == 0 {
		return nil, api.Invalid(api.CodeNoActiveTrainer, "trainerId",
			"the company has no active trainer to assign: add one (POST /public-api/trainers) or give trainerId")
	}
	return &ids[0], nil
}

// UpdateTrainee applies p in one transaction (see api.TraineeStore).
func (s *Store) UpdateTrainee(ctx context.Context, companyID, id int64, p api.TraineePatch) (*api.Trainee, error) {
	t, _, err := s.UpdateTraineeIf(ctx, companyID, id, nil, p)
	return t, err
}

// TraineeVersion returns one trainee of the company and its version.
func (s *Store) TraineeVersion(ctx context.Context, companyID, id int64) (*api.Trainee, int64, error) {
	row := new(traineeRow)
	if err := s.queryHot(ctx, traineeByID, row, companyID, id); err != nil {
		return nil, 0, err
	}
	return row.toAPI(), row.Version, nil
}

// UpdateTraineeIf applies p in one transaction when m (nil: always)
// matches the trainee's version, read under the row's lock (see
// api.TraineeStore).
func (s *Store) UpdateTraineeIf(ctx context.Context, companyID, id int64, m *api.IfMatch, p api.TraineePatch) (*api.Trainee, int64, error) {
	var (
		out     *api.Trainee
		version int64
	)
	err := s.inTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		before, err := s.loadTrainee(ctx, tx, companyID, id, true)
		if err != nil {
			return err
		}
		if m != nil && !m.Matches(before.Version) {
			return api.ErrPreconditionFailed
		}
		after, err := s.applyPatch(ctx, tx, before, p)
		if err != nil {
			return err
		}
		hash := "" // keep the stored one
		if p.Password.Set {
			hash = p.Password.Value // hashed by the caller
		}
		c, err := s.saveTrainee(ctx, tx, before, after, hash)
		if err != nil {
			return err
		}
		out, version, err = s.resultVersion(ctx, tx, c, after)
		return err
	})
	if err != nil {
		return nil, 0, err
	}
	return out, version, nil
}

// applyPatch returns before with p applied; before is left alone. A new
// trainer must be a trainer of the company.
func (s *Store) applyPatch(ctx context.Context, tx bun.Tx, before *traineeRow, p api.TraineePatch) (*traineeRow, error) {
	if p.TrainerID.Set && !p.TrainerID.Null {
		if err := s.checkTrainer(ctx, tx, before.CompanyID, p.TrainerID.Value); err != nil {
			return nil, err
		}
	}
	return patchedRow(before, p), nil
}

// traineeChange is one change of a trainee, committed with it.
type traineeChange struct {
	Before *api.Trainee // nil for a create
	After  *api.Trainee
	// Fields is api.ChangedFields(Before, After), or api.CreatedFields(After)
	// for a create, and "password" for a new password.
	Fields []string

	Deliveries []int64 // the webhook deliveries the change scheduled
	Recorded   bool    // an event went into the outbox (and the feed)
	// Disabled: an automation fired by the change soft-deleted the trainee
	// in the same transaction; After is then not what is stored.
	Disabled bool
	// verdicts are the DISABLE_TRAINEE verdicts of the automations the
	// change fired, for settleDisables to apply.
	verdicts []rules.Verdict
}

// result is what a change returns to its caller: the trainee as stored
// when the transaction commits.
func (s *Store) result(ctx context.Context, tx bun.Tx, ch *traineeChange, row *traineeRow) (*api.Trainee, error) {
	if ch == nil || !ch.Disabled {
		return row.toAPI(), nil
	}
	r, err := s.loadTrainee(ctx, tx, row.CompanyID, row.ID, false)
	if err != nil {
		return nil, err
	}
	return r.toAPI(), nil
}

// resultVersion is result with the version stored.
func (s *Store) resultVersion(ctx context.Context, tx bun.Tx, ch *traineeChange, row *traineeRow) (*api.Trainee, int64, error) {
	if ch == nil || !ch.Disabled {
		return row.toAPI(), row.Version, nil
	}
	r, err := s.loadTrainee(ctx, tx, row.CompanyID, row.ID, false)
	if err != nil {
		return nil, 0, err
	}
	return r.toAPI(), r.Version, nil
}

// saveTrainee is the one function that writes trainee data, inside tx, and
// so the one that knows every change: before is nil for a create (after
// then gets its ids and passwordHash must be set); otherwise passwordHash ""
// keeps the stored one. A change that alters nothing writes nothing and
// returns a change without fields. Every change that writes records its
// webhook event in tx (the transactional outbox).
//
// A change passes through the trainee code, the outbox and the rules once
// each, in that order: the automations it fires answer with verdicts, and
// a DISABLE_TRAINEE verdict comes back here to be applied as a second
// change of the same transaction (settleDisables).
func (s *Store) saveTrainee(ctx context.Context, tx bun.Tx, before, after *traineeRow, passwordHash string) (*traineeChange, error) {
	ch, err := s.writeChange(ctx, tx, before, after, passwordHash)
	if err != nil {
		return nil, err
	}
	if err := s.settleDisables(ctx, tx, ch, after.CompanyID, after.ID); err != nil {
		return nil, err
	}
	return ch, nil
}

// settleDisables applies ch's DISABLE_TRAINEE verdicts as the rules
// settle them (rules.Settle): one soft-deletes the trainee as a DELETE
// would (its trainee.deleted event, and the automations that event fires,
// included), the others' runs are marked skipped. It loops until no
// verdict is left: the disable's own verdicts find the trainee deleted,
// so it ends.
func (s *Store) settleDisables(ctx context.Context, tx bun.Tx, ch *traineeChange, companyID, traineeID int64) error {
	for len(ch.verdicts) > 0 {
		verdicts := ch.verdicts
		ch.verdicts = nil
		before, err := s.loadTrainee(ctx, tx, companyID, traineeID, true)
		if err != nil {
			return err
		}
		disable, skipped := rules.Settle(before.Enabled, verdicts)
		if disable != nil {
			after := before.clone()
			after.Enabled = false
			by := api.WithActor(ctx, api.Actor{Type: api.ActorAutomation, ID: disable.Automation})
			next, err := s.writeChange(by, tx, before, after, "")
			if err != nil {
				return err
			}
			ch.Deliveries = append(ch.Deliveries, next.Deliveries...)
			ch.verdicts = next.verdicts
			ch.Disabled = true
		}
		if len(skipped) > 0 {
			if err := s.skipRuns(ctx, tx, skipped); err != nil {
				return err
			}
		}
	}
	return nil
}

// writeChange writes one change, records its event in the outbox and
// fires the automations the rules fire for it: saveTrainee without the
// verdicts applied.
func (s *Store) writeChange(ctx context.Context, tx bun.Tx, before, after *traineeRow, passwordHash string) (*traineeChange, error) {
	now := s.utcNow()
	ch := &traineeChange{After: after.toAPI()}
	if before == nil {
		if err := s.insertTrainee(ctx, tx, after, passwordHash, now); err != nil {
			return nil, err
		}
		ch.After = after.toAPI()
		ch.Fields = api.CreatedFields(ch.After, passwordHash != "")
	} else {
		ch.Before = before.toAPI()
		ch.Fields = api.ChangedFields(ch.Before, ch.After)
		if passwordHash != "" {
			ch.Fields = append(ch.Fields, "password")
		}
		if len(ch.Fields) == 0 {
			return ch, nil
		}
		if err := s.writeUpdate(ctx, tx, before, after, passwordHash, now); err != nil {
			return nil, err
		}
		ch.After = after.toAPI()
	}
	if !s.outbox {
		return ch, nil
	}
	typ, eventID, err := s.recordEvent(ctx, tx, ch, now)
	if err != nil {
		return nil, err
	}
	// Automations fire from the same outbox write: with the change, or
	// not at all.
	return ch, s.fireEventAutomations(ctx, tx, ch, typ, eventID, now)
}

// insertTrainee inserts a new trainee's user and trainee rows; row gets
// its ids and times.
func (s *Store) insertTrainee(ctx context.Context, tx bun.Tx, row *traineeRow, passwordHash string, now time.Time) error {
	user := &userRow{
		Email:        row.Email,
		Phone:        row.Phone,
		Name:         row.Name,
		SearchName:   searchName(row.Name),
		PasswordHash: passwordHash,
		CreatedAt:    now,
	}
	if err := s.insertHot(ctx, tx, user); err != nil {
		return dbError(err)
	}
	row.UserID = user.ID
	row.SearchName = user.SearchName // the mirrors (Email, Phone) are row's own
	row.CreatedAt, row.UpdatedAt = now, now
	row.Version = 1
	if !row.Enabled {
		row.DeletedAt = &now
	}
	return dbError(s.insertHot(ctx, tx, row))
}

// writeUpdate writes after over before: the user's columns when they
// (or the password) changed, and the trainee's updatable columns with the
// times of the change (deleted_at follows enabled).
func (s *Store) writeUpdate(ctx context.Context, tx bun.Tx, before, after *traineeRow, passwordHash string, now time.Time) error {
	switch {
	case before.Enabled && !after.Enabled:
		after.DeletedAt = &now
	case after.Enabled:
		after.DeletedAt = nil
	}
	after.UpdatedAt = now
	after.Version = before.Version + 1
	after.SearchName = searchName(after.Name)
	if userChanged(before, after) || passwordHash != "" {
		q := setUserColumns(tx.NewUpdate().Model((*userRow)(nil)), after).
			Where("u.id = ?", after.UserID)
		if passwordHash != "" {
			q = q.Set("password_hash = ?", passwordHash)
		}
		if _, err := q.Exec(ctx); err != nil {
			return dbError(err)
		}
	}
	_, err := tx.NewUpdate().
		Model(after).
		Column(traineeUpdateColumns...).
		Where("t.id = ? AND t.company_id = ?", after.ID, after.CompanyID).
		Exec(ctx)
	return dbError(err)
}

// searchName is what users.search_name and trainees.search_name hold: the name lower-cased by Go,
// identically for both databases.
func searchName(name string) string { return api.SearchName(name) }
