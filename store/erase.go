package store

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"github.com/traineed/traineed/api"
)

var _ api.LifecycleStore = (*Store)(nil)

// erasedRow is the anonymous tombstone of an erased trainee.
type erasedRow struct {
	bun.BaseModel `bun:"table:erased_trainees,alias:er"`

	ID        int64     `bun:"id,pk"`
	CompanyID int64     `bun:"company_id"`
	UserID    int64     `bun:"user_id"`
	CreatedAt time.Time `bun:"created_at"`
	ErasedAt  time.Time `bun:"erased_at"`
}

func (r *erasedRow) toAPI() *api.ErasedTrainee {
	return &api.ErasedTrainee{ID: r.ID, CompanyID: r.CompanyID, UserID: r.UserID, CreatedAt: r.CreatedAt.UTC(), ErasedAt: r.ErasedAt.UTC()}
}

// trackedTables hold a trainee's data by (company_id, trainee_id): the
// tracked data, the days it trained, and its trainee.expired marks.
var trackedTables = []string{"weight_entries", "measurements", "nutrition_items", "daily_steps", "workouts", "trainee_expirations"}

// EraseTrainee erases a trainee of the company in one transaction (see
// api.LifecycleStore): its tracked data and the days it trained are
// deleted; the payloads of its events are redacted to its id, and the
// receivers' answers to their deliveries dropped; the idempotency records
// whose answers hold it are deleted; its trainee and user rows are
// deleted (name, e-mail, phone, date of birth, password hash with them);
// a tombstone keeps its ids and times; the keyed hashes of its e-mail and
// phone number are kept (recordFingerprints: erased people stay erased);
// and trainee.erased goes into the outbox and the feed. A trainee erased before answers its tombstone.
func (s *Store) EraseTrainee(ctx context.Context, companyID, id int64, confirm string) (*api.ErasedTrainee, error) {
	var out *api.ErasedTrainee
	err := s.inTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		row, err := s.loadTrainee(ctx, tx, companyID, id, true)
		if errors.Is(err, api.ErrNotFound) {
			tomb := new(erasedRow)
			if err := tx.NewSelect().Model(tomb).Where("er.company_id = ? AND er.id = ?", companyID, id).Scan(ctx); err != nil {
				return dbError(err)
			}
			out = tomb.toAPI()
			return nil
		}
		if err != nil {
			return err
		}
		if !api.ConfirmsErase(confirm, row.Email) {
			return api.Invalid(api.CodeEraseNotConfirmed, "confirm", "confirm must be the trainee's e-mail address; nothing was erased")
		}
		out, err = s.erase(ctx, tx, row)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// erase does EraseTrainee's work for the trainee row, locked in tx.
func (s *Store) erase(ctx context.Context, tx bun.Tx, row *traineeRow) (*api.ErasedTrainee, error) {
	now := s.utcNow()
	for _, table := range trackedTables {
		if _, err := tx.ExecContext(ctx, "DELETE FROM "+table+" WHERE company_id = ? AND trainee_id = ?", row.CompanyID, row.ID); err != nil {
			return nil, dbError(err)
		}
	}
	if err := s.redactEvents(ctx, tx, row.CompanyID, row.ID); err != nil {
		return nil, err
	}
	if err := forgetAnswers(ctx, tx, row); err != nil {
		return nil, err
	}
	if err := s.recordErased(ctx, tx, row.CompanyID, row.ID, now); err != nil {
		return nil, err
	}
	if err := recordFingerprints(ctx, tx, row, now); err != nil {
		return nil, err
	}
	if _, err := tx.ExecContext(ctx, "DELETE FROM trainees WHERE company_id = ? AND id = ?", row.CompanyID, row.ID); err != nil {
		return nil, dbError(err)
	}
	if _, err := tx.ExecContext(ctx, "DELETE FROM users WHERE id = ?", row.UserID); err != nil {
		return nil, dbError(err)
	}
	tomb := &erasedRow{ID: row.ID, CompanyID: row.CompanyID, UserID: row.UserID, CreatedAt: row.CreatedAt, ErasedAt: now}
	if _, err := tx.NewInsert().Model(tomb).Exec(ctx); err != nil {
		return nil, dbError(err)
	}
	return tomb.toAPI(), nil
}

// redactEvents rewrites the payload of every event of the trainee so that
// it names the trainee by id only (api.RedactedEvent; an automation.fired
// keeps its automation), and drops the receivers' answers to their
// deliveries (a receiver may echo the body it got).
func (s *Store) redactEvents(ctx context.Context, tx bun.Tx, companyID, traineeID int64) error {
	var evs []webhookEventRow
	err := tx.NewSelect().Model(&evs).Column("e.id", "e.type", "e.payload").
		Where("e.company_id = ? AND e.trainee_id = ?", companyID, traineeID).
		OrderExpr("e.id ASC").Scan(ctx)
	if err != nil {
		return dbError(err)
	}
	for _, ev := range evs {
		body, err := redactPayload(ev.Type, ev.Payload, traineeID)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, "UPDATE webhook_events SET payload = ? WHERE id = ?", body, ev.ID); err != nil {
			return dbError(err)
		}
	}
	_, err = tx.ExecContext(ctx, `UPDATE webhook_attempts SET response = NULL
		WHERE response IS NOT NULL AND delivery_id IN (
			SELECT d.id FROM webhook_deliveries AS d JOIN webhook_events AS e ON e.id = d.event_id
			WHERE e.company_id = ? AND e.trainee_id = ?)`, companyID, traineeID)
	return dbError(err)
}

