package store

import (
	"context"

	"github.com/uptrace/bun"

	"github.com/traineed/traineed/api"
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

// CreateTrainee stores a new trainee (see api.TraineeStore). Trainees
// created through the API must change their password at first login.
func (s *Store) CreateTrainee(ctx context.Context, companyID int64, nt api.NewTrainee) (*api.Trainee, error) {
	t, _, err := s.CreateTraineeVersion(ctx, companyID, nt)
	return t, err
}

// CreateTraineeVersion is CreateTrainee with the new trainee's version
// (its ETag), as stored when the transaction commits: 1, or more when an
// automation of the create changed it in the same transaction.
func (s *Store) CreateTraineeVersion(ctx context.Context, companyID int64, nt api.NewTrainee) (*api.Trainee, int64, error) {
	var (
		out     *api.Trainee
		version int64
	)
	err := s.inTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		_, c, err := s.createTraineeChange(ctx, tx, companyID, nt, newTraineeOptions{forcePasswordChange: true})
		if err != nil {
			return err
		}
		out, version = c.stored.toAPI(), c.stored.Version // as stored: a verdict may have disabled it
		return nil
	})
	if err != nil {
		return nil, 0, err
	}
	return out, version, nil
}

// createTraineeChange inserts a trainee and its user inside tx, and
// returns the row and the change.
func (s *Store) createTraineeChange(ctx context.Context, tx bun.Tx, companyID int64, nt api.NewTrainee, opt newTraineeOptions) (*traineeRow, *traineeChange, error) {
	if nt.TrainerID != nil {
		if err := s.checkTrainer(ctx, tx, companyID, *nt.TrainerID); err != nil {
			return nil, nil, err
		}
	}
	// Without one, the create's first statement takes the company's
	// first active trainer (insertTrainee).
	row := newTraineeRow(companyID, &nt, nt.TrainerID, opt.forcePasswordChange)
	ch, err := s.saveTrainee(ctx, tx, nil, row, nt.PasswordHash)
	if err != nil {
		return nil, nil, err
	}
	return row, ch, nil
}

// newTraineeRow is the row of a new trainee: its create fields (normalised,
// absent ones given their default), trainerID (already checked; nil takes
// the company's first active trainer when the row is written) and what
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
		out, version = c.stored.toAPI(), c.stored.Version // as stored: a verdict may have disabled it
		return nil
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
