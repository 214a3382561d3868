// Package jobs is traineed's background work, beside the HTTP server and
// stopped with it: the webhook dispatcher, which delivers the outbox's
// events, and the automations evaluator, which fires the time triggers.
// Each works the store through a small interface (Outbox, Rules), so it
// can be run, and tested, over anything that keeps their promises; the
// requests to companies' URLs go through api/outbound, never the store.
package jobs

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/traineed/traineed/api/outbound"
	"github.com/traineed/traineed/store"
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
	// DefaultEndpointConcurrency is how many deliveries one endpoint gets
	// at once, whatever the dispatcher's total.
	DefaultEndpointConcurrency = 2
	// DefaultCompanyConcurrency is how many deliveries one company's
	// endpoints get at once, together: half the default total, so that a
	// company with many slow endpoints leaves room to the others.
	DefaultCompanyConcurrency = 4
	// DefaultChain is how many due deliveries of one endpoint a slot
	// claims at once, to send one after another.
	DefaultChain = 32
	// DefaultChainWindow is how long a chain goes on starting attempts
	// after its claim (DispatcherConfig.ChainWindow).
	DefaultChainWindow = time.Second
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
	// Changes committed by this process wake the dispatcher at once, and on
	// PostgreSQL, with the store's Listener running, those of the other
	// instances too: the poll is then the fallback.
	PollInterval time.Duration
	// Concurrency is how many deliveries are sent at once.
	Concurrency int
	// EndpointConcurrency is how many of them one endpoint gets at once,
	// counted over every dispatcher sharing the database.
	EndpointConcurrency int
	// CompanyConcurrency is how many of them one company's endpoints get
	// at once, together, counted the same way.
	CompanyConcurrency int
	// Chain is how many due deliveries of one endpoint a slot claims under
	// one lease, to send one after another on one connection: the next
	// goes as soon as the last is answered, without waiting for the
	// database, and the attempts are recorded in batches. A chain stops at
	// a failed attempt, at Shutdown, and when its lease would leave too
	// little time to record the next attempt; what it did not send is
	// given back. EndpointConcurrency and CompanyConcurrency count chains,
	// so they still bound the requests at once. 1 claims one delivery at a
	// time.
	Chain int
	// ChainWindow bounds how long after its claim a chain starts another
	// attempt (default DefaultChainWindow). A chain sends to the endpoint
	// as its claim read it (URL, secret, enabled), so this is how long a
	// change to the endpoint can take to reach its deliveries: at most
	// ChainWindow plus the attempt in flight. A fast receiver finishes a
	// chain well within it; a slow one has its chains cut and claimed
	// again, reading the endpoint anew.
	ChainWindow time.Duration
	// Retention, when positive, deletes events older than it whose
	// deliveries are finished, once an hour.
	Retention time.Duration
	// Outbound sends the requests; nil is outbound.New with the default
	// policy (internal addresses refused).
	Outbound *outbound.Client
	Logger   *slog.Logger
	// OnAttempt, when set, is told the outcome of each attempt this
	// dispatcher made: one of the Outcome constants (for the metrics).
	OnAttempt func(outcome string)
	// Now is the clock of attempts and pruning (default time.Now).
	Now func() time.Time
	// TracerProvider, when set, makes each cycle that claims a span
	// (webhook.claim) and each attempt one (webhook.deliver, linked to the
	// span that wrote its event); nil traces nothing.
	TracerProvider trace.TracerProvider
}

// Dispatcher delivers the webhook events of the outbox: it claims due
// deliveries under a lease, POSTs them signed, and records each attempt.
// Any number of dispatchers, in one process or many, may share a
// PostgreSQL database: a delivery is claimed by one of them at a time
// (FOR UPDATE SKIP LOCKED), so one attempt is never sent twice. Delivery is
// at least once: a dispatcher that dies mid-attempt leaves the delivery to be
// claimed again when its lease expires.
//
// One goroutine (loop) does all of the dispatcher's database work, in
// cycles: each records every attempt finished since the last, gives back
// what chains left unsent, and claims as many chains of due deliveries as
// that leaves slots free, in one transaction (store.CycleDeliveries,
// prepared statements). A slot is a chain: up to Chain deliveries of one
// endpoint, sent one after another by a goroutine of its own; while a
// cycle waits for the database the attempts that finish meanwhile gather
// for the next.
type Dispatcher struct {
	s      Outbox
	cfg    DispatcherConfig
	log    *slog.Logger
	sender *webhookSender
	tracer trace.Tracer // nil: tracing off

	start    sync.Once
	stop     chan struct{} // closed by Shutdown: claim nothing more
	stopOnce sync.Once
	loopDone chan struct{}
	freed    chan struct{} // an attempt finished: a cycle records it
	cycled   chan struct{} // a cycle ended (signalled without blocking; tests wait on it)

	abort       context.Context // cancelled when Shutdown's grace runs out
	abortCancel context.CancelFunc

	mu      sync.Mutex
	slots   int                      // chains claimed whose end is not recorded yet
	ended   int                      // chains ended since the last cycle
	done    []*store.FinishedAttempt // attempts made, waiting for the next cycle
	release []*store.ClaimedDelivery // deliveries chains did not send, to give back
	halt    map[string]bool          // chains running, by lease: true when one of their deliveries was lost
	wg      sync.WaitGroup
}

