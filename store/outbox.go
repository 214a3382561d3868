package store

import (
	"context"
	"errors"
	"time"

	"github.com/traineed/traineed/api"
	"github.com/uptrace/bun"
)

// The webhook outbox, as the dispatcher (package cmd/traineed/jobs) works
// it: claim due deliveries under a lease, record each attempt, release what
// a shutdown interrupted, prune what is finished, and wake on changes this
// process committed. These are the store's only methods that span every
// company: they serve the background worker, never a request.

// DeliveryAttempt is what one HTTP attempt of a delivery gave.
type DeliveryAttempt = api.WebhookResult

// ClaimedDelivery is a delivery whose lease the caller holds: what to send,
// where, signed with which secret.
type ClaimedDelivery struct {
	DeliveryID int64  `bun:"delivery_id"`
	Attempts   int    `bun:"attempts"`
	WebhookID  int64  `bun:"webhook_id"`
	EventID    string `bun:"public_id"`
	Payload    string `bun:"payload"`
	URL        string `bun:"url"`
	Secret     string `bun:"secret"`
	// PreviousSecret signs beside Secret until PreviousUntil, after a
	// rotation.
	PreviousSecret *string    `bun:"previous_secret"`
	PreviousUntil  *time.Time `bun:"previous_secret_expires_at"`
	lease          string
}

// Secrets returns the secrets that sign c at now: the endpoint's, and the
// previous one while it has not expired.
func (c *ClaimedDelivery) Secrets(now time.Time) []string {
	return signingSecrets(c.Secret, c.PreviousSecret, c.PreviousUntil, now)
}

func signingSecrets(secret string, prev *string, until *time.Time, now time.Time) []string {
	out := []string{secret}
	if prev != nil && until != nil && now.Before(*until) {
		out = append(out, *prev)
	}
	return out
}

// ErrLeaseLost is FinishDelivery's error when the delivery is no longer
// this dispatcher's: deleted with its endpoint, or claimed by another after
// the lease expired.
var ErrLeaseLost = errors.New("store: delivery lease lost")

const leaseAlphabet = "abcdefghijklmnopqrstuvwxyz0123456789"

// ClaimDeliveries leases up to limit due deliveries of enabled endpoints,
// oldest due first, in one short transaction. On PostgreSQL the rows are
// selected FOR UPDATE SKIP LOCKED, so dispatchers claiming at the same time
// take different rows, and the select, the lease and the read of what to
// send are one statement; SQLite's immediate transactions serialise claims.
func (s *Store) ClaimDeliveries(ctx context.Context, limit int, lease time.Duration) ([]*ClaimedDelivery, error) {
	now := s.utcNow()
	token := api.RandomString(20, leaseAlphabet)
	claim := s.claimSQLite
	if s.dialect == DialectPostgres {
		claim = s.claimPostgres
	}
	out, err := claim(ctx, limit, now, now.Add(lease), token)
	if err != nil {
		return nil, err
	}
	for _, c := range out {
		c.lease = token
	}
	return out, nil
}

// claimPostgres claims in one statement, FOR UPDATE SKIP LOCKED.
func (s *Store) claimPostgres(ctx context.Context, limit int, now, until time.Time, token string) ([]*ClaimedDelivery, error) {
	var out []*ClaimedDelivery
	err := s.db.NewRaw(`WITH c AS (
				SELECT d.id FROM webhook_deliveries AS d
				JOIN webhooks AS w ON w.id = d.webhook_id
				WHERE d.status = ? AND d.next_attempt_at <= ? AND (d.locked_until IS NULL OR d.locked_until <= ?) AND w.enabled
				ORDER BY d.next_attempt_at ASC, d.id ASC
				LIMIT ?
				FOR UPDATE OF d SKIP LOCKED),
			u AS (
				UPDATE webhook_deliveries AS d SET locked_until = ?, lease = ?, updated_at = ?
				FROM c WHERE d.id = c.id
				RETURNING d.id, d.attempts, d.webhook_id, d.event_id)
			SELECT u.id AS delivery_id, u.attempts, u.webhook_id, e.public_id, e.payload, w.url, w.secret, w.previous_secret, w.previous_secret_expires_at
			FROM u
			JOIN webhook_events AS e ON e.id = u.event_id
			JOIN webhooks AS w ON w.id = u.webhook_id`,
		api.DeliveryPending, now, now, limit, until, token, now).Scan(ctx, &out)
	return out, err
}

