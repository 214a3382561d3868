package store

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
)

// Cross-instance wake (PostgreSQL). The one post-commit hook, afterCommit,
// wakes this process's dispatcher and feed waiters; on PostgreSQL it also
// hands the same marks to the wake sender, which tells the other instances
// with a NOTIFY on wakeChannel right after the commit. Each instance's
// Listener (one dedicated connection, LISTEN) turns the notifications of
// the others into the same in-process wake. The polls stay as the
// fallback: a notification lost (an instance that dies between its commit
// and its NOTIFY, a listener reconnecting) costs the poll's delay, never a
// delivery or an event.
//
// Why after the commit, not pg_notify inside the transaction: a
// transaction that notifies takes PostgreSQL's one notification-queue lock
// at its commit and holds it through the commit's WAL flush, so every
// notifying change of the database would commit one after another, and
// the change would carry one more statement while it holds its company's
// feed lock. Sent after the commit, by one goroutine that coalesces what
// committed meanwhile into one NOTIFY, on an asynchronous commit
// (synchronous_commit off: a lost notification only costs the poll), the
// change's own transaction is as it was.

// wakeChannel is the channel of the notifications.
const wakeChannel = "traineed_wake"

// AllCompanies is the company id given to the OnEvent listeners when any
// company may have new events: when the listener (re)connects, since
// notifications may have been missed meanwhile, and when one notification
// would name too many companies.
const AllCompanies int64 = 0

// maxWakeCompanies bounds the companies one notification names; beyond,
// it says "every company" (payloads stay far below PostgreSQL's 8,000
// bytes).
const maxWakeCompanies = 64

// wakeSender sends this process's committed marks to the other instances,
// coalescing: what commits while a NOTIFY is in flight goes in the next.
type wakeSender struct {
	s        *Store
	instance string // this process's id in the payloads: its own are ignored

	mu      sync.Mutex
	pending wakeMarks
	kick    chan struct{} // something is pending
	stop    chan struct{} // closed by Close
	stopped sync.Once
	done    chan struct{} // the goroutine ended
}

// wakeMarks is what a notification carries: deliveries are due, and which
// companies recorded events (all: too many to name).
type wakeMarks struct {
	deliveries bool
	all        bool
	companies  []int64
}

func (m *wakeMarks) empty() bool { return !m.deliveries && !m.all && len(m.companies) == 0 }

func (m *wakeMarks) add(deliveries bool, companies []int64) {
	m.deliveries = m.deliveries || deliveries
	for _, c := range companies {
		if m.all {
			return
		}
		if !slices.Contains(m.companies, c) {
			m.companies = append(m.companies, c)
		}
		if len(m.companies) > maxWakeCompanies {
			m.all, m.companies = true, nil
		}
	}
}

// payload encodes marks: "INSTANCE D COMPANIES", D being "d" (deliveries
// due) or "-", COMPANIES "1,5,9", "*" (every company) or "-" (none). Ids
// and flags only: never company data.
func (m *wakeMarks) payload(instance string) string {
	var b strings.Builder
	b.WriteString(instance)
	if m.deliveries {
		b.WriteString(" d ")
	} else {
		b.WriteString(" - ")
	}
	switch {
	case m.all:
		b.WriteByte('*')
	case len(m.companies) == 0:
		b.WriteByte('-')
	default:
		for i, c := range m.companies {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.FormatInt(c, 10))
		}
	}
	return b.String()
}

// parseWake decodes a payload; ok is false when it is not one (the
// listener then wakes everything).
func parseWake(p string) (instance string, m wakeMarks, ok bool) {
	f := strings.Fields(p)
	if len(f) != 3 || (f[1] != "d" && f[1] != "-") {
		return "", m, false
	}
	m.deliveries = f[1] == "d"
	switch f[2] {
	case "*":
		m.all = true
	case "-":
	default:
		for _, s := range strings.Split(f[2], ",") {
			id, err := strconv.ParseInt(s, 10, 64)
			if err != nil || id <= 0 {
				return "", m, false
			}
			m.companies = append(m.companies, id)
		}
	}
	return f[0], m, true
}

func newInstanceID() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// startWakeSender starts the sender of a PostgreSQL store.
func (s *Store) startWakeSender() {
	w := &wakeSender{s: s, instance: newInstanceID(), kick: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
	s.wakeOut = w
	go w.run()
}

// add queues a committed transaction's marks, without blocking.
func (w *wakeSender) add(deliveries bool, companies []int64) {
	w.mu.Lock()
	w.pending.add(deliveries, companies)
	w.mu.Unlock()
	select {
	case w.kick <- struct{}{}:
	default:
	}
}

func (w *wakeSender) take() wakeMarks {
	w.mu.Lock()
	defer w.mu.Unlock()
	m := w.pending
	w.pending = wakeMarks{}
	return m
}

// wakeGap is the least time between two NOTIFYs of one process: a commit
// after a quiet spell is sent at once, and under a stream of commits those
// of each wakeGap go in one notification (each NOTIFY is a transaction of
// the database's: at 1,000 creates a second, one per commit cost creates
// a tenth of their rate).
const wakeGap = 5 * time.Millisecond

// run sends what is pending, one NOTIFY at a time and at most one per
// wakeGap, until Close; Close sends what is left once.
func (w *wakeSender) run() {
	defer close(w.done)
	var last time.Time
	for {
		select {
		case <-w.kick:
		case <-w.stop:
			w.flush()
			return
		}
		if wait := wakeGap - time.Since(last); wait > 0 {
			select {
			case <-time.After(wait):
			case <-w.stop:
				w.flush()
				return
			}
		}
		if m := w.take(); !m.empty() {
			w.send(m)
			last = time.Now()
		}
	}
}

// flush sends what is pending, if anything.
func (w *wakeSender) flush() {
	if m := w.take(); !m.empty() {
		w.send(m)
	}
}

// wakeNotify is the sender's statement: an asynchronous commit of its own
// (its loss costs a poll, nothing more), then the notification.
const wakeNotify = `SELECT set_config('synchronous_commit', 'off', true), pg_notify($1, $2)`

// send sends one notification through the pool, below bun (it is not one
// of the store's queries: no hook sees it). It is sent again once when it
// met a lost connection (as beginTx does: a NOTIFY twice only wakes twice);
// another failure is not retried: the polls are the fallback.
func (w *wakeSender) send(m wakeMarks) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	p := m.payload(w.instance)
	_, err := w.s.db.DB.ExecContext(ctx, wakeNotify, wakeChannel, p)
	if err != nil && connLost(err) && ctx.Err() == nil {
		w.s.flushIdle()
		_, _ = w.s.db.DB.ExecContext(ctx, wakeNotify, wakeChannel, p)
	}
}

