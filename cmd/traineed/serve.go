package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/outbound"
	"github.com/traineed/traineed/api/server"
	"github.com/traineed/traineed/cmd/traineed/demo"
	"github.com/traineed/traineed/jobs"
	"github.com/traineed/traineed/store"
	"golang.org/x/term"
)

// shutdownGrace is how long in-flight requests may run once the server
// stops accepting connections.
const shutdownGrace = 30 * time.Second

// defaultShutdownDelay is how long the server drains before it stops
// accepting connections: the load balancer's time to notice /readyz.
const defaultShutdownDelay = 5 * time.Second

// serveOptions are the flags of `traineed serve`.
type serveOptions struct {
	addr, logFormat string
	demo            bool
	shutdownDelay   time.Duration
	hashConcurrency int
	hashLowPriority bool
	webhooks        webhookFlags
	outbound        outboundFlags
	maxWebhooks     int
	maxAutomations  int
	automations     bool
	evalInterval    time.Duration
	evalBatch       int
	metricsAddr     string
	logFile         string
	rateLimit       int // requests a minute per API key; 0: none
	rateBurst       int
	redisURL        string
	limitsFile      string // --limits-file: the rate limit, re-read on SIGHUP
	wakeListen      bool   // --wake-listen: hear the other instances' changes (wake.go)
}

// envInt is the integer of environment variable name, else def.
func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil {
		return v
	}
	return def
}

const serveLong = `Serves /public-api/, /healthz and /readyz. Logs (one JSON line per request) go
to stderr.

SIGINT or SIGTERM first drains: /readyz answers 503 at once, and the server
keeps serving every request, each answered with "Connection: close", for
--shutdown-delay (default 5s: the load balancer's time to notice). A second
SIGINT or SIGTERM ends the delay early. Then it stops accepting connections and
lets requests in flight finish, for up to 30 seconds; the event feed's long polls
answer at once (an empty page, as when their wait runs out).

The server also delivers the outbound webhooks (see traineed webhook --help): it
sends due deliveries, at most --webhook-concurrency at once, and retries failed
ones on --webhook-retry-schedule. On shutdown, attempts in flight finish within
the same 30 seconds or are released for another instance to send. Several
instances on one PostgreSQL share the deliveries; --webhook-dispatch=false leaves
them to the other instances. On PostgreSQL each instance hears the others'
changes (LISTEN/NOTIFY on one connection of its own) and starts their
deliveries and answers the event feed's long polls at once, the polls standing
in while that connection is lost; --wake-listen=false leaves it to the polls.

The server also evaluates the automations' time triggers (EXPIRATION_APPROACHING,
TRAINEE_EXPIRED, INACTIVE) and records the trainee.expired webhook events, every
--automations-interval. Several instances share that work; --automations=false
turns it off on this instance (event triggers fire with the change, everywhere).

With --demo, once the address is listened on, a database without any company
first gets the demo data set and the demo company's API key is printed on
stdout ("API key for Demo Fitness: pk_..."); when the demo company is already
there, a fresh key for it is created and printed, and the demo keys of earlier
starts are disabled (stderr says which). A start that cannot listen creates
no key.

Prometheus metrics (requests by route pattern, the database pool, the password
hashing queue, the webhook outbox and deliveries, the automations, build info)
are served at GET /metrics without a key, on the main address, or alone on
--metrics-addr (the main address then answers 404 there).

Logs are text on a terminal and JSON lines otherwise; --log-format chooses.
They go to stderr, or with --log-file are appended to a file.

SIGHUP reloads without a restart: it reopens the log file by its name (rename
it, then send SIGHUP: logrotate's postrotate) and re-reads --limits-file,
the rate limits. Each reload is logged, and counted in
traineed_sighup_reloads_total.`

