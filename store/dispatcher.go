package store

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/uptrace/bun"

	"github.com/traineed/traineed/api"
)

// DefaultRetrySchedule is the contract's backoff: the delays before the
// second to the eighth attempt. A delivery whose eighth attempt fails is
// marked failed.
var DefaultRetrySchedule = []time.Duration{
	5 * time.Second, 5 * time.Minute, 30 * time.Minute, 2 * time.Hour, 5 * time.Hour, 10 * time.Hour, 10 * time.Hour,
}

// Dispatcher defaults.
const (
	DefaultWebhookTimeout      = 10 * time.Second
	DefaultWebhookLease        = 30 * time.Second
	DefaultWebhookPollInterval = time.Second
	DefaultWebhookConcurrency  = 8
)

// dbTimeout bounds the dispatcher's own database work for one delivery.
const dbTimeout = 10 * time.Second

// DispatcherConfig configures a Dispatcher; zero fields take the defaults.
type DispatcherConfig struct {
	// Schedule is the delays before each retry, measured from the failed
	// attempt; nil is DefaultRetrySchedule, an empty slice means no retry.
	Schedule []time.Duration
	// Timeout bounds one attempt: connecting, sending, and the response's
	// status line, headers and first MaxWebhookResponse bytes.
	Timeout time.Duration
	// Lease is how long a claimed delivery belongs to this dispatcher; an
	// instance that dies mid-attempt leaves it to others once it expires.
	// It must exceed Timeout.
	Lease time.Duration
	// PollInterval is how often the database is asked for due deliveries.
	// Changes committed by this process wake the dispatcher at once.
	PollInterval time.Duration
	// Concurrency is how many deliveries are sent at once.
	Concurrency int
	// Retention, when positive, deletes events older than it whose
	// deliveries are finished, once an hour.
	Retention time.Duration
	// Client sends the requests; nil is a client with its own transport
	// that never follows redirects (a 3xx is a failed attempt).
	Client *http.Client
	Logger *slog.Logger
}

// Dispatcher delivers the webhook events of the outbox: it claims due
// deliveries under a lease, POSTs them signed, and records each attempt.
// Any number of dispatchers, in one process or many, may share a
// PostgreSQL database: a delivery is claimed by one of them at a time
// (FOR UPDATE SKIP LOCKED), so one attempt is never sent twice. Delivery is
// at least once: a dispatcher that dies mid-attempt leaves the delivery to be
// claimed again when its lease expires.
type Dispatcher struct {
	s      *Store
	cfg    DispatcherConfig
	log    *slog.Logger
	sender *webhookSender

	start    sync.Once
	stop     chan struct{} // closed by Shutdown: claim nothing more
	stopOnce sync.Once
	loopDone chan struct{}
	freed    chan struct{} // an in-flight delivery finished while more were due

	abort       context.Context // cancelled when Shutdown's grace runs out
	abortCancel context.CancelFunc

	mu       sync.Mutex
	inflight int
	backlog  bool // the last claim took every free slot: more may be due
	wg       sync.WaitGroup
}

