package outbound_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/traineed/traineed/api/outbound"
)

// Every spelling of an internal address that a resolver or Go's parser
// takes for one is refused at registration, with the reason.
func TestCheckURLRefuses(t *testing.T) {
	var p outbound.Policy
	for _, c := range []struct{ url, reason string }{
		{"http://127.0.0.1:5432/", "loopback"},
		{"http://127.1/", "loopback"},
		{"http://2130706433/", "loopback"},
		{"http://0x7f.1/", "loopback"},
		{"http://0x7f000001/", "loopback"},
		{"http://0177.0.0.1/", "loopback"},
		{"http://127.000.000.001/", "loopback"},
		{"http://[::1]:8080/", "loopback"},
		{"http://[::ffff:127.0.0.1]/", "loopback"},
		{"http://[::ffff:7f00:1]/", "loopback"},
		{"http://[::127.0.0.1]/", "loopback"},
		{"http://[64:ff9b::7f00:1]/", "loopback"},
		{"http://[2002:7f00:1::]/", "loopback"},
		{"http://0.0.0.0:8080/", "unspecified"},
		{"http://0/", "unspecified"},
		{"http://[::]/", "unspecified"},
		{"http://10.1.2.3/", "private"},
		{"http://172.16.0.1/", "private"},
		{"http://172.31.255.255/", "private"},
		{"http://192.168.1.1/", "private"},
		{"http://[fd00::1]/", "private"},
		{"http://169.254.169.254/latest/meta-data/", "link-local"},
		{"http://[fe80::1%25eth0]/", "link-local"},
		{"http://100.64.0.1/", "carrier-grade NAT"},
		{"http://192.0.0.8/", "IETF protocol assignments"},
		{"http://198.18.0.1/", "benchmarking"},
		{"http://224.0.0.1/", "multicast"},
		{"http://[ff02::1]/", "multicast"},
		{"http://255.255.255.255/", "broadcast"},
		{"http://localhost:6379", "loopback name"},
		{"http://LOCALHOST./", "loopback name"},
		{"http://api.localhost/", "loopback name"},
		{"http://user:pass@example.com/", "userinfo"},
		{"http://user@127.0.0.1:9/", "userinfo"},
		{"http://example.com:0/", "port"},
		{"http://example.com:65536/", "port"},
		{"http://example.com:99999/", "port"},
		{"ftp://example.com/", "not an http"},
	} {
		err := p.CheckURL(c.url)
		if !outbound.IsDenied(err) || !strings.Contains(err.Error(), c.reason) {
			t.Errorf("CheckURL(%q) = %v; want refused for %s", c.url, err, c.reason)
		}
	}
}

func TestCheckURLAccepts(t *testing.T) {
	var p outbound.Policy
	for _, u := range []string{
		"https://crm.example/hooks/traineed",
		"http://93.184.216.34/hook",
		"https://[2606:4700::1111]/x",
		"http://example.com:8080/",
		"http://metadata.google.internal/", // a name: judged on what it resolves to, when connecting
		"http://172.32.0.1/",               // just outside 172.16/12
		"http://100.128.0.1/",              // just outside 100.64/10
		"http://1.2.3/",                    // inet_aton spelling of a public address
	} {
		if err := p.CheckURL(u); err != nil {
			t.Errorf("CheckURL(%q) = %v; want accepted", u, err)
		}
	}
	https := outbound.Policy{RequireHTTPS: true}
	if err := https.CheckURL("http://crm.example/"); !outbound.IsDenied(err) || !strings.Contains(err.Error(), "https") {
		t.Errorf("plain http under RequireHTTPS: %v", err)
	}
	if err := https.CheckURL("https://crm.example/"); err != nil {
		t.Errorf("https under RequireHTTPS: %v", err)
	}
}

// The operator's --webhook-allow opens exactly its ranges: a loopback
// allow lets loopback addresses and the name localhost through, and
// nothing else.
func TestAllow(t *testing.T) {
	allow, err := outbound.ParsePrefixes("127.0.0.0/8, 10.20.0.0/16,192.168.7.9")
	if err != nil {
		t.Fatal(err)
	}
	p := outbound.Policy{Allow: allow}
	for u, ok := range map[string]bool{
		"http://127.0.0.1:8080/":     true,
		"http://[::ffff:127.0.0.1]/": true,
		"http://localhost:8080/":     true,
		"http://10.20.3.4/":          true,
		"http://10.21.0.1/":          false,
		"http://192.168.7.9/":        true,
		"http://192.168.7.10/":       false,
		"http://[::1]/":              false, // 127.0.0.0/8 is IPv4 only
		"http://169.254.169.254/":    false,
		"http://user:pw@127.0.0.1/":  false, // userinfo is never allowed
	} {
		if err := p.CheckURL(u); (err == nil) != ok {
			t.Errorf("CheckURL(%q) with the allow list = %v; want allowed %v", u, err, ok)
		}
	}
	for _, bad := range []string{"10.0.0.0/33", "nonsense", "10.0.0.0/8,x"} {
		if _, err := outbound.ParsePrefixes(bad); err == nil {
			t.Errorf("ParseAllow(%q) accepted", bad)
		}
	}
}