func newServeCmd(e *env) *cobra.Command {
	var o serveOptions
	c := &cobra.Command{
		Use:   "serve [--addr HOST:PORT] [--demo]",
		Short: "Serve the API",
		Long:  serveLong,
		Example: `  traineed serve --demo
  traineed serve --addr 0.0.0.0:8080 --db postgres://app@db.internal/traineed`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error { return runServe(e, &o) },
	}
	def := os.Getenv("TRAINEED_ADDR")
	if def == "" {
		def = "127.0.0.1:8080"
	}
	c.Flags().StringVar(&o.addr, "addr", def, "address to listen on (env TRAINEED_ADDR)")
	c.Flags().BoolVar(&o.demo, "demo", false, "load the demo data set into an empty database and print its API key")
	c.Flags().StringVar(&o.logFormat, "log-format", "", "log format: json or text (default: text on a terminal, json otherwise)")
	c.Flags().StringVar(&o.logFile, "log-file", os.Getenv("TRAINEED_LOG_FILE"), "append the logs to this file instead of stderr; SIGHUP reopens it (env TRAINEED_LOG_FILE)")
	delay := defaultShutdownDelay
	if d, err := time.ParseDuration(os.Getenv("TRAINEED_SHUTDOWN_DELAY")); err == nil {
		delay = d
	}
	c.Flags().DurationVar(&o.shutdownDelay, "shutdown-delay", delay,
		"on SIGTERM, keep serving (with /readyz 503 and Connection: close) this long before closing the listener (env TRAINEED_SHUTDOWN_DELAY)")
	c.Flags().IntVar(&o.hashConcurrency, "hash-concurrency", 0,
		"passwords hashed at once (0: GOMAXPROCS in the low-priority helper process; with --hash-low-priority=false GOMAXPROCS-1, at least 1, which leaves a core to the other requests)")
	c.Flags().BoolVar(&o.hashLowPriority, "hash-low-priority", true,
		"hash passwords in a helper process at the lowest CPU priority (Linux), so that requests run first; false: on the requests' goroutines")
	c.Flags().IntVar(&o.rateLimit, "rate-limit", envInt("TRAINEED_RATE_LIMIT", server.DefaultRateLimit),
		"requests a minute per API key, answered 429 with Retry-After beyond it; 0: no limit (env TRAINEED_RATE_LIMIT)")
	c.Flags().IntVar(&o.rateBurst, "rate-burst", envInt("TRAINEED_RATE_BURST", server.DefaultRateBurst),
		"requests an API key may make at once above its rate (env TRAINEED_RATE_BURST)")
	c.Flags().StringVar(&o.limitsFile, "limits-file", os.Getenv("TRAINEED_LIMITS_FILE"),
		"YAML file with rate-limit and rate-burst, read at start over the two flags and again on SIGHUP (env TRAINEED_LIMITS_FILE)")
	c.Flags().StringVar(&o.redisURL, "redis", os.Getenv("TRAINEED_REDIS"),
		"Redis URL (redis://HOST:PORT/DB) sharing the rate limit among every instance; when it does not answer, each instance limits alone (env TRAINEED_REDIS)")
	o.webhooks.register(c)
	o.outbound.register(c, true)
	c.Flags().IntVar(&o.maxWebhooks, "max-webhooks", api.DefaultMaxWebhooks, "webhook endpoints a company may register through the API (0: no cap)")
	c.Flags().IntVar(&o.maxAutomations, "max-automations", api.DefaultMaxAutomations, "automations a company may have (0: no cap)")
	c.Flags().BoolVar(&o.automations, "automations", true, "evaluate the automations' time triggers on this instance")
	c.Flags().DurationVar(&o.evalInterval, "automations-interval", jobs.DefaultEvaluationInterval, "time between two evaluations of the time triggers (at most 1m)")
	c.Flags().IntVar(&o.evalBatch, "automations-batch", jobs.DefaultEvaluationBatch, "trainees fired per transaction of an evaluation")
	_ = c.Flags().MarkHidden("automations-batch") // tests make evaluations long with tiny batches
	c.Flags().StringVar(&o.metricsAddr, "metrics-addr", os.Getenv("TRAINEED_METRICS_ADDR"),
		"serve GET /metrics on this address instead of the main one (env TRAINEED_METRICS_ADDR)")
	c.Flags().BoolVar(&o.wakeListen, "wake-listen", true, wakeListenHelp)
	return c
}

