package outbound

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/traineed/traineed/api"
)

// Resolver looks names up; net.DefaultResolver is one. Tests inject their
// own (no real DNS).
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// Config configures a Client.
type Config struct {
	Policy
	// Proxy, when set, sends every request through this HTTP proxy (the
	// operator's --webhook-proxy). The environment's HTTP_PROXY and
	// HTTPS_PROXY are never used. Through a proxy the destination is
	// checked before the request (its literal address, or what the name
	// resolves to here); the proxy resolves it again, so its own egress
	// rules must refuse internal addresses too.
	Proxy *url.URL
	// Resolver looks names up (default net.DefaultResolver).
	Resolver Resolver
	// MaxIdlePerHost is how many idle keep-alive connections are kept per
	// endpoint host (default 2).
	MaxIdlePerHost int
	// TracerProvider, when set, makes each Send a client span (named by
	// its method, with the destination's host and the answer's status,
	// never the URL's path or query, which may carry a token); nil traces
	// nothing. No trace header is sent to the receiver.
	TracerProvider trace.TracerProvider
}

// Client sends the requests to companies' URLs. It never follows
// redirects (a 3xx is a failed attempt), never uses a proxy the operator
// did not name, and opens no connection the Policy refuses.
type Client struct {
	cfg      Config
	http     *http.Client
	resolver Resolver
	dialer   *net.Dialer
	tracer   trace.Tracer // nil: tracing off
}

// New returns a client with cfg's policy.
func New(cfg Config) *Client {
	if cfg.Self == nil {
		cfg.Self = (&interfaceAddrs{}).get
	}
	c := &Client{cfg: cfg, resolver: cfg.Resolver}
	if cfg.TracerProvider != nil {
		c.tracer = cfg.TracerProvider.Tracer("github.com/traineed/traineed/api/outbound")
	}
	if c.resolver == nil {
		c.resolver = net.DefaultResolver
	}
	if cfg.MaxIdlePerHost <= 0 {
		cfg.MaxIdlePerHost = 2
	}
	c.dialer = &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second, Control: c.control}
	tr := &http.Transport{
		Proxy:                 nil,
		DialContext:           c.dial,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          100,
		MaxIdleConnsPerHost:   cfg.MaxIdlePerHost,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ExpectContinueTimeout: time.Second,
	}
	if cfg.Proxy != nil {
		proxy := cfg.Proxy
		tr.Proxy = func(r *http.Request) (*url.URL, error) {
			// The proxy connects; the destination is checked here.
			if err := c.checkHost(r.Context(), r.URL.Hostname()); err != nil {
				return nil, err
			}
			return proxy, nil
		}
	}
	c.http = &http.Client{
		Transport:     tr,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	return c
}

// Policy returns the client's policy (registration checks with it).
func (c *Client) Policy() *Policy { return &c.cfg.Policy }

// CheckURL is Policy.CheckURL.
func (c *Client) CheckURL(raw string) error { return c.cfg.Policy.CheckURL(raw) }

// isProxy reports whether addr (host:port, as the transport dials it) is
// the operator's proxy, the one destination the policy does not judge.
func (c *Client) isProxy(addr string) bool {
	if c.cfg.Proxy == nil {
		return false
	}
	host, port := c.cfg.Proxy.Hostname(), c.cfg.Proxy.Port()
	if port == "" {
		port = "80"
		if c.cfg.Proxy.Scheme == "https" {
			port = "443"
		}
	}
	return addr == net.JoinHostPort(host, port)
}

// dial resolves the host itself (through the injectable Resolver), skips
// the addresses the policy refuses, and dials the others in turn; the
// dialer's Control hook checks each connection's address again.
func (c *Client) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	if c.isProxy(addr) {
		return (&net.Dialer{Timeout: c.dialer.Timeout, KeepAlive: c.dialer.KeepAlive}).DialContext(ctx, network, addr)
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	addrs, _, err := c.allowedAddrs(ctx, host)
	if err != nil {
		return nil, err
	}
	var last error
	for _, a := range addrs {
		conn, err := c.dialer.DialContext(ctx, network, net.JoinHostPort(a.String(), port))
		if err == nil {
			return conn, nil
		}
		last = err
	}
	return nil, last
}

// allowedAddrs returns the addresses of host the policy allows: a literal
// address is refused with its range's reason; a name whose every address
// is refused, or that does not resolve, is refused alike, as "no public
// address", so that a company cannot tell an internal name that exists
// from one that does not (nor learn the resolver's address from its
// error). all is how many addresses host has.
func (c *Client) allowedAddrs(ctx context.Context, host string) (allowed []netip.Addr, all int, err error) {
	h := strings.TrimSuffix(strings.ToLower(host), ".")
	if a, ok := literalAddr(h); ok {
		if err := c.cfg.Policy.Check(a); err != nil {
			return nil, 1, err
		}
		return []netip.Addr{a}, 1, nil
	}
	var addrs []netip.Addr
	if isLocalhost(h) {
		// RFC 6761: they never leave the host, whatever a resolver says.
		addrs = []netip.Addr{netip.MustParseAddr("127.0.0.1"), netip.IPv6Loopback()}
	} else if found, err := c.resolver.LookupNetIP(ctx, "ip", host); err == nil {
		addrs = found
	} else if ctx.Err() != nil {
		return nil, 0, ctx.Err()
	}
	for _, a := range addrs {
		if c.cfg.Policy.Check(a) == nil {
			allowed = append(allowed, a)
		}
	}
	if len(allowed) == 0 {
		return nil, len(addrs), &DeniedError{Reason: "no public address for " + h}
	}
	return allowed, len(addrs), nil
}

