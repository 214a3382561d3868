package store

import (
	"cmp"
	"context"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"github.com/traineed/traineed/api"
)

// FinishedAttempt is an attempt to record with CycleDeliveries: the
// claimed delivery and what its attempt gave. CycleDeliveries fills in
// State (the delivery's new state) when it recorded the attempt, or Err
// (ErrLeaseLost) when the delivery was no longer the caller's.
type FinishedAttempt struct {
	Delivery *ClaimedDelivery
	Result   DeliveryAttempt
	State    string
	Err      error
}

// CycleDeliveries is the dispatcher's one step: it records the attempts
// of done (as FinishDelivery does each), gives back the deliveries of
// release unsent (as ReleaseDelivery does each), and then claims up to
// limit chains of due deliveries (as ClaimDeliveries), in one transaction
// of prepared statements. The claim sees the leases done and release gave
// back. On an error nothing is recorded, released or claimed (each State
// stays "").
func (s *Store) CycleDeliveries(ctx context.Context, done []*FinishedAttempt, release []*ClaimedDelivery, schedule []time.Duration, limit int, lim ClaimLimits, lease time.Duration) ([]*ClaimedDelivery, error) {
	now := s.utcNow()
	plans := make([]finishPlan, len(done))
	for i, f := range done {
		plans[i] = planFinish(f.Delivery, f.Result, schedule, now)
	}
	cl := claimArgs{now: now, limit: limit, perEndpoint: lim.PerEndpoint, perCompany: lim.PerCompany, chain: max(lim.Chain, 1),
		until: now.Add(lease), token: api.RandomString(20, leaseAlphabet), release: release}
	if cl.perEndpoint <= 0 {
		cl.perEndpoint = limit
	}
	if cl.perCompany <= 0 {
		cl.perCompany = limit
	}
	var (
		out      []*ClaimedDelivery
		recorded []bool
		err      error
	)
	if s.dialect == DialectPostgres {
		out, recorded, err = s.cyclePostgres(ctx, plans, cl)
	} else {
		out, recorded, err = s.cycleSQLite(ctx, plans, cl)
	}
	if err != nil {
		return nil, dbError(err)
	}
	for i, f := range done {
		f.State, f.Err = plans[i].state, nil
		if !recorded[i] {
			f.State, f.Err = "", ErrLeaseLost
		}
	}
	return out, nil
}

// finishPlan is what recording one attempt writes.
type finishPlan struct {
	c     *ClaimedDelivery
	row   *webhookAttemptRow
	state string
	next  *time.Time // due again at; nil: unchanged (finished)
}

// planFinish works out an attempt's record and its delivery's new state:
// succeeded, due again after the schedule's next delay, or failed after
// the last one.
func planFinish(c *ClaimedDelivery, res DeliveryAttempt, schedule []time.Duration, now time.Time) finishPlan {
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
		code := res.StatusCode
		body := res.Body
		row.StatusCode, row.Response = &code, &body
	}
	if res.Err != "" {
		e := res.Err
		row.Error = &e
	}
	p := finishPlan{c: c, row: row, state: state}
	if state == api.DeliveryPending {
		t := now.Add(schedule[attempt-1])
		p.next = &t
	}
	return p
}

// claimArgs is what one claim asks for.
type claimArgs struct {
	now                                   time.Time
	limit, perEndpoint, perCompany, chain int
	until                                 time.Time // the lease's end
	token                                 string    // each chain's lease is token.webhook.chain
	release                               []*ClaimedDelivery
}

// pickArgs are claimPickSQL's arguments, in order.
func (cl claimArgs) pickArgs() []any {
	return []any{cl.now, cl.perEndpoint, cl.perCompany, cl.now, cl.now,
		cl.limit*(cl.chain+3) + 16, cl.perEndpoint, cl.chain, cl.perCompany, cl.limit}
}