// claimSQLite claims in an immediate transaction, which holds the write
// lock from its start.
func (s *Store) claimSQLite(ctx context.Context, limit int, now, until time.Time, token string) ([]*ClaimedDelivery, error) {
	var out []*ClaimedDelivery
	err := s.inTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		out = nil
		err := tx.NewSelect().
			Model((*webhookDeliveryRow)(nil)).
			ColumnExpr("d.id AS delivery_id, d.attempts, d.webhook_id, e.public_id, e.payload, w.url, w.secret, w.previous_secret, w.previous_secret_expires_at").
			Join("JOIN webhook_events AS e ON e.id = d.event_id").
			Join("JOIN webhooks AS w ON w.id = d.webhook_id").
			Where("d.status = ?", api.DeliveryPending).
			Where("d.next_attempt_at <= ?", now).
			Where("(d.locked_until IS NULL OR d.locked_until <= ?)", now).
			Where("w.enabled").
			OrderExpr("d.next_attempt_at ASC, d.id ASC").
			Limit(int64(limit)).
			Scan(ctx, &out)
		if err != nil {
			return err
		}
		if len(out) == 0 {
			return nil
		}
		ids := make([]int64, len(out))
		for i, c := range out {
			ids[i] = c.DeliveryID
		}
		_, err = tx.NewUpdate().
			Model((*webhookDeliveryRow)(nil)).
			Set("locked_until = ?", until).
			Set("lease = ?", token).
			Set("updated_at = ?", now).
			Where("d.id IN (?)", bun.List(ids)).
			Exec(ctx)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// FinishDelivery records an attempt and moves its delivery on: succeeded,
// due again after the schedule's next delay, or failed after the last
// one. It returns the delivery's new state.
func (s *Store) FinishDelivery(ctx context.Context, c *ClaimedDelivery, res DeliveryAttempt, schedule []time.Duration) (string, error) {
	now := s.utcNow()
	attempt := c.Attempts + 1
	state := api.DeliveryPending
	switch {
	case res.OK():
		state = api.DeliverySucceeded
	case attempt > len(schedule):
		state = api.DeliveryFailed
	}
	row := &webhookAttemptRow{
		DeliveryID: c.DeliveryID,
		Attempt:    attempt,
		StartedAt:  res.Started,
		LatencyUS:  res.Latency.Microseconds(),
	}
	if res.StatusCode != 0 {
		row.StatusCode, row.Response = &res.StatusCode, &res.Body
	}
	if res.Err != "" {
		row.Error = &res.Err
	}
	var next *time.Time
	if state == api.DeliveryPending {
		t := now.Add(schedule[attempt-1])
		next = &t
	}
	finish := s.finishSQLite
	if s.dialect == DialectPostgres {
		finish = s.finishPostgres
	}
	return state, finish(ctx, c, row, state, next, now)
}

// finishPostgres is one statement: the delivery moves on only while the
// lease holds, and the attempt is recorded only when it did.
func (s *Store) finishPostgres(ctx context.Context, c *ClaimedDelivery, row *webhookAttemptRow, state string, next *time.Time, now time.Time) error {
	var ids []int64
	err := s.db.NewRaw(`WITH d AS (
				UPDATE webhook_deliveries
				SET status = ?, attempts = ?, locked_until = NULL, lease = NULL, updated_at = ?,
					next_attempt_at = COALESCE(?::timestamptz, next_attempt_at)
				WHERE id = ? AND lease = ?
				RETURNING id)
			INSERT INTO webhook_attempts (delivery_id, attempt, started_at, status_code, latency_us, error, response)
			SELECT d.id, ?, ?, ?, ?, ?, ? FROM d
			RETURNING id`,
		state, row.Attempt, now, next, c.DeliveryID, c.lease,
		row.Attempt, row.StartedAt, row.StatusCode, row.LatencyUS, row.Error, row.Response).Scan(ctx, &ids)
	if err == nil && len(ids) != 1 {
		err = ErrLeaseLost
	}
	return err
}

// finishSQLite does the same in one transaction.
func (s *Store) finishSQLite(ctx context.Context, c *ClaimedDelivery, row *webhookAttemptRow, state string, next *time.Time, now time.Time) error {
	return s.inTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		q := tx.NewUpdate().
			Model((*webhookDeliveryRow)(nil)).
			Set("status = ?", state).
			Set("attempts = ?", row.Attempt).
			Set("locked_until = NULL").
			Set("lease = NULL").
			Set("updated_at = ?", now).
			Where("d.id = ? AND d.lease = ?", c.DeliveryID, c.lease)
		if next != nil {
			q = q.Set("next_attempt_at = ?", *next)
		}
		r, err := q.Exec(ctx)
		if err != nil {
			return err
		}
		if n, err := r.RowsAffected(); err != nil || n != 1 {
			return ErrLeaseLost
		}
		_, err = tx.NewInsert().Model(row).Exec(ctx)
		return err
	})
}

// ReleaseDelivery gives a claimed delivery back, due at once, without
// counting an attempt.
func (s *Store) ReleaseDelivery(ctx context.Context, c *ClaimedDelivery) error {
	_, err := s.db.NewUpdate().
		Model((*webhookDeliveryRow)(nil)).
		Set("locked_until = NULL").
		Set("lease = NULL").
		Set("updated_at = ?", s.utcNow()).
		Where("d.id = ? AND d.lease = ?", c.DeliveryID, c.lease).
		Exec(ctx)
	return err
}

// Wake is signalled (without blocking, coalescing) when a change this
// process committed scheduled webhook deliveries, or an endpoint was
// enabled again: the dispatcher looks at once instead of at its next poll.
func (s *Store) Wake() <-chan struct{} { return s.wake }

// OutboxStats is the webhook outbox's backlog: deliveries still pending
// (due or waiting for a retry) across every company, and when the oldest
// of them was created (zero when none is pending).
type OutboxStats struct {
	Pending       int64
	OldestPending time.Time
}

// OutboxStats counts the pending deliveries of every company, for the
// server's metrics.
func (s *Store) OutboxStats(ctx context.Context) (OutboxStats, error) {
	var row struct {
		N      int64      `bun:"n"`
		Oldest *time.Time `bun:"oldest"`
	}
	err := s.db.NewSelect().
		Model((*webhookDeliveryRow)(nil)).
		ColumnExpr("COUNT(*) AS n, MIN(d.created_at) AS oldest").
		Where("d.status = ?", api.DeliveryPending).
		Scan(ctx, &row)
	if err != nil {
		return OutboxStats{}, err
	}
	st := OutboxStats{Pending: row.N}
	if row.Oldest != nil {
		st.OldestPending = *row.Oldest
	}
	return st, nil
}