// NewDispatcher returns a dispatcher over s; Start starts it.
func NewDispatcher(s *Store, cfg DispatcherConfig) (*Dispatcher, error) {
	if cfg.Schedule == nil {
		cfg.Schedule = DefaultRetrySchedule
	}
	for _, d := range cfg.Schedule {
		if d <= 0 {
			return nil, fmt.Errorf("webhook retry schedule: %s is not a positive duration", d)
		}
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultWebhookTimeout
	}
	if cfg.Lease <= 0 {
		cfg.Lease = max(DefaultWebhookLease, 3*cfg.Timeout)
	}
	if cfg.Lease <= cfg.Timeout {
		return nil, fmt.Errorf("webhook lease %s must exceed the attempt timeout %s", cfg.Lease, cfg.Timeout)
	}
	if cfg.PollInterval <= 0 {
		cfg.PollInterval = DefaultWebhookPollInterval
	}
	if cfg.Concurrency <= 0 {
		cfg.Concurrency = DefaultWebhookConcurrency
	}
	if cfg.Client == nil {
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.MaxIdleConnsPerHost = cfg.Concurrency
		cfg.Client = &http.Client{
			Transport:     tr,
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		}
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	d := &Dispatcher{
		s: s, cfg: cfg, log: log,
		sender:   &webhookSender{client: cfg.Client, timeout: cfg.Timeout, now: s.utcNow},
		stop:     make(chan struct{}),
		loopDone: make(chan struct{}),
		freed:    make(chan struct{}, 1),
	}
	d.abort, d.abortCancel = context.WithCancel(context.Background())
	return d, nil
}

// Start runs the dispatcher in the background until Shutdown; it does
// nothing after Shutdown.
func (d *Dispatcher) Start() { d.start.Do(func() { go d.loop() }) }

// Shutdown stops claiming deliveries and waits for those in flight to
// finish and be recorded. When ctx ends first, the attempts still in flight
// are cancelled and their deliveries released, unrecorded, for any
// dispatcher to send again at once; Shutdown then returns ctx's error.
func (d *Dispatcher) Shutdown(ctx context.Context) error {
	d.stopOnce.Do(func() { close(d.stop) })
	d.start.Do(func() { close(d.loopDone) }) // never started
	<-d.loopDone
	done := make(chan struct{})
	go func() { d.wg.Wait(); close(done) }()
	defer d.abortCancel()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		d.abortCancel()
		<-done
		return ctx.Err()
	}
}

func (d *Dispatcher) loop() {
	defer close(d.loopDone)
	poll := time.NewTicker(d.cfg.PollInterval)
	defer poll.Stop()
	var prune <-chan time.Time
	if d.cfg.Retention > 0 {
		t := time.NewTicker(time.Hour)
		defer t.Stop()
		prune = t.C
		d.prune()
	}
	for {
		d.dispatch()
		select {
		case <-d.stop:
			return
		case <-poll.C:
		case <-d.s.wake:
		case <-d.freed:
		case <-prune:
			d.prune()
		}
	}
}

// dispatch claims as many due deliveries as there are free slots and
// starts sending them.
func (d *Dispatcher) dispatch() {
	d.mu.Lock()
	free := d.cfg.Concurrency - d.inflight
	d.mu.Unlock()
	if free <= 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), dbTimeout)
	defer cancel()
	batch, err := d.s.claimDeliveries(ctx, free, d.cfg.Lease)
	if err != nil {
		d.log.Error("webhook dispatcher: claiming deliveries", "error", err)
		return
	}
	d.mu.Lock()
	d.inflight += len(batch)
	d.backlog = len(batch) == free
	d.mu.Unlock()
	for _, c := range batch {
		d.wg.Add(1)
		go d.deliver(c)
	}
}

func (d *Dispatcher) deliver(c *claimedDelivery) {
	defer func() {
		d.mu.Lock()
		d.inflight--
		backlog := d.backlog
		d.mu.Unlock()
		if backlog {
			select {
			case d.freed <- struct{}{}:
			default:
			}
		}
		d.wg.Done()
	}()
	res := d.sender.send(d.abort, c)
	ctx, cancel := context.WithTimeout(context.Background(), dbTimeout)
	defer cancel()
	if d.abort.Err() != nil && !res.ok() {
		// Shut down mid-attempt: the attempt does not count.
		if err := d.s.releaseDelivery(ctx, c); err != nil {
			d.log.Error("webhook dispatcher: releasing a delivery", "delivery_id", c.DeliveryID, "error", err)
		}
		return
	}
	state, err := d.s.finishDelivery(ctx, c, res, d.cfg.Schedule)
	switch {
	case errors.Is(err, errLeaseLost):
		d.log.Warn("webhook dispatcher: delivery deleted or lease lost during the attempt; attempt not recorded",
			"delivery_id", c.DeliveryID, "webhook", c.WebhookID, "event_id", c.EventID)
		return
	case err != nil:
		// The lease expires and the delivery is attempted again.
		d.log.Error("webhook dispatcher: recording an attempt", "delivery_id", c.DeliveryID, "error", err)
		return
	}
	attrs := []any{"delivery_id", c.DeliveryID, "webhook", c.WebhookID, "event_id", c.EventID,
		"attempt", c.Attempts + 1, "status", res.StatusCode, "latency_ms", res.Latency.Milliseconds(), "state", state}
	switch {
	case res.ok():
		d.log.Debug("webhook delivered", attrs...)
	case state == api.DeliveryFailed:
		d.log.Error("webhook delivery failed for good", append(attrs, "error", res.Err)...)
	default:
		d.log.Warn("webhook attempt failed; will retry", append(attrs, "error", res.Err)...)
	}
}

