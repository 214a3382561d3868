package store

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/traineed/traineed/api"
	"github.com/uptrace/bun"
)

// The webhook outbox, as the dispatcher (package jobs) works
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
	CompanyID  int64  `bun:"company_id"`
	EventID    string `bun:"public_id"`
	Payload    string `bun:"payload"`
	URL        string `bun:"url"`
	Secret     string `bun:"secret"`
	// PreviousSecret signs beside Secret until PreviousUntil, after a
	// rotation.
	PreviousSecret *string    `bun:"previous_secret"`
	PreviousUntil  *time.Time `bun:"previous_secret_expires_at"`
	// Traceparent is the W3C traceparent of the span that wrote the event
	// (nil when tracing was off): TraceLink makes it the delivery span's
	// link.
	Traceparent *string `bun:"traceparent"`
	lease       string
}

// Lease is c's lease token, shared by the deliveries of one chain (the
// deliveries of one endpoint leased together, to send one after another).
func (c *ClaimedDelivery) Lease() string { return c.lease }

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

// ClaimLimits bound a claim: how many deliveries one endpoint, and one
// company, may have leased at once, over every dispatcher (0: no bound).
type ClaimLimits struct {
	PerEndpoint int
	PerCompany  int
	// Chain is how many due deliveries of one endpoint one lease takes at
	// most, to be sent one after another (0: one). PerEndpoint and
	// PerCompany count leases (chains), not deliveries.
	Chain int
}

// ClaimDeliveries leases up to limit chains of due deliveries of enabled
// endpoints (each of up to lim.Chain deliveries of one endpoint, under one
// lease; one delivery each when lim.Chain is 0), oldest due first, at most
// lim.PerEndpoint chains leased at once per endpoint and lim.PerCompany
// per company (counting the leases other
// dispatchers hold: one company's slow or flooded endpoints cannot take
// every slot, and the slots they leave go to the other companies' due
// deliveries), in one short transaction.
// On PostgreSQL a transaction-scoped advisory lock serialises the claims
// of every instance, so the per-endpoint count holds across them, and the
// rows are selected FOR UPDATE SKIP LOCKED; SQLite's immediate
// transactions serialise claims.
func (s *Store) ClaimDeliveries(ctx context.Context, limit int, lim ClaimLimits, lease time.Duration) ([]*ClaimedDelivery, error) {
	return s.CycleDeliveries(ctx, nil, nil, nil, limit, lim, lease)
}

