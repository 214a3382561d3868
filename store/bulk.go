package store

import (
	"context"
	"fmt"

	"github.com/uptrace/bun"

	"github.com/traineed/traineed/api"
)

// AddTraineesBulk adds trainees to the company in multi-row INSERTs of
// loadChunk rows (users, then trainees), each chunk in a transaction of
// its own: an error leaves the chunks before it stored. It is for data
// generators (traineed demo --trainees N): unlike CreateTrainee it
// records no trainee.created events (no webhooks, no automations), every
// trainee gets the same passwordHash (its PasswordHash is not read), and a
// trainee without a trainer keeps none. The trainees are already valid. A trainer that is not the
// company's is refused before anything is written; a taken e-mail or
// phone fails its chunk.
func (s *Store) AddTraineesBulk(ctx context.Context, companyID int64, ts []api.NewTrainee, passwordHash string) error {
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
func (s *Store) addTraineeChunk(ctx context.Context, tx bun.Tx, companyID int64, ts []api.NewTrainee, passwordHash string) error {
	now := s.utcNow()
	rows := make([]traineeRow, len(ts))
	users := make([]userRow, len(ts))
	for i := range ts {
		rows[i] = *newTraineeRow(companyID, &ts[i], ts[i].TrainerID, false)
		rows[i].CreatedAt, rows[i].UpdatedAt, rows[i].Version = now, now, 1
		if !rows[i].Enabled {
			rows[i].DeletedAt = &now
		}
		rows[i].SearchName = searchName(rows[i].Name)
		users[i] = userRow{
			Email: rows[i].Email, Phone: rows[i].Phone, Name: rows[i].Name, SearchName: rows[i].SearchName,
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
	for i := range rows {
		rows[i].UserID = userID[rows[i].Email]
		if rows[i].UserID == 0 {
			return fmt.Errorf("store: bulk insert: no user id for %q", rows[i].Email)
		}
	}
	_, err := tx.NewInsert().Model(&rows).Returning("NULL").Exec(ctx)
	return dbError(err)
}

// AnalyzeTrainees refreshes the planner's statistics of the trainees and
// users tables (VACUUM ANALYZE on PostgreSQL, with trainees' searched
// copy trainee_search; ANALYZE on SQLite), as a
// bulk load should before it is searched: over a million rows loaded
// faster than autovacuum notices, a search plans on empty statistics and
// takes about ten times as long.
func (s *Store) AnalyzeTrainees(ctx context.Context) error {
	stmts := []string{"ANALYZE trainees", "ANALYZE users"}
	if s.dialect == DialectPostgres {
		stmts = []string{"VACUUM ANALYZE trainees", "VACUUM ANALYZE trainee_search", "VACUUM ANALYZE users"}
	}
	for _, q := range stmts {
		if _, err := s.db.ExecContext(ctx, q); err != nil {
			return dbError(err)
		}
	}
	return nil
}