// fakeResolver answers from a table that a test may change between
// lookups (DNS rebinding), and counts the lookups.
type fakeResolver struct {
	mu      sync.Mutex
	answers map[string][]netip.Addr
	lookups atomic.Int32
}

func (r *fakeResolver) set(host string, addrs ...string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.answers == nil {
		r.answers = map[string][]netip.Addr{}
	}
	var as []netip.Addr
	for _, a := range addrs {
		as = append(as, netip.MustParseAddr(a))
	}
	r.answers[host] = as
}

func (r *fakeResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	r.lookups.Add(1)
	r.mu.Lock()
	defer r.mu.Unlock()
	if as, ok := r.answers[host]; ok {
		return as, nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
}

// countingListener is a TCP listener on loopback that counts the
// connections it accepted (and answers them with a small HTTP 200).
type countingListener struct {
	URL      string
	Port     string
	accepted atomic.Int32
}

func newCountingListener(t *testing.T, ip string) *countingListener {
	t.Helper()
	ln, err := net.Listen("tcp", net.JoinHostPort(ip, "0"))
	if err != nil {
		t.Fatal(err)
	}
	cl := &countingListener{}
	_, cl.Port, _ = net.SplitHostPort(ln.Addr().String())
	cl.URL = "http://" + ln.Addr().String()
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte("INTERNAL-ONLY: db_password=hunter2"))
	}), ConnState: func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			cl.accepted.Add(1)
		}
	}}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return cl
}

var secrets = []string{"whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"}

func send(c *outbound.Client, target string) outbound.Result {
	return c.Send(context.Background(), 2*time.Second, target, secrets, "evt_test", time.Now(), []byte(`{}`))
}

// A name is judged on what it resolves to when the connection is made: one
// that resolved to a public address before and resolves to loopback now
// (DNS rebinding) is refused, and no connection reaches the listener.
func TestSendRefusesRebinding(t *testing.T) {
	ln := newCountingListener(t, "127.0.0.1")
	res := &fakeResolver{}
	c := outbound.New(outbound.Config{Resolver: res})
	target := "http://rebind.test:" + ln.Port + "/hook"
	res.set("rebind.test", "93.184.216.34")
	if err := c.CheckURL(target); err != nil {
		t.Fatalf("registration refused a public name: %v", err)
	}
	res.set("rebind.test", "127.0.0.1")
	got := send(c, target)
	if got.OK() || got.StatusCode != 0 || got.Body != "" || got.Latency != 0 || got.Err != "destination not allowed (no public address for rebind.test)" {
		t.Fatalf("rebound name: %+v", got)
	}
	// A name with several addresses skips the refused ones; with none left
	// it is refused.
	res.set("mixed.test", "10.0.0.1", "::1", "169.254.169.254")
	if got := send(c, "http://mixed.test:"+ln.Port+"/"); got.Err != "destination not allowed (no public address for mixed.test)" {
		t.Fatalf("mixed internal name: %+v", got)
	}
	if n := ln.accepted.Load(); n != 0 {
		t.Fatalf("the loopback listener accepted %d connections", n)
	}
	if res.lookups.Load() < 2 {
		t.Fatalf("the resolver was asked %d times", res.lookups.Load())
	}
	// Allowed, the same name connects: the refusal was the policy's.
	allowed := outbound.New(outbound.Config{Resolver: res, Policy: outbound.Policy{Allow: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}}})
	if got := send(allowed, target); !got.OK() {
		t.Fatalf("allowed loopback: %+v", got)
	}
	if n := ln.accepted.Load(); n != 1 {
		t.Fatalf("the allowed request made %d connections", n)
	}
}