// claimPickSQL picks the due deliveries to claim, in chains: a chain is
// up to chainLen due deliveries of one endpoint, leased under one token,
// which a dispatcher sends one after another (one request at a time), so
// the per-endpoint and per-company bounds count chains (distinct live
// leases), not rows: they bound the requests at once, not how soon the
// next is sent. busy counts each endpoint's live leases, busyc each
// company's; open lists the enabled endpoints of endpoints and companies
// not yet full, and cand takes their oldest due deliveries (a few times
// what limit chains hold, so that one endpoint's backlog does not fill the
// scan); ranked and chained deal each endpoint's oldest, up to chainLen
// for each chain it has room for, round the chains it has room for (so
// that a short backlog still goes two at a time), and the window keeps the
// chains each company has room for, oldest first, up to limit chains. It returns each delivery with its chain (endpoint,
// chain number). open is computed once, over the endpoints, so the scan
// of the due deliveries checks each against a small set rather than
// looking its endpoint up (a claim over a backlog of 2,000 cost 11-30 ms
// that way, most of it the lookups). The pending status is written into
// the text, not bound: a prepared statement's generic plan can then use
// the partial index of due deliveries (WHERE status = 'pending'), which a
// bound status hides from it (TestQueryPlans).
const claimPickSQL = `WITH busy AS (
				SELECT b.webhook_id, COUNT(DISTINCT b.lease) AS n FROM webhook_deliveries AS b
				WHERE b.locked_until IS NOT NULL AND b.locked_until > ? AND b.status = '` + api.DeliveryPending + `'
				GROUP BY b.webhook_id),
			busyc AS (
				SELECT w.company_id, SUM(busy.n) AS n FROM busy JOIN webhooks AS w ON w.id = busy.webhook_id
				GROUP BY w.company_id),
			open AS (
				SELECT w.id, w.company_id FROM webhooks AS w
				WHERE w.enabled
					AND NOT EXISTS (SELECT 1 FROM busy WHERE busy.webhook_id = w.id AND busy.n >= ?)
					AND NOT EXISTS (SELECT 1 FROM busyc WHERE busyc.company_id = w.company_id AND busyc.n >= ?)),
			cand AS (
				SELECT d.id, d.webhook_id, open.company_id, d.next_attempt_at FROM webhook_deliveries AS d
				JOIN open ON open.id = d.webhook_id
				WHERE d.status = '` + api.DeliveryPending + `' AND d.next_attempt_at <= ? AND (d.locked_until IS NULL OR d.locked_until <= ?)
				ORDER BY d.next_attempt_at ASC, d.id ASC
				LIMIT ?),
			ranked AS (
				SELECT cand.id, cand.webhook_id, cand.company_id, cand.next_attempt_at,
					ROW_NUMBER() OVER (PARTITION BY cand.webhook_id ORDER BY cand.next_attempt_at, cand.id) AS rn,
					? - COALESCE(busy.n, 0) AS room
				FROM cand LEFT JOIN busy ON busy.webhook_id = cand.webhook_id),
			chained AS (
				SELECT r.id, r.webhook_id, r.company_id, r.next_attempt_at, (r.rn - 1) % r.room AS chain
				FROM ranked AS r WHERE r.rn <= r.room * ?),
			chains AS (
				SELECT r.webhook_id, r.company_id, r.chain, MIN(r.next_attempt_at) AS at, MIN(r.id) AS first
				FROM chained AS r
				GROUP BY r.webhook_id, r.company_id, r.chain),
			fits AS (
				SELECT ch.webhook_id, ch.company_id, ch.chain, ch.at, ch.first,
					ROW_NUMBER() OVER (PARTITION BY ch.company_id ORDER BY ch.at, ch.first) AS rnc
				FROM chains AS ch),
			chosen AS (
				SELECT f.webhook_id, f.chain FROM fits AS f LEFT JOIN busyc ON busyc.company_id = f.company_id
				WHERE f.rnc <= ? - COALESCE(busyc.n, 0)
				ORDER BY f.at, f.first
				LIMIT ?)
			SELECT d.id, r.webhook_id, r.chain FROM webhook_deliveries AS d
			JOIN chained AS r ON r.id = d.id
			JOIN chosen AS c ON c.webhook_id = r.webhook_id AND c.chain = r.chain
			ORDER BY d.next_attempt_at, d.id
			`

// claimLockClass is the advisory lock (pg_advisory_xact_lock(class, 0))
// that serialises the claims of every instance.
const claimLockClass = 0x636c6d // "clm"

// DisabledEndpoint is an endpoint the server disabled by itself.
type DisabledEndpoint struct {
	WebhookID    int64
	CompanyID    int64
	AutomationID *int64 // set for a WEBHOOK automation's endpoint
	URL          string
	Reason       string
}