// checkHost refuses a host the policy refuses any address of: the check
// made before a request goes to a proxy, which resolves the name again
// itself, so every address must pass.
func (c *Client) checkHost(ctx context.Context, host string) error {
	allowed, all, err := c.allowedAddrs(ctx, host)
	if err == nil && len(allowed) != all {
		err = &DeniedError{Reason: "no public address for " + strings.ToLower(host)}
	}
	return err
}

// interfaceAddrs caches the machine's interface addresses for a while
// (they change rarely: a new lease, an added interface).
type interfaceAddrs struct {
	mu    sync.Mutex
	addrs []netip.Addr
	read  time.Time
}

// get returns the addresses, read again when older than 30 seconds.
func (i *interfaceAddrs) get() []netip.Addr {
	i.mu.Lock()
	defer i.mu.Unlock()
	if time.Since(i.read) < 30*time.Second {
		return i.addrs
	}
	i.read, i.addrs = time.Now(), nil
	as, err := net.InterfaceAddrs()
	if err != nil {
		return i.addrs
	}
	for _, a := range as {
		if p, err := netip.ParsePrefix(a.String()); err == nil {
			i.addrs = append(i.addrs, p.Addr().WithZone(""))
		}
	}
	return i.addrs
}

// control is the dialer's Control hook: the last check, on the address the
// socket is about to connect to.
func (c *Client) control(network, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return &DeniedError{Reason: "unparsable address " + address}
	}
	return c.cfg.Policy.Check(ap.Addr())
}

// Result is what one HTTP attempt of a delivery gave.
type Result = api.WebhookResult

// Send makes one signed attempt: it POSTs body to target with the headers
// of Standard Webhooks, signed with every secret at started, and reads at
// most api.MaxWebhookResponse bytes of the answer, all within timeout. A
// destination the policy refuses is a failed attempt whose error says so
// ("destination not allowed (loopback)"), with no status, body or latency:
// nothing of a refused address reaches the company.
func (c *Client) Send(ctx context.Context, timeout time.Duration, target string, secrets []string, id string, started time.Time, body []byte) (res Result) {
	if c.tracer != nil {
		var span trace.Span
		ctx, span = c.startSpan(ctx, target)
		defer func() { endSpan(span, res) }()
	}
	res.Started = started
	// The error is stored and shown to the company and the operator: no
	// control or bidi character of a receiver's (a certificate's name, a
	// status text) reaches a terminal.
	defer func() { res.Err = api.EscapeText(res.Err) }()
	// What registration refuses is refused here too, for rows stored
	// before the rule (or under a wider allow list): no connection.
	if err := c.cfg.Policy.CheckURL(target); err != nil {
		res.Err = err.Error()
		return res
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	ts := started.Unix()
	sig, err := api.SignWebhookAll(secrets, id, ts, body)
	if err != nil {
		res.Err = err.Error()
		return res
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, bytes.NewReader(body))
	if err != nil {
		res.Err = "invalid URL"
		return res
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "traineed-webhooks/1")
	req.Header.Set("webhook-id", id)
	req.Header.Set("webhook-timestamp", strconv.FormatInt(ts, 10))
	req.Header.Set("webhook-signature", sig)
	start := time.Now()
	resp, err := c.http.Do(req)
	if err != nil {
		var d *DeniedError
		if errors.As(err, &d) {
			res.Err = d.Error()
			return res
		}
		res.Latency = time.Since(start)
		res.Err = describeSendError(ctx, err, timeout)
		return res
	}
	defer resp.Body.Close()
	res.StatusCode = resp.StatusCode
	prefix, err := io.ReadAll(io.LimitReader(resp.Body, api.MaxWebhookResponse))
	res.Latency = time.Since(start)
	res.Body = strings.ToValidUTF8(strings.ReplaceAll(string(prefix), "\x00", ""), "\uFFFD")
	if err != nil && !res.OK() {
		res.Err = describeSendError(ctx, err, timeout)
	}
	if !res.OK() && res.Err == "" {
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

// startSpan starts Send's client span (tracing on): the destination's
// host, not its path or query.
func (c *Client) startSpan(ctx context.Context, target string) (context.Context, trace.Span) {
	attrs := []attribute.KeyValue{attribute.String("http.request.method", http.MethodPost)}
	if u, err := url.Parse(target); err == nil {
		attrs = append(attrs, attribute.String("server.address", u.Hostname()))
	}
	return c.tracer.Start(ctx, http.MethodPost, trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(attrs...))
}

// endSpan records an attempt's outcome on its span and ends it: a refused
// destination, a failure to connect or a non-2xx answer is an error.
func endSpan(span trace.Span, res Result) {
	if res.StatusCode != 0 {
		span.SetAttributes(attribute.Int("http.response.status_code", res.StatusCode))
	}
	if !res.OK() {
		span.SetStatus(codes.Error, res.Err)
	}
	span.End()
}