// A literal address in any spelling is refused before a socket is made,
// and a redirect to loopback is never followed.
func TestSendRefusesLiterals(t *testing.T) {
	ln := newCountingListener(t, "127.0.0.1")
	c := outbound.New(outbound.Config{})
	for _, host := range []string{"127.0.0.1", "127.1", "2130706433", "0x7f.1", "[::ffff:7f00:1]", "[::ffff:127.0.0.1]"} {
		got := send(c, "http://"+host+":"+ln.Port+"/")
		if !strings.HasPrefix(got.Err, "destination not allowed") || got.StatusCode != 0 {
			t.Errorf("%s: %+v", host, got)
		}
	}
	if got := send(c, "http://user:pw@example.com/"); !strings.HasPrefix(got.Err, "destination not allowed (userinfo") {
		t.Errorf("userinfo: %+v", got)
	}
	// The redirector listens on 127.0.0.2, which the policy opens; it
	// sends the client to the listener on 127.0.0.1, which it does not.
	redirector := httptest.NewUnstartedServer(http.RedirectHandler(ln.URL+"/", http.StatusFound))
	rl, err := net.Listen("tcp", "127.0.0.2:0")
	if err != nil {
		t.Skipf("cannot listen on 127.0.0.2: %v", err)
	}
	redirector.Listener = rl
	redirector.Start()
	defer redirector.Close()
	res := &fakeResolver{}
	res.set("public.test", "127.0.0.2")
	rc := outbound.New(outbound.Config{Resolver: res, Policy: outbound.Policy{Allow: []netip.Prefix{netip.MustParsePrefix("127.0.0.2/32")}}})
	_, port, _ := net.SplitHostPort(rl.Addr().String())
	if got := send(rc, "http://public.test:"+port+"/"); got.StatusCode != http.StatusFound || got.OK() {
		t.Errorf("redirect: %+v", got)
	}
	if n := ln.accepted.Load(); n != 0 {
		t.Fatalf("the loopback listener accepted %d connections", n)
	}
}

// HTTP_PROXY from the environment is never used; a proxy the operator
// named is, and the destination is still checked before the request goes
// to it.
func TestProxy(t *testing.T) {
	var proxied atomic.Int32
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		proxied.Add(1)
		w.WriteHeader(http.StatusNoContent)
	}))
	defer proxy.Close()
	t.Setenv("HTTP_PROXY", proxy.URL)
	t.Setenv("http_proxy", proxy.URL)
	res := &fakeResolver{}
	res.set("crm.test", "93.184.216.34")
	res.set("evil.test", "127.0.0.1")
	// Without --webhook-proxy the environment's proxy is ignored: the
	// request goes (and fails) to 203.0.113.7 directly.
	c := outbound.New(outbound.Config{Resolver: res})
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	_ = c.Send(ctx, 300*time.Millisecond, "http://crm.test/", secrets, "evt_x", time.Now(), []byte(`{}`))
	if n := proxied.Load(); n != 0 {
		t.Fatalf("the environment's proxy got %d requests", n)
	}
	pu, _ := url.Parse(proxy.URL)
	pc := outbound.New(outbound.Config{Resolver: res, Proxy: pu})
	if got := send(pc, "http://crm.test/hook"); got.StatusCode != http.StatusNoContent {
		t.Fatalf("through the proxy: %+v", got)
	}
	if got := send(pc, "http://evil.test/"); got.Err != "destination not allowed (no public address for evil.test)" {
		t.Fatalf("an internal destination through the proxy: %+v", got)
	}
	if got := send(pc, "http://10.0.0.5/"); got.Err != "destination not allowed (private address 10.0.0.5)" {
		t.Fatalf("an internal literal through the proxy: %+v", got)
	}
	if n := proxied.Load(); n != 1 {
		t.Fatalf("the proxy got %d requests, want 1", n)
	}
}

func TestDeniedErrorIs(t *testing.T) {
	var p outbound.Policy
	err := p.Check(netip.MustParseAddr("::ffff:10.0.0.1"))
	var d *outbound.DeniedError
	if !errors.As(err, &d) || d.Reason != "private" {
		t.Fatalf("Check(::ffff:10.0.0.1) = %v", err)
	}
	if err := p.Check(netip.MustParseAddr("8.8.8.8")); err != nil {
		t.Fatalf("Check(8.8.8.8) = %v", err)
	}
}