// DisableEndpoint disables an endpoint on the server's own account (it
// answered 410 Gone; its address is refused), records why, and puts a
// webhook.disabled event in its company's feed. A WEBHOOK automation's
// endpoint takes its automation with it (disabled, with the reason).
// Its pending deliveries wait, as for any disabled endpoint, until it is
// enabled again. It reports whether it disabled anything: an endpoint
// already disabled (or deleted) is left as it is.
//
// When url is not "", only an endpoint that still has that URL is disabled:
// a 410 from a URL the company has changed meanwhile disables nothing.
func (s *Store) DisableEndpoint(ctx context.Context, webhookID int64, url, reason string) (*DisabledEndpoint, error) {
	var out *DisabledEndpoint
	err := s.inTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		out = nil
		row := new(webhookRow)
		err := s.forUpdate(tx.NewSelect().Model(row).Column("w.id", "w.company_id", "w.url", "w.enabled", "w.automation_id").
			Where("w.id = ?", webhookID)).Scan(ctx)
		if errors.Is(dbError(err), api.ErrNotFound) {
			return nil
		}
		if err != nil || !row.Enabled || (url != "" && row.URL != url) {
			return err
		}
		now := s.utcNow()
		if _, err := tx.NewUpdate().Model((*webhookRow)(nil)).Set("enabled = FALSE").Set("disabled_reason = ?", reason).
			Where("w.id = ?", webhookID).Exec(ctx); err != nil {
			return err
		}
		data := api.WebhookDisabledData{URL: api.RedactURL(row.URL), Reason: reason}
		if row.AutomationID != nil {
			data.AutomationID = row.AutomationID
			if _, err := tx.NewUpdate().Model((*automationRow)(nil)).Set("enabled = FALSE").Set("disabled_reason = ?", reason).
				Set("updated_at = ?", now).Where("au.id = ?", *row.AutomationID).Exec(ctx); err != nil {
				return err
			}
		} else {
			data.WebhookID = &row.ID
		}
		body, err := json.Marshal(api.WebhookDisabledEvent{Type: api.EventWebhookDisabled, Timestamp: now.Unix(), Data: data})
		if err != nil {
			return err
		}
		// The server disables an endpoint by itself: the system's event.
		sys := api.WithActor(ctx, api.Actor{Type: api.ActorSystem})
		if err := s.insertEvent(sys, tx, &webhookEventRow{PublicID: api.NewWebhookEventID(), CompanyID: row.CompanyID,
			Type: api.EventWebhookDisabled, Payload: string(body), CreatedAt: now}); err != nil {
			return err
		}
		out = &DisabledEndpoint{WebhookID: row.ID, CompanyID: row.CompanyID, AutomationID: row.AutomationID, URL: data.URL, Reason: reason}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// DisableRefusedEndpoints disables (DisableEndpoint) every enabled endpoint,
// of every company, whose URL refuse rejects, with refuse's error as the
// reason, and returns them: serve's start-up check of the endpoints
// registered before the outbound policy (or under a wider one).
func (s *Store) DisableRefusedEndpoints(ctx context.Context, refuse func(url string) error) ([]*DisabledEndpoint, error) {
	var rows []webhookRow
	if err := s.db.NewSelect().Model(&rows).Column("w.id", "w.url").Where("w.enabled").OrderExpr("w.id").Scan(ctx); err != nil {
		return nil, err
	}
	var out []*DisabledEndpoint
	for _, r := range rows {
		err := refuse(r.URL)
		if err == nil {
			continue
		}
		d, err := s.DisableEndpoint(ctx, r.ID, r.URL, err.Error())
		if err != nil {
			return out, err
		}
		if d != nil {
			out = append(out, d)
		}
	}
	return out, nil
}

// FinishDelivery records an attempt and moves its delivery on: succeeded,
// due again after the schedule's next delay, or failed after the last
// one. It returns the delivery's new state.
func (s *Store) FinishDelivery(ctx context.Context, c *ClaimedDelivery, res DeliveryAttempt, schedule []time.Duration) (string, error) {
	f := &FinishedAttempt{Delivery: c, Result: res}
	if _, err := s.CycleDeliveries(ctx, []*FinishedAttempt{f}, nil, schedule, 0, ClaimLimits{}, 0); err != nil {
		return "", err
	}
	return f.State, f.Err
}

// ReleaseDelivery gives a claimed delivery back, due at once, without
// counting an attempt.
func (s *Store) ReleaseDelivery(ctx context.Context, c *ClaimedDelivery) error {
	return s.releaseIn(ctx, s.db, c, s.utcNow())
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