// runServe opens the store, starts the background work and serves until
// the context ends.
func runServe(e *env, o *serveOptions) error {
	hup, releaseHUP := catchSIGHUP()
	defer releaseHUP()
	hooks := &reloadHooks{}
	logOut := e.errOut
	if o.logFile != "" {
		lf, err := openLogFile(o.logFile)
		if err != nil {
			return usageError{err}
		}
		defer lf.Close()
		logOut = lf
		hooks.add("log file", lf.Reopen)
	}
	log, err := newLogger(logOut, o.logFormat)
	if err != nil {
		return err
	}
	cfg, err := o.check(log)
	if err != nil {
		return err
	}
	e.noteLog = log
	s, err := e.open()
	if err != nil {
		return err
	}
	defer s.Close()
	if err := disableRefused(e.ctx, s, cfg.Outbound, log); err != nil {
		return err
	}
	// Listen before the demo key is made: a start that cannot bind (the
	// port is taken) leaves no key behind.
	ln, mln, err := o.listen()
	if err != nil {
		return err
	}
	metrics := newServerMetrics(s)
	background, err := o.startBackground(e, s, cfg, log, metrics, mln)
	if err != nil {
		ln.Close()
		return err
	}
	// SIGHUP runs hooks in order: the log file's reopening first, then
	// the limits file's re-reading (added below, with the limiter; the
	// hooks are read at each signal).
	defer watchSIGHUP(hup, log, hooks, metrics)()
	hasher := newServeHasher(o)
	defer hasher.Close()
	mctx, stopMemory := context.WithCancel(e.ctx)
	defer stopMemory()
	if prev := setServerGC(os.Getenv("GOGC"), hasher.LowPriority()); prev >= 0 {
		go gcFollowsHelper(mctx, time.Second, hasher.LowPriority, prev)
	}
	go trimWhenIdle(mctx, trimTick, heapAllocated, debug.FreeOSMemory)
	opts := []server.Option{server.WithLogger(log), server.WithHasher(hasher),
		server.WithOutbound(cfg.Outbound), server.WithCaps(o.maxWebhooks, o.maxAutomations),
		server.WithMetrics(metrics.http, o.metricsAddr == "")}
	limiter, closeLimiter, err := o.limiter(log, hooks)
	if err != nil {
		return err
	}
	defer closeLimiter()
	if limiter != nil {
		opts = append(opts, server.WithRateLimiter(limiter))
	}
	h := server.NewHandler(s, opts...)
	s.OnEvent(h.NotifyEvent) // wake the event feed's long-polls at once
	stopWake, err := o.listenWake(s, log)
	if err != nil {
		return err
	}
	defer stopWake()
	return serve(e.ctx, log, ln, h, o.shutdownDelay, background...)
}

// check refuses flags that cannot work together, reads --limits-file, and
// returns the dispatcher's configuration with its outbound client.
func (o *serveOptions) check(log *slog.Logger) (jobs.DispatcherConfig, error) {
	if o.hashConcurrency < 0 {
		return jobs.DispatcherConfig{}, usageError{fmt.Errorf("--hash-concurrency must not be negative, not %d", o.hashConcurrency)}
	}
	if o.limitsFile != "" {
		l, err := readLimits(o.limitsFile)
		if err != nil {
			return jobs.DispatcherConfig{}, usageError{err}
		}
		if o.rateLimit != 0 {
			o.rateLimit, o.rateBurst = l.RateLimit, l.RateBurst
		}
	}
	switch {
	case o.rateLimit < 0 || o.rateBurst < 1:
		return jobs.DispatcherConfig{}, usageError{fmt.Errorf("--rate-limit must be 0 or more and --rate-burst 1 or more, not %d and %d", o.rateLimit, o.rateBurst)}
	case o.shutdownDelay < 0:
		return jobs.DispatcherConfig{}, usageError{fmt.Errorf("--shutdown-delay must not be negative, not %s", o.shutdownDelay)}
	case o.maxWebhooks < 0 || o.maxAutomations < 0:
		return jobs.DispatcherConfig{}, usageError{fmt.Errorf("--max-webhooks and --max-automations must be 0 (no cap) or more")}
	case o.evalInterval <= 0 || o.evalInterval > time.Minute:
		return jobs.DispatcherConfig{}, usageError{fmt.Errorf("--automations-interval must be positive and at most 1m, not %s", o.evalInterval)}
	}
	cfg, err := o.webhooks.config(log)
	if err != nil {
		return cfg, err
	}
	cfg.Outbound, err = o.outbound.client(cfg.EndpointConcurrency)
	return cfg, err
}