func (d *Dispatcher) prune() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	n, err := d.s.PruneWebhookEvents(ctx, d.s.utcNow().Add(-d.cfg.Retention))
	if err != nil {
		d.log.Error("webhook dispatcher: pruning old events", "error", err)
	} else if n > 0 {
		d.log.Info("webhook dispatcher: pruned old events", "events", n)
	}
}

// attemptResult is what one HTTP attempt gave.
type attemptResult struct {
	Started    time.Time
	StatusCode int // 0 when no response came
	Latency    time.Duration
	Err        string // why it failed, without the URL
	Body       string // the first MaxWebhookResponse bytes, valid UTF-8
}

func (r attemptResult) ok() bool { return r.StatusCode >= 200 && r.StatusCode < 300 }

// webhookSender makes the HTTP attempts: signed POSTs, bounded by a timeout,
// the response's body read up to MaxWebhookResponse bytes.
type webhookSender struct {
	client  *http.Client
	timeout time.Duration
	now     func() time.Time
}

// send makes one signed attempt of c.
func (w *webhookSender) send(ctx context.Context, c *claimedDelivery) attemptResult {
	res := attemptResult{Started: w.now()}
	ctx, cancel := context.WithTimeout(ctx, w.timeout)
	defer cancel()
	body := []byte(c.Payload)
	ts := res.Started.Unix()
	sig, err := api.SignWebhook(c.Secret, c.EventID, ts, body)
	if err != nil {
		res.Err = err.Error()
		return res
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.URL, bytes.NewReader(body))
	if err != nil {
		res.Err = err.Error()
		return res
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "traineed-webhooks/1")
	req.Header.Set("webhook-id", c.EventID)
	req.Header.Set("webhook-timestamp", strconv.FormatInt(ts, 10))
	req.Header.Set("webhook-signature", sig)
	start := time.Now()
	resp, err := w.client.Do(req)
	if err != nil {
		res.Latency = time.Since(start)
		res.Err = describeSendError(ctx, err, w.timeout)
		return res
	}
	defer resp.Body.Close()
	res.StatusCode = resp.StatusCode
	prefix, err := io.ReadAll(io.LimitReader(resp.Body, api.MaxWebhookResponse))
	res.Latency = time.Since(start)
	res.Body = strings.ToValidUTF8(strings.ReplaceAll(string(prefix), "\x00", ""), "\uFFFD")
	if err != nil && !res.ok() {
		res.Err = describeSendError(ctx, err, w.timeout)
	}
	if !res.ok() && res.Err == "" {
		res.Err = "status " + strconv.Itoa(resp.StatusCode)
	}
	// Drain a little more so the connection can be reused.
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	return res
}

// describeSendError says why an attempt failed, leaving out the URL (it
// may carry a token).
func describeSendError(ctx context.Context, err error, timeout time.Duration) string {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Sprintf("timeout: no complete response within %s", timeout)
	}
	if errors.Is(ctx.Err(), context.Canceled) {
		return "cancelled: the server shut down"
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return "timeout: " + err.Error()
	}
	return err.Error()
}

