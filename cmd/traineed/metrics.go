package main

import (
	"context"
	"runtime"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/traineed/traineed/api/server"
	"github.com/traineed/traineed/cmd/internal/buildinfo"
	"github.com/traineed/traineed/jobs"
	"github.com/traineed/traineed/store"
)

// serverMetrics are the metrics of one `traineed serve`: the HTTP side's
// (package server), the store's pool and outbox (read at each scrape), the
// dispatcher's attempts, the evaluator's evaluations, build info and the
// Go runtime's and process's standard metrics.
type serverMetrics struct {
	reg         *prometheus.Registry
	http        *server.Metrics
	attempts    *prometheus.CounterVec
	evaluations *prometheus.CounterVec
	runs        prometheus.Counter
	expirations prometheus.Counter
	reloads     *prometheus.CounterVec
}

// outcomes are the dispatcher's attempt outcomes, exported at 0 from the
// start so that rates work before the first of each.
var outcomes = []string{jobs.OutcomeDelivered, jobs.OutcomeRetry, jobs.OutcomeFailed,
	jobs.OutcomeReleased, jobs.OutcomeLeaseLost, jobs.OutcomeNotRecorded}

func newServerMetrics(s *store.Store) *serverMetrics {
	reg := prometheus.NewRegistry()
	m := &serverMetrics{
		reg:  reg,
		http: server.NewMetrics(reg, reg),
		attempts: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "traineed_webhook_attempts_total",
			Help: "Webhook delivery attempts made by this instance, by outcome (delivered, retry, failed, released, lease_lost, not_recorded).",
		}, []string{"outcome"}),
		evaluations: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "traineed_automation_evaluations_total",
			Help: "Evaluations of the automations' time triggers run by this instance, by result (ok, error).",
		}, []string{"result"}),
		runs: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "traineed_automation_runs_total",
			Help: "Automation runs fired by this instance's evaluations of the time triggers.",
		}),
		expirations: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "traineed_automation_expirations_total",
			Help: "trainee.expired events recorded by this instance's evaluations.",
		}),
		reloads: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "traineed_sighup_reloads_total",
			Help: "SIGHUP reloads (log file reopened, limits re-read), by result (ok, error).",
		}, []string{"result"}),
	}
	for _, o := range outcomes {
		m.attempts.WithLabelValues(o)
	}
	for _, r := range []string{"ok", "error"} {
		m.evaluations.WithLabelValues(r)
		m.reloads.WithLabelValues(r)
	}
	reg.MustRegister(m.attempts, m.evaluations, m.runs, m.expirations, m.reloads,
		prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "traineed_rate_limit_fail_open_total",
			Help: "Requests decided by the instance's own limiter because the shared Redis limiter did not answer (fail open).",
		}, func() float64 { return float64(server.LimiterFailOpenTotal()) }),
		storeCollector{s}, buildInfo(),
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// onAttempt is the dispatcher's hook.
func (m *serverMetrics) onAttempt(outcome string) { m.attempts.WithLabelValues(outcome).Inc() }

// onEvaluation is the evaluator's hook.
func (m *serverMetrics) onEvaluation(ev jobs.Evaluation, err error) {
	result := "ok"
	if err != nil {
		result = "error"
	}
	m.evaluations.WithLabelValues(result).Inc()
	m.runs.Add(float64(ev.Fired))
	m.expirations.Add(float64(ev.Expirations))
}

// buildInfo is traineed_build_info{version,revision,goversion} 1: what
// --version says (cmd/internal/buildinfo), the revision "unknown" when no
// commit is known.
func buildInfo() prometheus.Collector {
	b := buildinfo.Get()
	revision := b.Commit
	if revision == "" {
		revision = "unknown"
	}
	version, goVersion := b.Version, runtime.Version()
	g := prometheus.NewGauge(prometheus.GaugeOpts{
		Name:        "traineed_build_info",
		Help:        "Always 1; its labels say which build of traineed runs.",
		ConstLabels: prometheus.Labels{"version": version, "revision": revision, "goversion": goVersion},
	})
	g.Set(1)
	return g
}

// storeCollector reads the store at each scrape: the connection pool's
// statistics and the webhook outbox's backlog (one COUNT over the pending
// deliveries, bounded by outboxQueryTimeout).
type storeCollector struct{ s *store.Store }

const outboxQueryTimeout = 5 * time.Second

var (
	descPoolMaxOpen   = prometheus.NewDesc("traineed_db_pool_max_open_connections", "The pool's maximum of open connections.", nil, nil)
	descPoolOpen      = prometheus.NewDesc("traineed_db_pool_open_connections", "Connections open, in use or idle.", nil, nil)
	descPoolInUse     = prometheus.NewDesc("traineed_db_pool_in_use_connections", "Connections in use.", nil, nil)
	descPoolIdle      = prometheus.NewDesc("traineed_db_pool_idle_connections", "Idle connections.", nil, nil)
	descPoolWaits     = prometheus.NewDesc("traineed_db_pool_waits_total", "Times a query waited for a free connection.", nil, nil)
	descPoolWaited    = prometheus.NewDesc("traineed_db_pool_wait_seconds_total", "Time spent waiting for a free connection.", nil, nil)
	descOutboxPending = prometheus.NewDesc("traineed_webhook_outbox_pending", "Webhook deliveries pending (due or waiting for a retry), every company and instance together.", nil, nil)
	descOutboxOldest  = prometheus.NewDesc("traineed_webhook_outbox_oldest_pending_age_seconds", "Age of the oldest pending webhook delivery (0 when none is pending).", nil, nil)
)

func (c storeCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descPoolMaxOpen, descPoolOpen, descPoolInUse, descPoolIdle, descPoolWaits, descPoolWaited, descOutboxPending, descOutboxOldest} {
		ch <- d
	}
}

func (c storeCollector) Collect(ch chan<- prometheus.Metric) {
	ps := c.s.PoolStats()
	ch <- prometheus.MustNewConstMetric(descPoolMaxOpen, prometheus.GaugeValue, float64(ps.MaxOpenConnections))
	ch <- prometheus.MustNewConstMetric(descPoolOpen, prometheus.GaugeValue, float64(ps.OpenConnections))
	ch <- prometheus.MustNewConstMetric(descPoolInUse, prometheus.GaugeValue, float64(ps.InUse))
	ch <- prometheus.MustNewConstMetric(descPoolIdle, prometheus.GaugeValue, float64(ps.Idle))
	ch <- prometheus.MustNewConstMetric(descPoolWaits, prometheus.CounterValue, float64(ps.WaitCount))
	ch <- prometheus.MustNewConstMetric(descPoolWaited, prometheus.CounterValue, ps.WaitDuration.Seconds())
	ctx, cancel := context.WithTimeout(context.Background(), outboxQueryTimeout)
	defer cancel()
	st, err := c.s.OutboxStats(ctx)
	if err != nil {
		ch <- prometheus.NewInvalidMetric(descOutboxPending, err)
		return
	}
	age := 0.0
	if !st.OldestPending.IsZero() {
		age = max(0, time.Since(st.OldestPending).Seconds())
	}
	ch <- prometheus.MustNewConstMetric(descOutboxPending, prometheus.GaugeValue, float64(st.Pending))
	ch <- prometheus.MustNewConstMetric(descOutboxOldest, prometheus.GaugeValue, age)
}