// listen listens on --addr and, when it is given, --metrics-addr.
func (o *serveOptions) listen() (ln, mln net.Listener, err error) {
	if ln, err = net.Listen("tcp", o.addr); err != nil {
		return nil, nil, err
	}
	if o.metricsAddr != "" {
		if mln, err = net.Listen("tcp", o.metricsAddr); err != nil {
			ln.Close()
			return nil, nil, fmt.Errorf("--metrics-addr: %w", err)
		}
	}
	return ln, mln, nil
}

// startBackground prints the demo key (--demo) and starts what runs beside
// the requests: the metrics listener, the dispatcher and the evaluator.
// On an error it closes mln and stops what it started.
func (o *serveOptions) startBackground(e *env, s *store.Store, cfg jobs.DispatcherConfig, log *slog.Logger, metrics *serverMetrics, mln net.Listener) ([]shutdowner, error) {
	fail := func(err error) ([]shutdowner, error) {
		if mln != nil {
			mln.Close()
		}
		return nil, err
	}
	if o.demo {
		key, disabled, err := demoKey(e.ctx, s, server.NewHasherPlain(server.DefaultPasswordParams, 1))
		if err != nil {
			return fail(err)
		}
		for _, k := range disabled {
			fmt.Fprintf(e.errOut, "Disabled the demo key of an earlier start: %s… (%s)\n", api.EscapeText(k.Prefix), api.EscapeText(k.Name))
		}
		fmt.Fprintf(e.out, "API key for %s: %s\n", demo.CompanyName, key)
	}
	cfg.OnAttempt = metrics.onAttempt
	var d *jobs.Dispatcher
	if o.webhooks.dispatch {
		var err error
		if d, err = jobs.NewDispatcher(s, cfg); err != nil {
			return fail(usageError{err})
		}
	}
	var background []shutdowner
	if mln != nil {
		background = append(background, serveMetrics(log, mln, metrics))
	}
	if d != nil {
		d.Start()
		background = append(background, d)
	}
	if o.automations {
		ev := jobs.NewEvaluator(s, jobs.EvaluatorConfig{Interval: o.evalInterval, Batch: o.evalBatch, Logger: log, OnEvaluation: metrics.onEvaluation})
		ev.Start()
		background = append(background, ev)
	}
	return background, nil
}

// limiter is the rate limiter of the flags (nil without one): in Redis
// with --redis, else in memory; with --limits-file, SIGHUP changes its
// limits. close releases it.
func (o *serveOptions) limiter(log *slog.Logger, hooks *reloadHooks) (l interface {
	server.RateLimiter
	limitSetter
}, close func(), err error) {
	close = func() {}
	switch {
	case o.rateLimit > 0 && o.redisURL != "":
		rl, rdb, err := newRedisLimiter(o.redisURL, "traineed:rl:", o.rateLimit, o.rateBurst, log)
		if err != nil {
			return nil, close, usageError{fmt.Errorf("--redis: %w", err)}
		}
		l, close = rl, func() { rdb.Close() }
	case o.rateLimit > 0:
		l = server.NewMemoryLimiter(o.rateLimit, o.rateBurst)
	default:
		return nil, close, nil
	}
	if o.limitsFile != "" {
		hooks.add("limits", reloadLimits(o.limitsFile, l))
	}
	return l, close, nil
}

// serveMetrics serves GET /metrics alone on ln (--metrics-addr), until
// shut down with the other background services.
func serveMetrics(log *slog.Logger, ln net.Listener, m *serverMetrics) *http.Server {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", m.http.Endpoint())
	srv := server.NewHTTPServer(ln.Addr().String(), mux)
	srv.ErrorLog = slog.NewLogLogger(log.Handler(), slog.LevelWarn)
	log.Info("metrics listening", "addr", ln.Addr().String())
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("metrics listener stopped", "error", err)
		}
	}()
	return srv
}

