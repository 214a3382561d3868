package jobs

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/traineed/traineed/api/rules"
	"github.com/traineed/traineed/store"
)

// Evaluator defaults.
const (
	DefaultEvaluationInterval = time.Minute
	DefaultEvaluationBatch    = 500
)

// EvaluatorConfig configures an Evaluator; zero fields take the defaults.
type EvaluatorConfig struct {
	// Interval is the time between the starts of two full evaluations.
	Interval time.Duration
	// Batch is how many trainees one transaction fires an automation for.
	Batch  int
	Logger *slog.Logger
	// OnEvaluation, when set, is told what each evaluation of the loop
	// did (for the metrics).
	OnEvaluation func(Evaluation, error)
	// Now is the clock that decides each company's "today" (default
	// time.Now): tests move it instead of waiting for days to pass.
	Now func() time.Time
	// TracerProvider, when set, makes each evaluation a span
	// (automations.evaluate) with a child per automation
	// (automations.evaluate_automation); nil traces nothing.
	TracerProvider trace.TracerProvider
}

// Evaluator fires the time-triggered automations (EXPIRATION_APPROACHING,
// TRAINEE_EXPIRED, INACTIVE) and records the trainee.expired webhook
// events, once per Interval, in batches of Batch trainees per transaction.
// Any number of evaluators may share a database: every run is guarded by
// the store's unique occurrence, and on PostgreSQL an automation (or a
// company's expirations) is worked by one evaluator at a time under an
// advisory lock, the others moving on to the next one. What is due, what
// each run starts as and sends, how its verdicts settle and what is pruned
// are the rules' (package rules), the same that fire the event
// automations with a change: the evaluator only says when.
type Evaluator struct {
	s      Rules
	cfg    EvaluatorConfig
	log    *slog.Logger
	tracer trace.Tracer // nil: tracing off

	start    sync.Once
	stop     chan struct{}
	stopOnce sync.Once
	done     chan struct{}
	cancel   context.CancelFunc
	ctx      context.Context
}

// Rules is what the evaluator needs of storage: the companies whose
// expirations to record and the time automations to evaluate, each fired
// in batches under its unique occurrence (ErrBusy when another instance
// holds it), and the pruning of deleted automations' runs.
type Rules interface {
	ExpirationCompanies(ctx context.Context) ([]int64, error)
	RecordExpirations(ctx context.Context, companyID int64, now time.Time, batch int) (int, error)
	TimeAutomations(ctx context.Context) ([]store.TimeAutomation, error)
	EvaluateAutomation(ctx context.Context, companyID, id int64, now time.Time, batch int, after int64) (int, int64, error)
	PruneAutomationRuns(ctx context.Context, before time.Time) (int64, error)
}

var _ Rules = (*store.Store)(nil)