// chainLease is the lease token of one chain of a claim.
func (cl claimArgs) chainLease(webhook, chain int64) string {
	return cl.token + "." + strconv.FormatInt(webhook, 10) + "." + strconv.FormatInt(chain, 10)
}

// cycleSQLite is CycleDeliveries in one immediate transaction.
func (s *Store) cycleSQLite(ctx context.Context, plans []finishPlan, cl claimArgs) ([]*ClaimedDelivery, []bool, error) {
	var out []*ClaimedDelivery
	recorded := make([]bool, len(plans))
	err := s.inTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		out = nil
		for i := range plans {
			ok, err := s.finishSQLite(ctx, tx, &plans[i], cl.now)
			if err != nil {
				return err
			}
			recorded[i] = ok
		}
		for _, c := range cl.release {
			if err := s.releaseIn(ctx, tx, c, cl.now); err != nil {
				return err
			}
		}
		if cl.limit <= 0 {
			return nil
		}
		var err error
		out, err = s.claimSQLite(ctx, tx, cl)
		return err
	})
	return out, recorded, err
}

// finishSQLite records p in tx; false when the lease was lost.
func (s *Store) finishSQLite(ctx context.Context, tx bun.Tx, p *finishPlan, now time.Time) (bool, error) {
	q := tx.NewUpdate().
		Model((*webhookDeliveryRow)(nil)).
		Set("status = ?", p.state).
		Set("attempts = ?", p.row.Attempt).
		Set("locked_until = NULL").
		Set("lease = NULL").
		Set("updated_at = ?", now).
		Where("d.id = ? AND d.lease = ?", p.c.DeliveryID, p.c.lease)
	if p.next != nil {
		q = q.Set("next_attempt_at = ?", *p.next)
	}
	r, err := q.Exec(ctx)
	if err != nil {
		return false, err
	}
	if n, err := r.RowsAffected(); err != nil || n != 1 {
		return false, err
	}
	_, err = tx.NewInsert().Model(p.row).Exec(ctx)
	return err == nil, err
}

// releaseIn gives c back unsent, in tx (ReleaseDelivery).
func (s *Store) releaseIn(ctx context.Context, tx bun.IDB, c *ClaimedDelivery, now time.Time) error {
	_, err := tx.NewUpdate().
		Model((*webhookDeliveryRow)(nil)).
		Set("locked_until = NULL").
		Set("lease = NULL").
		Set("updated_at = ?", now).
		Where("d.id = ? AND d.lease = ?", c.DeliveryID, c.lease).
		Exec(ctx)
	return err
}

// pickedRow is a row of claimPickSQL: a delivery and its chain.
type pickedRow struct {
	ID      int64 `bun:"id"`
	Webhook int64 `bun:"webhook_id"`
	Chain   int64 `bun:"chain"`
}

// claimSQLite leases what claimPickSQL picks, in tx: each chain under its
// own lease.
func (s *Store) claimSQLite(ctx context.Context, tx bun.Tx, cl claimArgs) ([]*ClaimedDelivery, error) {
	var picked []pickedRow
	if err := tx.NewRaw(claimPickSQL, cl.pickArgs()...).Scan(ctx, &picked); err != nil || len(picked) == 0 {
		return nil, err
	}
	chains := map[string][]int64{}
	leases := make(map[int64]string, len(picked))
	ids := make([]int64, len(picked))
	for i, p := range picked {
		l := cl.chainLease(p.Webhook, p.Chain)
		chains[l] = append(chains[l], p.ID)
		leases[p.ID], ids[i] = l, p.ID
	}
	for l, chain := range chains {
		if _, err := tx.NewUpdate().
			Model((*webhookDeliveryRow)(nil)).
			Set("locked_until = ?", cl.until).
			Set("lease = ?", l).
			Set("updated_at = ?", cl.now).
			Where("d.id IN (?)", bun.List(chain)).
			Exec(ctx); err != nil {
			return nil, err
		}
	}
	var out []*ClaimedDelivery
	err := tx.NewSelect().
		Model((*webhookDeliveryRow)(nil)).
		ColumnExpr("d.id AS delivery_id, d.attempts, d.webhook_id, w.company_id, e.public_id, e.payload, w.url, w.secret, w.previous_secret, w.previous_secret_expires_at, e.traceparent").
		Join("JOIN webhook_events AS e ON e.id = d.event_id").
		Join("JOIN webhooks AS w ON w.id = d.webhook_id").
		Where("d.id IN (?)", bun.List(ids)).
		OrderExpr("d.next_attempt_at ASC, d.id ASC").
		Scan(ctx, &out)
	for _, c := range out {
		c.lease = leases[c.DeliveryID]
	}
	return out, err
}