// webhookFlags are serve's settings of the webhook dispatcher.
type webhookFlags struct {
	dispatch     bool
	schedule     string
	timeout      time.Duration
	lease        time.Duration
	pollInterval time.Duration
	concurrency  int
	perEndpoint  int
	perCompany   int
	chain        int
	chainWindow  time.Duration
	retention    time.Duration
}

func (w *webhookFlags) register(c *cobra.Command) {
	f := c.Flags()
	f.BoolVar(&w.dispatch, "webhook-dispatch", true, "deliver webhooks from this instance")
	f.StringVar(&w.schedule, "webhook-retry-schedule", formatSchedule(jobs.DefaultRetrySchedule),
		"comma-separated delays before each retry of a failed webhook delivery; after the last one it is marked failed")
	f.DurationVar(&w.timeout, "webhook-timeout", jobs.DefaultWebhookTimeout, "time a receiver has to answer one webhook attempt")
	f.DurationVar(&w.lease, "webhook-lease", jobs.DefaultWebhookLease,
		"how long a claimed delivery is this instance's; if it dies, others send it after that (must exceed --webhook-timeout)")
	f.DurationVar(&w.pollInterval, "webhook-poll-interval", jobs.DefaultWebhookPollInterval, "how often to look for due webhook deliveries")
	f.IntVar(&w.concurrency, "webhook-concurrency", jobs.DefaultWebhookConcurrency, "webhook deliveries sent at once")
	f.IntVar(&w.perEndpoint, "webhook-endpoint-concurrency", jobs.DefaultEndpointConcurrency,
		"webhook deliveries one endpoint gets at once, over every instance")
	f.IntVar(&w.perCompany, "webhook-company-concurrency", jobs.DefaultCompanyConcurrency,
		"webhook deliveries one company's endpoints get at once, together, over every instance")
	f.IntVar(&w.chain, "webhook-chain", jobs.DefaultChain,
		"due deliveries of one endpoint claimed together and sent one after another on one connection (1: one at a time)")
	f.DurationVar(&w.chainWindow, "webhook-chain-window", jobs.DefaultChainWindow,
		"how long after its claim a chain goes on sending: how soon a changed or disabled endpoint is read again")
	f.DurationVar(&w.retention, "webhook-retention", api.EventRetention,
		"delete delivered events older than this (0 keeps them); at least 720h, as the event feed keeps 30 days")
}

func (w *webhookFlags) config(log *slog.Logger) (jobs.DispatcherConfig, error) {
	schedule, err := parseSchedule(w.schedule)
	if err != nil {
		return jobs.DispatcherConfig{}, usageError{err}
	}
	for name, d := range map[string]time.Duration{"--webhook-timeout": w.timeout, "--webhook-lease": w.lease, "--webhook-poll-interval": w.pollInterval} {
		if d <= 0 {
			return jobs.DispatcherConfig{}, usageError{fmt.Errorf("%s must be positive, not %s", name, d)}
		}
	}
	if w.lease <= w.timeout {
		return jobs.DispatcherConfig{}, usageError{fmt.Errorf("--webhook-lease (%s) must exceed --webhook-timeout (%s)", w.lease, w.timeout)}
	}
	if w.concurrency < 1 || w.perEndpoint < 1 || w.perCompany < 1 || w.chain < 1 {
		return jobs.DispatcherConfig{}, usageError{fmt.Errorf("--webhook-concurrency, --webhook-endpoint-concurrency, --webhook-company-concurrency and --webhook-chain must be at least 1")}
	}
	if w.chainWindow <= 0 {
		return jobs.DispatcherConfig{}, usageError{fmt.Errorf("--webhook-chain-window must be positive, not %s", w.chainWindow)}
	}
	if w.retention < 0 || (w.retention > 0 && w.retention < api.EventRetention) {
		return jobs.DispatcherConfig{}, usageError{fmt.Errorf("--webhook-retention must be 0 (keep every event) or at least %s (the event feed keeps 30 days), not %s", api.EventRetention, w.retention)}
	}
	return jobs.DispatcherConfig{
		Schedule: schedule, Timeout: w.timeout, Lease: w.lease, PollInterval: w.pollInterval,
		Concurrency: w.concurrency, EndpointConcurrency: w.perEndpoint, CompanyConcurrency: w.perCompany,
		Chain: w.chain, ChainWindow: w.chainWindow, Retention: w.retention, Logger: log,
	}, nil
}