// The server's own addresses are refused even when public (its database
// or metrics may listen on every interface); the operator's deny list
// wins over the allow list; a non-ASCII host is refused at registration;
// a name that does not resolve reads exactly like one that resolves to an
// internal address, and no error names the resolver.
func TestSelfDenyAndNames(t *testing.T) {
	self := netip.MustParseAddr("93.184.216.34")
	res := &fakeResolver{}
	res.set("self.test", "93.184.216.34")
	res.set("internal.test", "10.1.2.3")
	p := outbound.Policy{Self: func() []netip.Addr { return []netip.Addr{self} },
		Allow: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}, Deny: []netip.Prefix{netip.MustParsePrefix("10.9.0.0/16")}}
	for u, want := range map[string]string{
		"http://93.184.216.34/":          "this server's own address",
		"http://[::ffff:93.184.216.34]/": "this server's own address",
		"http://10.9.1.1/":               "closed by the operator",
		"http://１２７.０.０.１/":              "non-ASCII host",
		"http://ｌｏｃａｌｈｏｓｔ/":              "non-ASCII host",
		"http://127。0。0。1/":              "non-ASCII host",
	} {
		if err := p.CheckURL(u); !outbound.IsDenied(err) || !strings.Contains(err.Error(), want) {
			t.Errorf("CheckURL(%q) = %v, want %q", u, err, want)
		}
	}
	if err := p.CheckURL("http://10.1.2.3/"); err != nil {
		t.Errorf("an allowed range: %v", err)
	}
	c := outbound.New(outbound.Config{Policy: outbound.Policy{Self: p.Self}, Resolver: dnsFails{res}})
	unknown, internal := send(c, "http://unknown.test/").Err, send(c, "http://internal.test/").Err
	if unknown != "destination not allowed (no public address for unknown.test)" || internal != "destination not allowed (no public address for internal.test)" {
		t.Fatalf("unknown %q, internal %q", unknown, internal)
	}
	if got := send(c, "http://self.test/").Err; got != "destination not allowed (no public address for self.test)" {
		t.Fatalf("a name of the server's own address: %q", got)
	}
	// The machine's own interfaces are the default Self: loopback among
	// them, which the operator's allow list still opens.
	if err := outbound.New(outbound.Config{}).CheckURL("http://127.0.0.1/"); err == nil {
		t.Fatal("loopback allowed by default")
	}
}

// dnsFails answers from the table, and like a real resolver (naming
// itself) for anything else.
type dnsFails struct{ *fakeResolver }

func (d dnsFails) LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error) {
	as, err := d.fakeResolver.LookupNetIP(ctx, network, host)
	if err != nil {
		return nil, &net.DNSError{Err: "no such host", Name: host, Server: "10.255.255.53:53", IsNotFound: true}
	}
	return as, nil
}

// The IPv4-translated form (::ffff:0:a.b.c.d, RFC 2765) of loopback is
// refused like every other form that carries an IPv4 address: at
// registration, when a request is sent to it (as a literal, or as what a
// name resolves to), and by the dialer's hook on the socket's address. A
// listener on 127.0.0.1 counts no connection; the operator's loopback
// allow list is the only way in, and it opens the IPv4 address itself.
func TestTranslatedLoopbackIsRefused(t *testing.T) {
	ln := newCountingListener(t, "127.0.0.1")
	res := &fakeResolver{}
	res.set("translated.test", "::ffff:0:7f00:1")
	c := outbound.New(outbound.Config{Resolver: res})
	literal := "http://[::ffff:0:7f00:1]:" + ln.Port + "/hook"
	if err := c.CheckURL(literal); !outbound.IsDenied(err) || err.Error() != "destination not allowed (loopback address ::ffff:0:7f00:1)" {
		t.Errorf("registration: %v", err)
	}
	if got := send(c, literal); got.Err != "destination not allowed (loopback address ::ffff:0:7f00:1)" || got.StatusCode != 0 || got.Latency != 0 {
		t.Errorf("sent to the literal: %+v", got)
	}
	if got := send(c, "http://translated.test:"+ln.Port+"/hook"); got.Err != "destination not allowed (no public address for translated.test)" {
		t.Errorf("sent to a name of it: %+v", got)
	}
	if err := c.DialCheck("tcp6", "[::ffff:0:7f00:1]:"+ln.Port); !outbound.IsDenied(err) {
		t.Errorf("the dialer's hook let [::ffff:0:7f00:1]:%s through: %v", ln.Port, err)
	}
	if n := ln.accepted.Load(); n != 0 {
		t.Fatalf("the loopback listener accepted %d connections", n)
	}
	// The operator's deny list closes every form of its addresses too.
	deny := outbound.Policy{Deny: []netip.Prefix{netip.MustParsePrefix("93.184.216.34/32")}}
	for _, a := range []string{"93.184.216.34", "::ffff:93.184.216.34", "::ffff:0:5db8:d822", "64:ff9b::5db8:d822", "2002:5db8:d822::1"} {
		if err := deny.Check(netip.MustParseAddr(a)); err == nil || !strings.Contains(err.Error(), "closed by the operator") {
			t.Errorf("denied 93.184.216.34, %s: %v", a, err)
		}
	}
	// Opened, the IPv4 address connects.
	allowed := outbound.New(outbound.Config{Policy: outbound.Policy{Allow: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}}})
	if got := send(allowed, ln.URL+"/hook"); !got.OK() {
		t.Fatalf("allowed loopback: %+v", got)
	}
}