// redactPayload is payload with its data.trainee replaced by the id alone.
func redactPayload(typ, payload string, traineeID int64) (string, error) {
	if typ == api.EventAutomationFired {
		var m map[string]json.RawMessage
		var data map[string]json.RawMessage
		if json.Unmarshal([]byte(payload), &m) != nil || json.Unmarshal(m["data"], &data) != nil || data == nil {
			m, data = map[string]json.RawMessage{"type": json.RawMessage(strconv.Quote(typ))}, map[string]json.RawMessage{}
		}
		data["trainee"], _ = json.Marshal(api.RedactedTrainee{ID: traineeID})
		m["data"], _ = json.Marshal(data)
		b, err := json.Marshal(m)
		return string(b), err
	}
	var ev struct {
		Timestamp int64 `json:"timestamp"`
		Data      struct {
			ChangedFields []string `json:"changedFields"`
		} `json:"data"`
	}
	_ = json.Unmarshal([]byte(payload), &ev) // what cannot be read is dropped
	return redactedBody(typ, ev.Timestamp, traineeID, ev.Data.ChangedFields)
}

func redactedBody(typ string, ts, traineeID int64, fields []string) (string, error) {
	if fields == nil {
		fields = []string{}
	}
	b, err := json.Marshal(api.RedactedEvent{Type: typ, Timestamp: ts,
		Data: api.RedactedData{Trainee: api.RedactedTrainee{ID: traineeID}, ChangedFields: fields}})
	return string(b), err
}

// forgetAnswers deletes the company's idempotency records whose stored
// answer holds the trainee: its representation (which starts with its id
// and user id, whatever its e-mail was then) or its e-mail address.
func forgetAnswers(ctx context.Context, tx bun.Tx, row *traineeRow) error {
	repr := "%" + likeEscape(`{"id":`+strconv.FormatInt(row.ID, 10)+`,"userId":`+strconv.FormatInt(row.UserID, 10)+`,`) + "%"
	quoted, _ := json.Marshal(row.Email) // as the answer's JSON writes it
	email := "%" + likeEscape(string(quoted)) + "%"
	_, err := tx.ExecContext(ctx, "DELETE FROM idempotency_keys WHERE company_id = ? AND (body LIKE ? ESCAPE '!' OR body LIKE ? ESCAPE '!')",
		row.CompanyID, repr, email)
	return dbError(err)
}

// likeEscape escapes LIKE's wildcards (and the escape, '!') in s.
func likeEscape(s string) string {
	return strings.NewReplacer("!", "!!", "%", "!%", "_", "!_").Replace(s)
}

// recordErased puts trainee.erased, with the trainee's id alone, into the
// outbox (a delivery per subscribed endpoint) and the feed.
func (s *Store) recordErased(ctx context.Context, tx bun.Tx, companyID, traineeID int64, now time.Time) error {
	if !s.outbox {
		return nil
	}
	body, err := redactedBody(api.EventTraineeErased, now.Unix(), traineeID, nil)
	if err != nil {
		return err
	}
	ev := &webhookEventRow{PublicID: api.NewWebhookEventID(), CompanyID: companyID, TraineeID: traineeID,
		Type: api.EventTraineeErased, Payload: body, CreatedAt: now}
	if err := s.insertEvent(ctx, tx, ev); err != nil {
		return err
	}
	_, err = s.scheduleDeliveries(ctx, tx, ev, now)
	return err
}
