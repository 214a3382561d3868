package store

import (
	"context"
	"fmt"
	"sync"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/migrate"

	"github.com/traineed/traineed/api"
)

// phonesMigration is the data migration that brings the phone numbers
// stored before libphonenumber's rule (api.PhoneE164) to E.164, the form
// every new one has: "+44 7700 900123" was stored as "+447700900123"
// already, but "+44 (0)7700 900123" as "+4407700900123". It runs once,
// after the schema's migrations of the same name order, and never fails
// the start: a number that does not parse, or whose E.164 form another
// person already has, is left as it is and reported (Store.MigrationNotes:
// the server's log, `traineed migrate`'s output).
const phonesMigration = "20260101000016"

// phoneBatch is how many users' numbers one statement reads;
// phoneNotesMax how many numbers left alone are listed one by one (the
// summary counts them all).
const (
	phoneBatch    = 1000
	phoneNotesMax = 100
)

// migrationNotes are what this process's migrations reported.
type migrationNotes struct {
	mu    sync.Mutex
	notes []string
}

func (n *migrationNotes) add(format string, args ...any) {
	n.mu.Lock()
	n.notes = append(n.notes, fmt.Sprintf(format, args...))
	n.mu.Unlock()
}

// MigrationNotes are what the migrations this process applied reported
// for an operator to look at (numbers left as they were, ...): each is
// reported by the process that applied its migration, once.
func (s *Store) MigrationNotes() []string {
	s.notes.mu.Lock()
	defer s.notes.mu.Unlock()
	return append([]string(nil), s.notes.notes...)
}

// addGoMigrations adds the migrations written in Go to migrations.
func (s *Store) addGoMigrations(migrations *migrate.Migrations) {
	migrations.Add(migrate.Migration{
		Name:    phonesMigration,
		Comment: "phones_e164",
		Up: func(ctx context.Context, m *migrate.Migrator, _ *migrate.Migration) error {
			return s.normalizePhones(ctx, m.DB())
		},
		Down: func(context.Context, *migrate.Migrator, *migrate.Migration) error { return nil },
	})
}

// normalizePhones brings every stored phone number to E.164 where it
// parses and the form is free, in batches by user id, each batch one
// transaction; users.phone and its copy trainees.phone change together.
func (s *Store) normalizePhones(ctx context.Context, db *bun.DB) error {
	var after int64
	var changed, left int
	for {
		var rows []struct {
			ID    int64  `bun:"id"`
			Phone string `bun:"phone"`
		}
		err := db.NewSelect().Table("users").Column("id", "phone").
			Where("phone IS NOT NULL AND id > ?", after).OrderExpr("id").Limit(phoneBatch).Scan(ctx, &rows)
		if err != nil {
			return fmt.Errorf("store: phone numbers: %w", err)
		}
		if len(rows) == 0 {
			break
		}
		after = rows[len(rows)-1].ID
		err = db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
			for _, r := range rows {
				e164, problem := api.PhoneE164(r.Phone)
				switch {
				case problem != "":
					if left++; left <= phoneNotesMax {
						s.notes.add("user %d: phone number %q left as it is: %s", r.ID, api.EscapeText(r.Phone), problem)
					}
					continue
				case e164 == r.Phone:
					continue
				}
				taken, err := tx.NewSelect().Table("users").Where("phone = ?", e164).Exists(ctx)
				if err != nil {
					return err
				}
				if taken {
					if left++; left <= phoneNotesMax {
						s.notes.add("user %d: phone number %q left as it is: its E.164 form %s is another user's", r.ID, api.EscapeText(r.Phone), e164)
					}
					continue
				}
				if _, err := tx.NewUpdate().Table("users").Set("phone = ?", e164).Where("id = ?", r.ID).Exec(ctx); err != nil {
					return err
				}
				if _, err := tx.NewUpdate().Table("trainees").Set("phone = ?", e164).Where("user_id = ?", r.ID).Exec(ctx); err != nil {
					return err
				}
				changed++
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("store: phone numbers: %w", err)
		}
	}
	if changed+left > 0 {
		listed := "listed above"
		if left > phoneNotesMax {
			listed = fmt.Sprintf("the first %d listed above", phoneNotesMax)
		}
		s.notes.add("phone numbers: %d brought to E.164, %d left as they were (%s)", changed, left, listed)
	}
	return nil
}