// parseSchedule reads "5s,5m,30m": positive durations.
func parseSchedule(s string) ([]time.Duration, error) {
	out := []time.Duration{}
	for _, p := range strings.Split(s, ",") {
		d, err := time.ParseDuration(strings.TrimSpace(p))
		if err != nil || d <= 0 {
			return nil, fmt.Errorf("--webhook-retry-schedule: %q is not a positive duration (want e.g. 5s,5m,30m)", p)
		}
		out = append(out, d)
	}
	return out, nil
}

func formatSchedule(ds []time.Duration) string {
	parts := make([]string, len(ds))
	for i, d := range ds {
		p := d.String() // "5m0s", "2h0m0s"
		if strings.HasSuffix(p, "m0s") {
			p = strings.TrimSuffix(p, "0s")
		}
		if strings.HasSuffix(p, "h0m") {
			p = strings.TrimSuffix(p, "0m")
		}
		parts[i] = p
	}
	return strings.Join(parts, ",")
}

// shutdowner is a background service serve stops with the HTTP server.
type shutdowner interface {
	Shutdown(ctx context.Context) error
}

func newLogger(w io.Writer, format string) (*slog.Logger, error) {
	if format == "" {
		format = "json"
		if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
			format = "text"
		}
	}
	switch format {
	case "json":
		return slog.New(slog.NewJSONHandler(w, nil)), nil
	case "text":
		return slog.New(slog.NewTextHandler(w, nil)), nil
	}
	return nil, usageError{fmt.Errorf("--log-format must be json or text, not %q", format)}
}

// serve serves on ln until ctx ends, drains for delay (or until a second
// SIGINT or SIGTERM), then shuts down gracefully, the background services
// too, within the same grace.
func serve(ctx context.Context, log *slog.Logger, ln net.Listener, h *server.Handler, delay time.Duration, background ...shutdowner) error {
	// Every signal lands here too; the one that cancelled ctx is the first.
	signals := make(chan os.Signal, 2)
	signal.Notify(signals, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(signals)
	var err error
	srv := server.NewHTTPServer(ln.Addr().String(), h)
	srv.ErrorLog = slog.NewLogLogger(log.Handler(), slog.LevelWarn)
	srv.BaseContext = func(net.Listener) context.Context { return context.WithoutCancel(ctx) }
	hashes, low := h.Hashing()
	log.Info("listening", "addr", ln.Addr().String(), "hashConcurrency", hashes, "hashLowPriority", low)
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		stopAll(context.Background(), log, background)
		return err
	case <-ctx.Done():
	}
	drain(log, h, delay, signals)
	log.Info("shutting down", "grace", shutdownGrace.String())
	h.EndWaits() // the feed's long polls answer now, not when their wait runs out
	sctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	stopped := make(chan struct{})
	go func() { stopAll(sctx, log, background); close(stopped) }()
	err = srv.Shutdown(sctx)
	<-stopped
	if err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	if err := <-done; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	log.Info("stopped")
	return nil
}

// drain makes /readyz answer 503 and every response close its connection,
// and keeps serving for delay, or until a second signal arrives (the first
// one, which started the drain, may be waiting in signals).
func drain(log *slog.Logger, h *server.Handler, delay time.Duration, signals <-chan os.Signal) {
	h.Drain()
	log.Info("draining", "delay", delay.String())
	timer := time.NewTimer(delay)
	defer timer.Stop()
	seen := 0
	for {
		select {
		case <-timer.C:
			return
		case <-signals:
			if seen++; seen >= 2 {
				log.Info("second signal: ending the drain early")
				return
			}
		}
	}
}

// stopAll shuts the background services down concurrently.
func stopAll(ctx context.Context, log *slog.Logger, background []shutdowner) {
	var wg sync.WaitGroup
	for _, b := range background {
		wg.Go(func() {
			if err := b.Shutdown(ctx); err != nil {
				log.Warn("background service did not stop in time", "error", err)
			}
		})
	}
	wg.Wait()
}