// finishManyPostgres records a batch of attempts in one statement: each
// delivery moves on only while its lease holds, and its attempt is
// recorded only when it did; it returns the ids of those recorded. $1-$10
// are arrays of one element per attempt, $11 the time of the update.
const finishManyPostgres = `WITH f AS (
		SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::int[], $5::timestamptz[],
			$6::timestamptz[], $7::int[], $8::bigint[], $9::text[], $10::text[])
		AS f(id, lease, status, attempt, next_at, started_at, status_code, latency_us, error, response)),
	d AS (
		UPDATE webhook_deliveries AS d
		SET status = f.status, attempts = f.attempt, locked_until = NULL, lease = NULL, updated_at = $11::timestamptz,
			next_attempt_at = COALESCE(f.next_at, d.next_attempt_at)
		FROM f WHERE d.id = f.id AND d.lease = f.lease
		RETURNING d.id)
	INSERT INTO webhook_attempts (delivery_id, attempt, started_at, status_code, latency_us, error, response)
	SELECT f.id, f.attempt, f.started_at, f.status_code, f.latency_us, f.error, f.response
	FROM f JOIN d ON d.id = f.id
	RETURNING delivery_id`

// finishManyArgs are finishManyPostgres' arguments for plans.
func finishManyArgs(plans []finishPlan, now time.Time) []any {
	n := len(plans)
	ids, leases, states := make([]int64, n), make([]string, n), make([]string, n)
	attempts, next, started := make([]int32, n), make([]*time.Time, n), make([]time.Time, n)
	codes, lat, errs, resp := make([]*int32, n), make([]int64, n), make([]*string, n), make([]*string, n)
	for i, p := range plans {
		ids[i], leases[i], states[i] = p.c.DeliveryID, p.c.lease, p.state
		attempts[i], next[i], started[i] = int32(p.row.Attempt), p.next, p.row.StartedAt.UTC()
		if p.row.StatusCode != nil {
			c := int32(*p.row.StatusCode)
			codes[i] = &c
		}
		lat[i], errs[i], resp[i] = p.row.LatencyUS, p.row.Error, p.row.Response
	}
	return []any{ids, leases, states, attempts, next, started, codes, lat, errs, resp, now}
}

// claimPostgres leases what claimPickSQL picks and returns what to send,
// in one statement; it runs after the claim lock was taken by a statement
// of its own (whose end gives it a snapshot that sees every earlier
// claim).
var claimPostgres = `WITH picked AS (` + dollars(claimPickSQL+"FOR UPDATE OF d SKIP LOCKED", 4) + `)
	UPDATE webhook_deliveries AS d SET locked_until = $1::timestamptz,
		lease = $2::text || '.' || picked.webhook_id::text || '.' || picked.chain::text, updated_at = $3::timestamptz
	FROM picked, webhook_events AS e, webhooks AS w
	WHERE d.id = picked.id AND e.id = d.event_id AND w.id = d.webhook_id
	RETURNING d.id, d.attempts, d.webhook_id, w.company_id, e.public_id, e.payload, w.url, w.secret,
		w.previous_secret, w.previous_secret_expires_at, d.next_attempt_at, d.lease, e.traceparent`