// Outbox is what the dispatcher needs of storage: the webhook outbox's
// cycle (record finished attempts, give back unsent deliveries, claim due
// deliveries under a lease), its one wake point (signalled
// after a commit that scheduled deliveries: this process's, and on
// PostgreSQL another instance's heard by the store's Listener), the disabling of an endpoint
// that answered 410 Gone, and the pruning of finished events.
type Outbox interface {
	CycleDeliveries(ctx context.Context, done []*store.FinishedAttempt, release []*store.ClaimedDelivery, schedule []time.Duration, limit int, lim store.ClaimLimits, lease time.Duration) ([]*store.ClaimedDelivery, error)
	Wake() <-chan struct{}
	DisableEndpoint(ctx context.Context, webhookID int64, url, reason string) (*store.DisabledEndpoint, error)
	PruneWebhookEvents(ctx context.Context, before time.Time) (int64, error)
}

var _ Outbox = (*store.Store)(nil)

// NewDispatcher returns a dispatcher over s; Start starts it.
func NewDispatcher(s Outbox, cfg DispatcherConfig) (*Dispatcher, error) {
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
	if cfg.EndpointConcurrency <= 0 {
		cfg.EndpointConcurrency = DefaultEndpointConcurrency
	}
	if cfg.CompanyConcurrency <= 0 {
		cfg.CompanyConcurrency = DefaultCompanyConcurrency
	}
	if cfg.ChainWindow <= 0 {
		cfg.ChainWindow = DefaultChainWindow
	}
	if cfg.Chain <= 0 {
		cfg.Chain = DefaultChain
	}
	if cfg.Outbound == nil {
		cfg.Outbound = outbound.New(outbound.Config{})
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	d := &Dispatcher{
		s: s, cfg: cfg, log: log,
		sender:   &webhookSender{client: cfg.Outbound, timeout: cfg.Timeout, now: func() time.Time { return cfg.Now().UTC().Truncate(time.Microsecond) }},
		stop:     make(chan struct{}),
		loopDone: make(chan struct{}),
		freed:    make(chan struct{}, 1),
		cycled:   make(chan struct{}, 1),
		halt:     map[string]bool{},
	}
	if cfg.TracerProvider != nil {
		d.tracer = cfg.TracerProvider.Tracer(TracerName)
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
	defer d.abortCancel()
	var err error
	select {
	case <-d.loopDone:
	case <-ctx.Done():
		d.abortCancel()
		<-d.loopDone
		err = ctx.Err()
	}
	d.wg.Wait()
	return err
}

// loop runs the cycles: on a wake-up, a poll, or an attempt finishing.
// After Shutdown it claims nothing more and ends once every attempt in
// flight is recorded or released.
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
	stop, stopped := d.stop, false
	want := true // something may be due that the last claim did not take
	for {
		want = d.cycle(!stopped, want)
		select {
		case d.cycled <- struct{}{}:
		default:
		}
		if stopped && d.idle() {
			return
		}
		select {
		case <-stop:
			stop, stopped = nil, true
		case <-poll.C:
			want = true
		case <-d.s.Wake():
			want = true
		case <-d.freed:
		case <-prune:
			d.prune()
		}
	}
}

// idle reports whether no attempt is in flight or waiting to be recorded.
func (d *Dispatcher) idle() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.slots == 0
}