// newServeHasher is the hasher of --hash-concurrency and
// --hash-low-priority.
func newServeHasher(o *serveOptions) *server.Hasher {
	n := o.hashConcurrency
	if !o.hashLowPriority {
		if n == 0 {
			n = server.DefaultPlainHashConcurrency()
		}
		return server.NewHasherPlain(server.DefaultPasswordParams, n)
	}
	if n == 0 {
		n = server.DefaultHashConcurrency()
	}
	// The helper is this very binary: /proc/self/exe stays it even when an
	// upgrade has replaced the file the server was started from.
	exe := "/proc/self/exe"
	if _, err := os.Stat(exe); err != nil {
		if exe, err = os.Executable(); err != nil {
			return server.NewHasherPlain(server.DefaultPasswordParams, n)
		}
	}
	return server.NewHasherHelper(server.DefaultPasswordParams, n, exe)
}

// demoKey loads the demo data set into an empty database and returns its
// key; when the demo company exists already it returns a fresh key for it
// and disables the active demo keys of earlier starts (returned), so that
// starts do not pile up live keys. Keys are stored hashed: an earlier key
// cannot be shown again, only replaced.
func demoKey(ctx context.Context, s *store.Store, hasher *server.Hasher) (string, []*api.APIKey, error) {
	has, err := s.HasCompany(ctx)
	if err != nil {
		return "", nil, err
	}
	if !has {
		_, key, err := loadDemo(ctx, s, hasher)
		return key, nil, err
	}
	cos, err := s.Companies(ctx)
	if err != nil {
		return "", nil, err
	}
	for _, co := range cos {
		if co.Name != demo.CompanyName {
			continue
		}
		keys, err := s.Keys(ctx, co.ID)
		if err != nil {
			return "", nil, err
		}
		key := api.GenerateKey()
		if _, err := s.CreateScopedKey(ctx, co.ID, "demo "+time.Now().UTC().Format(time.RFC3339), api.KeyScopeAdmin, api.HashKey(key), api.KeyDisplayPrefix(key)); err != nil {
			return "", nil, err
		}
		var disabled []*api.APIKey
		for _, k := range keys {
			if k.State == api.KeyActive && (k.Name == "demo" || strings.HasPrefix(k.Name, "demo ")) {
				if err := s.SetKeyDisabled(ctx, k.ID, true); err != nil {
					return "", nil, err
				}
				disabled = append(disabled, k)
			}
		}
		return key, disabled, nil
	}
	return "", nil, errors.New("--demo: the database already holds companies and none is the demo company; use another --db")
}

func loadDemo(ctx context.Context, s *store.Store, hasher *server.Hasher) (int64, string, error) {
	hash, err := hasher.Hash(ctx, demo.Password)
	if err != nil {
		return 0, "", err
	}
	return demo.Load(ctx, s, hash, time.Now())
}

func newDemoCmd(e *env) *cobra.Command {
	var trainees int
	c := &cobra.Command{
		Use:   "demo [--trainees N]",
		Short: "Load the demo data set and print its API key",
		Long: `Loads a demo company ("Demo Fitness", Europe/London) with trainers and about 60
varied trainees (some expired, some soft-deleted), each with up to a year of
tracked data (weights, measurements, meals, steps and workouts, dated back from
today), and prints its new API key, alone. Every demo trainee's password is "` + demo.Password + `". The data set is
deterministic, so screenshots and tests are stable.

--trainees N adds N generated trainees to the demo company, for measuring at
scale: varied names, unique e-mails and phones, dates, some expired, some
soft-deleted, most with a trainer, no tracked data. They are written in
multi-row INSERTs of 1,000 (each batch its own transaction), without
trainee.created events, and share one hash of the demo password (hashed
once). Progress goes to stderr every 50,000. On PostgreSQL a million take a
few minutes.`,
		Example: `  traineed demo
  traineed demo --trainees 1000000 --db postgres://postgres@127.0.0.1/traineed`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			if trainees < 0 {
				return errors.New("--trainees must be 0 or more")
			}
			return e.withStore(func(s *store.Store) error {
				hash, err := server.NewHasherPlain(server.DefaultPasswordParams, 1).Hash(e.ctx, demo.Password)
				if err != nil {
					return err
				}
				companyID, key, err := demo.Load(e.ctx, s, hash, time.Now())
				if err != nil {
					return err
				}
				if trainees > 0 {
					if err := demo.AddTrainees(e.ctx, s, companyID, trainees, hash, time.Now(), e.errOut); err != nil {
						return err
					}
				}
				fmt.Fprintln(e.out, key)
				return nil
			})
		},
	}
	c.Flags().IntVar(&trainees, "trainees", 0, "also add this many generated trainees (for measuring at scale)")
	return c
}

