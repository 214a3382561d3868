package store

import (
	"context"
	"fmt"
	"strings"

	"github.com/uptrace/bun"

	"github.com/traineed/traineed/api"
)

// BulkTrainee is one trainee of AddTraineesBulk, as a generator makes it:
// already valid, its e-mail normalized.
type BulkTrainee struct {
	Name           string
	Email          string
	Phone          *string
	TrainerID      *int64 // nil: none
	DateOfBirth    *api.Date
	ExpirationDate *api.Date
	LastTrained    *api.Date
	Enabled        bool // false: soft-deleted
	WeightUnit     string
	CreatedByType  string
}

// AddTraineesBulk adds trainees to the company in multi-row INSERTs of
// loadChunk rows (users, then trainees), each chunk in a transaction of
// its own: an error leaves the chunks before it stored. It is for data
// generators (traineed demo --trainees N): unlike CreateTrainee it
// records no trainee.created events (no webhooks, no automations) and
// every trainee gets the same passwordHash. A trainer that is not the
// company's is refused before anything is written; a taken e-mail or
// phone fails its chunk.
func (s *Store) AddTraineesBulk(ctx context.Context, companyID int64, ts []BulkTrainee, passwordHash string) error {
	checked := map[int64]bool{}
	for _, t := range ts {
		if t.TrainerID == nil || checked[*t.TrainerID] {
			continue
		}
		if err := s.checkTrainer(ctx, s.db, companyID, *t.TrainerID); err != nil {
			return err
		}
		checked[*t.TrainerID] = true
	}
	for start := 0; start < len(ts); start += loadChunk {
		chunk := ts[start:min(len(ts), start+loadChunk)]
		if err := s.inTx(ctx, func(ctx context.Context, tx bun.Tx) error {
			return s.addTraineeChunk(ctx, tx, companyID, chunk, passwordHash)
		}); err != nil {
			return err
		}
	}
	return nil
}

// addTraineeChunk inserts one chunk's users and trainees. The trainee
// rows are whole traineeRows, the copies of the user's columns that search
// reads (e-mail, phone, search_name) included, as insertTrainee writes
// them.
func (s *Store) addTraineeChunk(ctx context.Context, tx bun.Tx, companyID int64, ts []BulkTrainee, passwordHash string) error {
	now := s.utcNow()
	users := make([]userRow, len(ts))
	for i, t := range ts {
		users[i] = userRow{
			Email: api.NormalizeEmail(t.Email), Phone: t.Phone, Name: strings.TrimSpace(t.Name), SearchName: searchName(strings.TrimSpace(t.Name)),
			PasswordHash: passwordHash, CreatedAt: now,
		}
	}
	var ids []struct {
		ID    int64  `bun:"id"`
		Email string `bun:"email"`
	}
	// The ids go by e-mail: the order of RETURNING rows is not promised.
	if err := tx.NewInsert().Model(&users).Returning("id, email").Scan(ctx, &ids); err != nil {
		return dbError(err)
	}
	if len(ids) != len(ts) {
		return fmt.Errorf("store: bulk insert returned %d users for %d", len(ids), len(ts))
	}
	userID := make(map[string]int64, len(ids))
	for _, r := range ids {
		userID[r.Email] = r.ID
	}
	rows := make([]traineeRow, len(ts))
	for i, t := range ts {
		r := traineeRow{
			CompanyID: companyID, UserID: userID[users[i].Email], TrainerID: t.TrainerID,
			DateOfBirth: dateToInt(t.DateOfBirth), ExpirationDate: dateToInt(t.ExpirationDate), LastTrained: dateToInt(t.LastTrained),
			Enabled: t.Enabled, CreatedByType: t.CreatedByType, WeightUnit: t.WeightUnit,
			CreatedAt: now, UpdatedAt: now, Version: 1,
			Email: users[i].Email, Phone: t.Phone, Name: users[i].Name, SearchName: users[i].SearchName,
		}
		if r.UserID == 0 {
			return fmt.Errorf("store: bulk insert: no user id for %q", users[i].Email)
		}
		if r.CreatedByType == "" {
			r.CreatedByType = api.CreatedByAdmin
		}
		if r.WeightUnit == "" {
			r.WeightUnit = api.UnitKG
		}
		if !r.Enabled {
			r.DeletedAt = &now
		}
		rows[i] = r
	}
	_, err := tx.NewInsert().Model(&rows).Returning("NULL").Exec(ctx)
	return dbError(err)
}

// AnalyzeTrainees refreshes the planner's statistics of the trainees and
// users tables (VACUUM ANALYZE on PostgreSQL, ANALYZE on SQLite), as a
// bulk load should before it is searched: over a million rows loaded
// faster than autovacuum notices, a search plans on empty statistics and
// takes about ten times as long.
func (s *Store) AnalyzeTrainees(ctx context.Context) error {
	stmts := []string{"ANALYZE trainees", "ANALYZE users"}
	if s.dialect == DialectPostgres {
		stmts = []string{"VACUUM ANALYZE trainees", "VACUUM ANALYZE users"}
	}
	for _, q := range stmts {
		if _, err := s.db.ExecContext(ctx, q); err != nil {
			return dbError(err)
		}
	}
	return nil
}
