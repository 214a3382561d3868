package main

import (
	"context"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/outbound"
	"github.com/traineed/traineed/jobs"
	"github.com/traineed/traineed/store"
	"go.opentelemetry.io/otel/trace"
)

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
	tracer       trace.TracerProvider // nil: tracing off
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
	cfg := outbound.Config{Policy: outbound.Policy{Allow: allow, Deny: deny, RequireHTTPS: o.requireHTTPS}, MaxIdlePerHost: maxIdlePerHost,
		TracerProvider: o.tracer}
	if o.proxy != "" {
		u, err := url.Parse(o.proxy)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, usageError{fmt.Errorf("--webhook-proxy: %q is not an http:// or https:// proxy URL", o.proxy)}
		}
		cfg.Proxy = u
	}
	return outbound.New(cfg), nil
}
