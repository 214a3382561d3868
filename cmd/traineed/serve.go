package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"runtime/debug"
	"strconv"
	"time"

	"github.com/spf13/cobra"
	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/server"
	"github.com/traineed/traineed/cmd/traineed/demo"
	"github.com/traineed/traineed/jobs"
	"github.com/traineed/traineed/store"
	"go.opentelemetry.io/otel/trace"
)

// shutdownGrace is how long in-flight requests may run once the server
// stops accepting connections.
const shutdownGrace = 30 * time.Second

// defaultShutdownDelay is how long the server drains before it stops
// accepting connections: the load balancer's time to notice /readyz.
const defaultShutdownDelay = 5 * time.Second

// serveOptions are the flags of `traineed serve`.
type serveOptions struct {
	tracer          trace.TracerProvider // nil: tracing off (tracing.go)
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
	tp, stopTracing, err := startTracing(e.ctx, os.Getenv, log)
	if err != nil {
		return err
	}
	defer stopTracing() // after the store's and the server's last spans
	o.tracer, o.outbound.tracer = tp, tp
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
	s.SetTracerProvider(tp)
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
	defer tuneMemory(e.ctx, hasher)()
	opts := []server.Option{server.WithLogger(log), server.WithHasher(hasher),
		server.WithOutbound(cfg.Outbound), server.WithCaps(o.maxWebhooks, o.maxAutomations),
		server.WithMetrics(metrics.http, o.metricsAddr == ""), server.WithTracerProvider(o.tracer)}
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

// tuneMemory sets the server's GC target (following the hash helper's
// priority) and trims the heap when idle, until the returned stop.
func tuneMemory(ctx context.Context, hasher *server.Hasher) (stop func()) {
	mctx, stopMemory := context.WithCancel(ctx)
	if prev := setServerGC(os.Getenv("GOGC"), hasher.LowPriority()); prev >= 0 {
		go gcFollowsHelper(mctx, time.Second, hasher.LowPriority, prev)
	}
	go trimWhenIdle(mctx, trimTick, heapAllocated, debug.FreeOSMemory)
	return stopMemory
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
	cfg.TracerProvider = o.tracer
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
		ev := jobs.NewEvaluator(s, jobs.EvaluatorConfig{Interval: o.evalInterval, Batch: o.evalBatch, Logger: log, OnEvaluation: metrics.onEvaluation,
			TracerProvider: o.tracer})
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