// close stops the sender after sending what is pending.
func (w *wakeSender) close() {
	w.stopped.Do(func() { close(w.stop) })
	<-w.done
}

// wakeDispatcher wakes this process's dispatcher, without blocking; wakes
// coalesce.
func (s *Store) wakeDispatcher() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// ListenConfig configures a Listener; zero fields take the defaults.
type ListenConfig struct {
	// Logger gets the listener's connection losses and failures.
	Logger *slog.Logger
	// MinBackoff and MaxBackoff bound the wait before a reconnection
	// (defaults 100 ms and 5 s); it doubles while connections fail or
	// last under a minute.
	MinBackoff, MaxBackoff time.Duration
}

// Listener receives the other instances' notifications on one dedicated
// connection and wakes this process as its own commits do: the dispatcher
// (Wake) and the OnEvent listeners. Each time it connects (at the start,
// after a lost connection) it wakes everything once, since notifications
// may have been missed meanwhile.
type Listener struct {
	s        *Store
	cfg      ListenConfig
	conn     *pgx.ConnConfig
	cancel   context.CancelFunc
	done     chan struct{}
	connects atomic.Int64
}

// Listen starts the store's listener on PostgreSQL; on SQLite (one
// process) it returns nil, whose Close does nothing.
func (s *Store) Listen(cfg ListenConfig) (*Listener, error) {
	if s.dialect != DialectPostgres {
		return nil, nil
	}
	cc, err := pgConnConfig(s.url)
	if err != nil {
		return nil, err
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.MinBackoff <= 0 {
		cfg.MinBackoff = 100 * time.Millisecond
	}
	if cfg.MaxBackoff < cfg.MinBackoff {
		cfg.MaxBackoff = max(5*time.Second, cfg.MinBackoff)
	}
	ctx, cancel := context.WithCancel(context.Background())
	l := &Listener{s: s, cfg: cfg, conn: cc, cancel: cancel, done: make(chan struct{})}
	go l.run(ctx)
	return l, nil
}

// Close stops the listener and closes its connection.
func (l *Listener) Close() {
	if l == nil {
		return
	}
	l.cancel()
	<-l.done
}

// Connects is how many times the listener has connected and listened.
func (l *Listener) Connects() int64 { return l.connects.Load() }

func (l *Listener) run(ctx context.Context) {
	defer close(l.done)
	backoff := l.cfg.MinBackoff
	for {
		started := time.Now()
		err := l.session(ctx)
		if ctx.Err() != nil {
			return
		}
		l.cfg.Logger.Warn("wake listener: connection lost; the polls stand in until it is back", "error", err, "retry_in", backoff)
		select {
		case <-ctx.Done():
			return
		case <-time.After(backoff):
		}
		if time.Since(started) > time.Minute {
			backoff = l.cfg.MinBackoff
		} else {
			backoff = min(2*backoff, l.cfg.MaxBackoff)
		}
	}
}

// session connects, listens, wakes everything once, and hands each
// notification to the wake until the connection fails or ctx ends.
func (l *Listener) session(ctx context.Context) error {
	conn, err := pgx.ConnectConfig(ctx, l.conn)
	if err != nil {
		return err
	}
	defer func() {
		cctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = conn.Close(cctx)
	}()
	if _, err := conn.Exec(ctx, "LISTEN "+wakeChannel); err != nil {
		return err
	}
	l.s.wakeAll()
	if l.connects.Add(1) > 1 {
		l.cfg.Logger.Info("wake listener: connected again; everything woken once")
	}
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			return err
		}
		l.s.wakeFrom(n.Payload)
	}
}

// wakeAll wakes the dispatcher and every company's feed waiters.
func (s *Store) wakeAll() {
	s.wakeDispatcher()
	s.notifyEvent(AllCompanies)
}

// wakeFrom acts on another instance's notification as afterCommit acts
// on a local commit; this process's own notifications are ignored (its
// commits woke it already).
func (s *Store) wakeFrom(payload string) {
	instance, m, ok := parseWake(payload)
	if !ok {
		s.wakeAll()
		return
	}
	if s.wakeOut != nil && instance == s.wakeOut.instance {
		return
	}
	if m.deliveries {
		s.wakeDispatcher()
	}
	if m.all {
		s.notifyEvent(AllCompanies)
	}
	for _, c := range m.companies {
		s.notifyEvent(c)
	}
}
