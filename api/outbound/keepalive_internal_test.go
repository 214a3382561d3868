package outbound

import (
	"context"
	"net"
	"net/http"
	"net/netip"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// Attempts to one endpoint reuse a kept-alive connection, and every new
// connection, the first and each after the receiver closed one, goes
// through the dialer's Control hook, which refuses what the policy
// refuses whatever the resolver said: keeping connections alive checks
// no fewer connections, it makes fewer.
func TestKeepAliveConnectionsAreChecked(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var accepted atomic.Int32
	var closeNext atomic.Bool
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		if closeNext.Swap(false) {
			w.Header().Set("Connection", "close")
		}
		w.WriteHeader(http.StatusOK)
	}), ConnState: func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			accepted.Add(1)
		}
	}}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })

	// The operator's allow list opens this one loopback address, as the
	// project's tests do; the default stays deny.
	c := New(Config{Policy: Policy{Allow: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}}})
	var checked atomic.Int32
	control := c.dialer.Control
	c.dialer.Control = func(network, address string, rc syscall.RawConn) error {
		checked.Add(1)
		return control(network, address, rc)
	}
	target := "http://" + ln.Addr().String() + "/hook"
	send := func() Result {
		return c.Send(context.Background(), 2*time.Second, target, []string{"whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"}, "evt_keep", time.Now(), []byte(`{}`))
	}
	for i := range 20 {
		if got := send(); !got.OK() {
			t.Fatalf("attempt %d: %+v", i, got)
		}
	}
	if a, k := accepted.Load(), checked.Load(); a != 1 || k != 1 {
		t.Fatalf("20 attempts made %d connections and %d checks, want 1 and 1", a, k)
	}
	closeNext.Store(true)
	for range 2 {
		if got := send(); !got.OK() {
			t.Fatalf("%+v", got)
		}
	}
	if a, k := accepted.Load(), checked.Load(); a != 2 || k != 2 {
		t.Fatalf("after the receiver closed one: %d connections and %d checks, want 2 and 2", a, k)
	}
	// The hook itself judges the address being connected to.
	if err := c.dialer.Control("tcp4", "127.0.0.2:80", nil); !IsDenied(err) {
		t.Fatalf("the hook let 127.0.0.2 through: %v", err)
	}
	if err := New(Config{}).control("tcp4", ln.Addr().String(), nil); !IsDenied(err) {
		t.Fatalf("the default policy's hook let loopback through: %v", err)
	}
}