// NewEvaluator returns an evaluator over s; Start starts it.
func NewEvaluator(s Rules, cfg EvaluatorConfig) *Evaluator {
	if cfg.Interval <= 0 {
		cfg.Interval = DefaultEvaluationInterval
	}
	if cfg.Batch <= 0 {
		cfg.Batch = DefaultEvaluationBatch
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	ev := &Evaluator{s: s, cfg: cfg, log: log, stop: make(chan struct{}), done: make(chan struct{})}
	if cfg.TracerProvider != nil {
		ev.tracer = cfg.TracerProvider.Tracer(TracerName)
	}
	ev.ctx, ev.cancel = context.WithCancel(context.Background())
	return ev
}

// Start runs an evaluation at once and then every Interval, until Shutdown.
func (ev *Evaluator) Start() { ev.start.Do(func() { go ev.loop() }) }

// Shutdown stops the evaluator: an evaluation in progress stops after its
// current transaction, or is cancelled (and rolled back) when ctx ends
// first.
func (ev *Evaluator) Shutdown(ctx context.Context) error {
	ev.stopOnce.Do(func() { close(ev.stop) })
	ev.start.Do(func() { close(ev.done) })
	select {
	case <-ev.done:
		ev.cancel()
		return nil
	case <-ctx.Done():
		ev.cancel()
		<-ev.done
		return ctx.Err()
	}
}

func (ev *Evaluator) loop() {
	defer close(ev.done)
	t := time.NewTicker(ev.cfg.Interval)
	defer t.Stop()
	prune := time.NewTicker(time.Hour)
	defer prune.Stop()
	ev.prune()
	for {
		res, err := ev.Evaluate(ev.ctx)
		if err != nil && ev.ctx.Err() == nil {
			ev.log.Error("automations: evaluation", "error", err)
		}
		if ev.cfg.OnEvaluation != nil && ev.ctx.Err() == nil {
			ev.cfg.OnEvaluation(res, err)
		}
		select {
		case <-ev.stop:
			return
		case <-prune.C:
			ev.prune()
		case <-t.C:
		}
	}
}

func (ev *Evaluator) prune() {
	ctx, cancel := context.WithTimeout(ev.ctx, time.Minute)
	defer cancel()
	n, err := ev.s.PruneAutomationRuns(ctx, rules.PruneBefore(ev.cfg.Now()))
	if err != nil {
		ev.log.Error("automations: pruning the runs of deleted automations", "error", err)
	} else if n > 0 {
		ev.log.Info("automations: pruned the runs of deleted automations", "runs", n)
	}
}

// Evaluation is what one full evaluation did.
type Evaluation struct {
	Automations int // time automations looked at
	Fired       int // runs fired
	Expirations int // trainee.expired events recorded
	Busy        int // automations or companies left to another instance
}

// Evaluate runs one full evaluation at the clock's now: the trainee.expired
// events first (so that an automation that soft-deletes an expired trainee
// does not hide its expiry), then every enabled time automation of every
// company. It stops
// between transactions when Shutdown is called.
func (ev *Evaluator) Evaluate(ctx context.Context) (res Evaluation, err error) {
	if ev.tracer != nil {
		var span trace.Span
		ctx, span = ev.tracer.Start(ctx, "automations.evaluate")
		defer func() {
			span.SetAttributes(attribute.Int("traineed.automations", res.Automations), attribute.Int("traineed.automations.fired", res.Fired),
				attribute.Int("traineed.automations.expirations", res.Expirations), attribute.Int("traineed.automations.busy", res.Busy))
			if err != nil {
				span.SetStatus(codes.Error, "evaluation failed")
			}
			span.End()
		}()
	}
	return ev.evaluate(ctx)
}

// evaluate is Evaluate without its span.
func (ev *Evaluator) evaluate(ctx context.Context) (Evaluation, error) {
	var res Evaluation
	var errs []error
	companies, err := ev.s.ExpirationCompanies(ctx)
	if err != nil {
		return res, err
	}
	for _, c := range companies {
		err := ev.drain(ctx, func(ctx context.Context, now time.Time) (int, error) {
			return ev.s.RecordExpirations(ctx, c, now, ev.cfg.Batch)
		}, &res.Expirations)
		switch {
		case errors.Is(err, store.ErrBusy):
			res.Busy++
		case err != nil:
			if ctx.Err() != nil || ev.stopped() {
				return res, err
			}
			ev.log.Error("automations: recording trainee.expired events", "company", c, "error", err)
			errs = append(errs, err)
		}
		if ev.stopped() {
			return res, nil
		}
	}
	autos, err := ev.s.TimeAutomations(ctx)
	if err != nil {
		return res, err
	}
	for _, a := range autos {
		res.Automations++
		var after int64 // each batch starts past the trainees of the last one
		start, fired := time.Now(), res.Fired
		actx, span := ev.automationSpan(ctx, a)
		err := ev.drain(actx, func(ctx context.Context, now time.Time) (int, error) {
			n, last, err := ev.s.EvaluateAutomation(ctx, a.CompanyID, a.ID, now, ev.cfg.Batch, after)
			after = last
			return n, err
		}, &res.Fired)
		if span != nil {
			span.SetAttributes(attribute.Int("traineed.automations.fired", res.Fired-fired), attribute.Bool("traineed.automation.busy", errors.Is(err, store.ErrBusy)))
			if err != nil && !errors.Is(err, store.ErrBusy) {
				span.SetStatus(codes.Error, "evaluation failed")
			}
			span.End()
		}
		ev.log.Debug("automations: evaluated an automation", "automation", a.ID, "company", a.CompanyID,
			"fired", res.Fired-fired, "duration_ms", time.Since(start).Milliseconds())
		switch {
		case errors.Is(err, store.ErrBusy):
			res.Busy++
		case err != nil:
			if ctx.Err() != nil || ev.stopped() {
				return res, err
			}
			ev.log.Error("automations: evaluating an automation", "automation", a.ID, "company", a.CompanyID, "error", err)
			errs = append(errs, err)
		}
		if ev.stopped() {
			return res, nil
		}
	}
	if res.Fired > 0 || res.Expirations > 0 {
		ev.log.Info("automations: evaluated", "automations", res.Automations, "fired", res.Fired, "expired_events", res.Expirations, "busy", res.Busy)
	}
	return res, errors.Join(errs...)
}

// automationSpan starts the span of one automation's evaluation (nil
// when tracing is off).
func (ev *Evaluator) automationSpan(ctx context.Context, a store.TimeAutomation) (context.Context, trace.Span) {
	if ev.tracer == nil {
		return ctx, nil
	}
	return ev.tracer.Start(ctx, "automations.evaluate_automation", trace.WithAttributes(
		attribute.Int64("traineed.automation.id", a.ID), attribute.Int64("traineed.company_id", a.CompanyID)))
}

// drain runs batch until it fires fewer than a full batch.
func (ev *Evaluator) drain(ctx context.Context, batch func(ctx context.Context, now time.Time) (int, error), total *int) error {
	for {
		n, err := batch(ctx, ev.cfg.Now())
		*total += n
		if err != nil {
			return err
		}
		if n < ev.cfg.Batch || ev.stopped() {
			return nil
		}
	}
}

func (ev *Evaluator) stopped() bool {
	select {
	case <-ev.stop:
		return true
	default:
		return false
	}
}