// cycle records the attempts made since the last cycle, gives back what
// chains left unsent and, when claim, claims as many chains as there are
// free slots, and starts sending them. It claims only when want (a
// wake-up, a poll, or a last claim that filled every free slot) or a
// chain ended: with no new deliveries and no slot freed on the database's
// side, a claim would find what the last one left, nothing. It reports
// whether the next cycle should claim even if no chain ends before.
func (d *Dispatcher) cycle(claim, want bool) bool {
	d.mu.Lock()
	done, release, ended := d.done, d.release, d.ended
	d.done, d.release, d.ended = nil, nil, 0
	free := d.cfg.Concurrency - d.slots + ended
	d.mu.Unlock()
	if !claim || (!want && ended == 0) {
		free = 0
	}
	if len(done) == 0 && len(release) == 0 && free <= 0 {
		d.mu.Lock()
		d.slots -= ended
		d.mu.Unlock()
		return want
	}
	ctx, cancel := context.WithTimeout(context.Background(), dbTimeout)
	defer cancel()
	deadline := time.Now().Add(d.cfg.Lease) // the leases end later: they start at the claim
	ctx, ct := d.startClaim(ctx, free, len(done), len(release))
	batch, err := d.s.CycleDeliveries(ctx, done, release, d.cfg.Schedule, free,
		store.ClaimLimits{PerEndpoint: d.cfg.EndpointConcurrency, PerCompany: d.cfg.CompanyConcurrency, Chain: d.cfg.Chain}, d.cfg.Lease)
	claimSpan := ct.end(len(batch), err) // the delivery spans' parent
	chains := byLease(batch)
	d.mu.Lock()
	d.slots += len(chains) - ended
	for _, ch := range chains {
		d.halt[ch[0].Lease()] = false
	}
	if err != nil {
		// Given back at the next cycle (each only while its lease holds).
		d.release = append(d.release, release...)
	}
	for _, f := range done {
		if _, running := d.halt[f.Delivery.Lease()]; running && errors.Is(f.Err, store.ErrLeaseLost) {
			d.halt[f.Delivery.Lease()] = true
		}
	}
	d.mu.Unlock()
	if err != nil {
		if len(done) == 0 {
			d.log.Error("webhook dispatcher: claiming deliveries", "error", err)
		}
		for _, f := range done {
			// The lease expires and the delivery is attempted again.
			d.log.Error("webhook dispatcher: recording an attempt", "delivery_id", f.Delivery.DeliveryID, "error", err)
			d.outcome(OutcomeNotRecorded)
		}
		return true
	}
	for _, ch := range chains {
		d.wg.Add(1)
		go d.deliver(ch, deadline, claimSpan)
	}
	for _, f := range done {
		d.recorded(f)
	}
	return (want || ended > 0) && free > 0 && len(chains) >= free
}

// byLease splits claimed deliveries into their chains, in order.
func byLease(batch []*store.ClaimedDelivery) [][]*store.ClaimedDelivery {
	var out [][]*store.ClaimedDelivery
	at := map[string]int{}
	for _, c := range batch {
		i, ok := at[c.Lease()]
		if !ok {
			i = len(out)
			at[c.Lease()] = i
			out = append(out, nil)
		}
		out[i] = append(out[i], c)
	}
	return out
}

// deliver makes the attempts of a chain, one after another, handing each
// result to the next cycle. It stops at a failed attempt, at Shutdown, and
// when the lease (ending after deadline) could run out during the next
// attempt or ChainWindow has passed since the claim, and hands what it
// did not send back. An attempt cut short by
// Shutdown's grace is given back too, not recorded.
func (d *Dispatcher) deliver(chain []*store.ClaimedDelivery, deadline time.Time, claim trace.SpanContext) {
	defer d.wg.Done()
	window := time.Now().Add(d.cfg.ChainWindow)
	for i, c := range chain {
		if i > 0 && (!d.goOn(c.Lease(), deadline) || !time.Now().Before(window)) {
			d.endChain(nil, chain[i:])
			return
		}
		var res store.DeliveryAttempt
		if d.tracer != nil {
			res = d.sendTraced(c, claim)
		} else {
			res = d.sender.send(d.abort, c)
		}
		if d.abort.Err() != nil && !res.OK() {
			// Shut down mid-attempt: the attempt does not count.
			d.outcome(OutcomeReleased)
			d.endChain(nil, chain[i:])
			return
		}
		f := &store.FinishedAttempt{Delivery: c, Result: res}
		if i == len(chain)-1 || !res.OK() {
			d.endChain(f, chain[i+1:])
			return
		}
		d.mu.Lock()
		d.done = append(d.done, f)
		d.mu.Unlock()
		d.signal()
	}
}

// goOn reports whether a chain sends its next delivery: not after
// Shutdown, nor after a cycle found one of its deliveries gone (deleted
// with its endpoint, or taken by another instance), nor when the attempt,
// timing out, would leave less than half of the lease's slack over the
// timeout to record it (a single attempt leaves all of it: 20 s of the
// defaults' 30 s lease).
func (d *Dispatcher) goOn(lease string, deadline time.Time) bool {
	select {
	case <-d.stop:
		return false
	default:
	}
	d.mu.Lock()
	halted := d.halt[lease]
	d.mu.Unlock()
	if halted {
		return false
	}
	margin := (d.cfg.Lease - d.cfg.Timeout) / 2
	return time.Now().Add(d.cfg.Timeout + margin).Before(deadline)
}

// endChain hands a chain's last attempt (f, when not nil) and what it did
// not send to the next cycle, which frees its slot.
func (d *Dispatcher) endChain(f *store.FinishedAttempt, unsent []*store.ClaimedDelivery) {
	d.mu.Lock()
	if f != nil {
		d.done = append(d.done, f)
	}
	d.release = append(d.release, unsent...)
	d.ended++
	if f != nil {
		delete(d.halt, f.Delivery.Lease())
	} else if len(unsent) > 0 {
		delete(d.halt, unsent[0].Lease())
	}
	d.mu.Unlock()
	d.signal()
}

// signal wakes the loop for a cycle.
func (d *Dispatcher) signal() {
	select {
	case d.freed <- struct{}{}:
	default:
	}
}