// claimedDelivery is a delivery this process holds the lease of.
type claimedDelivery struct {
	DeliveryID int64  `bun:"delivery_id"`
	Attempts   int    `bun:"attempts"`
	WebhookID  int64  `bun:"webhook_id"`
	EventID    string `bun:"public_id"`
	Payload    string `bun:"payload"`
	URL        string `bun:"url"`
	Secret     string `bun:"secret"`
	lease      string
}

// errLeaseLost is finishDelivery's error when the delivery is no longer
// this dispatcher's: deleted with its endpoint, or claimed by another after
// the lease expired.
var errLeaseLost = errors.New("store: delivery lease lost")

const leaseAlphabet = "abcdefghijklmnopqrstuvwxyz0123456789"

// claimDeliveries leases up to limit due deliveries of enabled endpoints,
// oldest due first, in one short transaction. On PostgreSQL the rows are
// selected FOR UPDATE SKIP LOCKED, so dispatchers claiming at the same time
// take different rows, and the select, the lease and the read of what to
// send are one statement; SQLite's immediate transactions serialise claims.
func (s *Store) claimDeliveries(ctx context.Context, limit int, lease time.Duration) ([]*claimedDelivery, error) {
	now := s.utcNow()
	token := api.RandomString(20, leaseAlphabet)
	var out []*claimedDelivery
	if s.dialect == DialectPostgres {
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
			SELECT u.id AS delivery_id, u.attempts, u.webhook_id, e.public_id, e.payload, w.url, w.secret
			FROM u
			JOIN webhook_events AS e ON e.id = u.event_id
			JOIN webhooks AS w ON w.id = u.webhook_id`,
			api.DeliveryPending, now, now, limit, now.Add(lease), token, now).Scan(ctx, &out)
		if err != nil {
			return nil, err
		}
		for _, c := range out {
			c.lease = token
		}
		return out, nil
	}
	err := s.inTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		out = nil
		err := tx.NewSelect().
			Model((*webhookDeliveryRow)(nil)).
			ColumnExpr("d.id AS delivery_id, d.attempts, d.webhook_id, e.public_id, e.payload, w.url, w.secret").
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
			c.lease = token
		}
		_, err = tx.NewUpdate().
			Model((*webhookDeliveryRow)(nil)).
			Set("locked_until = ?", now.Add(lease)).
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

// finishDelivery records an attempt and moves its delivery on: succeeded,
// due again after the schedule's next delay, or failed after the last
// one. It returns the delivery's new state.
func (s *Store) finishDelivery(ctx context.Context, c *claimedDelivery, res attemptResult, schedule []time.Duration) (string, error) {
	now := s.utcNow()
	attempt := c.Attempts + 1
	state := api.DeliveryPending
	switch {
	case res.ok():
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
	if s.dialect == DialectPostgres {
		// One statement: the delivery moves on only while this lease
		// holds, and the attempt is recorded only when it did.
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
			state, attempt, now, next, c.DeliveryID, c.lease,
			row.Attempt, row.StartedAt, row.StatusCode, row.LatencyUS, row.Error, row.Response).Scan(ctx, &ids)
		if err == nil && len(ids) != 1 {
			err = errLeaseLost
		}
		return state, err
	}
	err := s.inTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		q := tx.NewUpdate().
			Model((*webhookDeliveryRow)(nil)).
			Set("status = ?", state).
			Set("attempts = ?", attempt).
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
			return errLeaseLost
		}
		_, err = tx.NewInsert().Model(row).Exec(ctx)
		return err
	})
	return state, err
}

// releaseDelivery gives a claimed delivery back, due at once, without
// counting an attempt.
func (s *Store) releaseDelivery(ctx context.Context, c *claimedDelivery) error {
	_, err := s.db.NewUpdate().
		Model((*webhookDeliveryRow)(nil)).
		Set("locked_until = NULL").
		Set("lease = NULL").
		Set("updated_at = ?", s.utcNow()).
		Where("d.id = ? AND d.lease = ?", c.DeliveryID, c.lease).
		Exec(ctx)
	return err
}