// releaseManyPostgres gives back a batch of deliveries unsent, each while
// its lease holds ($1 ids, $2 leases, $3 the time of the update).
const releaseManyPostgres = `UPDATE webhook_deliveries AS d SET locked_until = NULL, lease = NULL, updated_at = $3::timestamptz
	FROM unnest($1::bigint[], $2::text[]) AS r(id, lease) WHERE d.id = r.id AND d.lease = r.lease`

// dollars numbers text's ? placeholders $from, $from+1, ...
func dollars(text string, from int) string {
	var b strings.Builder
	for _, r := range text {
		if r == '?' {
			b.WriteString("$" + strconv.Itoa(from))
			from++
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// sortClaimed orders out (and due, its due times) oldest due first, then
// by id, as ClaimDeliveries returns them.
func sortClaimed(out []*ClaimedDelivery, due []time.Time) {
	idx := make([]int, len(out))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int {
		if c := due[a].Compare(due[b]); c != 0 {
			return c
		}
		return cmp.Compare(out[a].DeliveryID, out[b].DeliveryID)
	})
	sorted := make([]*ClaimedDelivery, len(out))
	for i, j := range idx {
		sorted[i] = out[j]
	}
	copy(out, sorted)
}

// cyclePostgres is CycleDeliveries on PostgreSQL: one transaction of
// prepared statements (the batched finish, the claim lock, the claim), so
// that the claim, a statement of windows and joins, is planned once per
// connection. Sent as one pgx batch of simple-protocol statements it made
// one round trip instead of five but was planned every time: 3.4 ms of
// PostgreSQL's CPU per event against 2.1-2.5 (BenchmarkWebhookDelivery,
// alternated, load 23-25).
func (s *Store) cyclePostgres(ctx context.Context, plans []finishPlan, cl claimArgs) ([]*ClaimedDelivery, []bool, error) {
	var out []*ClaimedDelivery
	recorded := make([]bool, len(plans))
	err := s.inTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		out = nil
		if len(plans) > 0 {
			var ids []int64
			if err := s.scanHot(ctx, tx, finishManyPostgres, &ids, finishManyArgs(plans, cl.now)...); err != nil {
				return err
			}
			for i, p := range plans {
				recorded[i] = slices.Contains(ids, p.c.DeliveryID)
			}
		}
		if len(cl.release) > 0 {
			ids, leases := make([]int64, len(cl.release)), make([]string, len(cl.release))
			for i, c := range cl.release {
				ids[i], leases[i] = c.DeliveryID, c.lease
			}
			rows, err := s.runHot(ctx, &tx, releaseManyPostgres, ids, leases, cl.now)
			if err != nil {
				return err
			}
			if err := rows.Close(); err != nil {
				return err
			}
		}
		if cl.limit <= 0 {
			return nil
		}
		if _, err := tx.ExecContext(ctx, "SELECT pg_advisory_xact_lock(?, 0)", claimLockClass); err != nil {
			return err
		}
		rows, err := s.runHot(ctx, &tx, claimPostgres, append([]any{cl.until, cl.token, cl.now}, cl.pickArgs()...)...)
		if err != nil {
			return err
		}
		defer rows.Close()
		var due []time.Time
		for rows.Next() {
			c := new(ClaimedDelivery)
			var at time.Time
			if err := rows.Scan(&c.DeliveryID, &c.Attempts, &c.WebhookID, &c.CompanyID, &c.EventID, &c.Payload, &c.URL,
				&c.Secret, &c.PreviousSecret, &c.PreviousUntil, &at, &c.lease, &c.Traceparent); err != nil {
				return err
			}
			out = append(out, c)
			due = append(due, at)
		}
		sortClaimed(out, due)
		return rows.Err()
	})
	return out, recorded, err
}