// disableRefused is serve's start-up check of the endpoints registered
// before the outbound policy, or under a wider --webhook-allow: each one
// whose URL the policy refuses at registration is disabled with the
// reason (and a webhook.disabled event), and logged once (it is disabled
// from then on).
func disableRefused(ctx context.Context, s *store.Store, c *outbound.Client, log *slog.Logger) error {
	ds, err := s.DisableRefusedEndpoints(ctx, c.CheckURL)
	for _, d := range ds {
		attrs := []any{"webhook", d.WebhookID, "company", d.CompanyID, "url", d.URL, "reason", d.Reason}
		if d.AutomationID != nil {
			attrs = append(attrs, "automation", *d.AutomationID)
		}
		log.Warn("webhook endpoint disabled: the outbound policy refuses its URL", attrs...)
	}
	if err != nil {
		return fmt.Errorf("checking the webhook endpoints against the outbound policy: %w", err)
	}
	return nil
}

// outboundFlags are the settings of every request to a company's URL
// (serve's, and `webhook add`'s registration check).
type outboundFlags struct {
	allow, deny  string
	requireHTTPS bool
	proxy        string
}

func (o *outboundFlags) register(c *cobra.Command, withProxy bool) {
	f := c.Flags()
	f.StringVar(&o.allow, "webhook-allow", os.Getenv("TRAINEED_WEBHOOK_ALLOW"),
		"comma-separated CIDR ranges webhooks may reach although internal (on-premise receivers; env TRAINEED_WEBHOOK_ALLOW); by default loopback, private, link-local and other internal addresses are refused")
	f.StringVar(&o.deny, "webhook-deny", os.Getenv("TRAINEED_WEBHOOK_DENY"),
		"comma-separated CIDR ranges webhooks may never reach although public (a cloud's metadata or DNS address, your own networks; env TRAINEED_WEBHOOK_DENY); wins over --webhook-allow")
	f.BoolVar(&o.requireHTTPS, "webhook-require-https", os.Getenv("TRAINEED_WEBHOOK_REQUIRE_HTTPS") == "1",
		"refuse plain http:// webhook URLs (env TRAINEED_WEBHOOK_REQUIRE_HTTPS=1)")
	if withProxy {
		f.StringVar(&o.proxy, "webhook-proxy", os.Getenv("TRAINEED_WEBHOOK_PROXY"),
			"send webhook requests through this HTTP proxy (env TRAINEED_WEBHOOK_PROXY); HTTP_PROXY and HTTPS_PROXY are never used for them")
	}
}

// client returns the outbound client of the flags.
func (o *outboundFlags) client(maxIdlePerHost int) (*outbound.Client, error) {
	allow, err := outbound.ParsePrefixes(o.allow)
	if err != nil {
		return nil, usageError{fmt.Errorf("--webhook-allow: %w", err)}
	}
	deny, err := outbound.ParsePrefixes(o.deny)
	if err != nil {
		return nil, usageError{fmt.Errorf("--webhook-deny: %w", err)}
	}
	cfg := outbound.Config{Policy: outbound.Policy{Allow: allow, Deny: deny, RequireHTTPS: o.requireHTTPS}, MaxIdlePerHost: maxIdlePerHost}
	if o.proxy != "" {
		u, err := url.Parse(o.proxy)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, usageError{fmt.Errorf("--webhook-proxy: %q is not an http:// or https:// proxy URL", o.proxy)}
		}
		cfg.Proxy = u
	}
	return outbound.New(cfg), nil
}
