package storetest

import (
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/traineed/traineed/api"
)

// Received is one webhook request a Receiver got.
type Received struct {
	ID        string // webhook-id
	Timestamp string // webhook-timestamp
	Header    http.Header
	Body      []byte
	At        time.Time
	Event     api.WebhookEvent // Body decoded (zero when it is not an event)
}

// Verify checks the request's signature with secret, as a receiver would.
func (r *Received) Verify(secret string) error {
	return api.VerifyWebhook(secret, r.Header, r.Body, time.Now())
}

// Responder answers one webhook request; nth counts the requests with this
// webhook-id so far, this one included. It may block (until the request's
// context ends) to play a receiver that times out.
type Responder func(w http.ResponseWriter, r *http.Request, got *Received, nth int)

// OK answers 200.
func OK(w http.ResponseWriter, _ *http.Request, _ *Received, _ int) { w.WriteHeader(http.StatusOK) }

// Receiver is a webhook receiver on 127.0.0.1 that records every request,
// closed when the test ends.
type Receiver struct {
	URL     string
	Server  *httptest.Server
	mu      sync.Mutex
	respond Responder
	got     []*Received
	perID   map[string]int
	conns   atomic.Int64
}

// NewReceiver starts a receiver answering with respond (OK when nil).
func NewReceiver(t testing.TB, respond Responder) *Receiver {
	t.Helper()
	if respond == nil {
		respond = OK
	}
	rc := &Receiver{respond: respond, perID: map[string]int{}}
	rc.Server = httptest.NewUnstartedServer(http.HandlerFunc(rc.serve))
	rc.Server.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			rc.conns.Add(1)
		}
	}
	rc.Server.Start()
	rc.URL = rc.Server.URL + "/hook"
	t.Cleanup(rc.Server.Close)
	return rc
}

// SetResponder replaces how the receiver answers.
func (rc *Receiver) SetResponder(respond Responder) {
	rc.mu.Lock()
	rc.respond = respond
	rc.mu.Unlock()
}

func (rc *Receiver) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	got := &Received{
		ID: r.Header.Get("webhook-id"), Timestamp: r.Header.Get("webhook-timestamp"),
		Header: r.Header.Clone(), Body: body, At: time.Now(),
	}
	_ = json.Unmarshal(body, &got.Event)
	rc.mu.Lock()
	rc.got = append(rc.got, got)
	rc.perID[got.ID]++
	nth, respond := rc.perID[got.ID], rc.respond
	rc.mu.Unlock()
	respond(w, r, got, nth)
}

// Conns is how many connections the receiver accepted.
func (rc *Receiver) Conns() int64 { return rc.conns.Load() }

// Received returns every request so far, in arrival order.
func (rc *Receiver) Received() []*Received {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]*Received(nil), rc.got...)
}

// Count is how many requests arrived.
func (rc *Receiver) Count() int {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return len(rc.got)
}

// Wait waits until at least n requests arrived and returns them all; it
// fails the test after timeout.
func (rc *Receiver) Wait(t testing.TB, n int, timeout time.Duration) []*Received {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		if got := rc.Received(); len(got) >= n {
			return got
		}
		if time.Now().After(deadline) {
			t.Fatalf("receiver got %d requests in %s, want %d", rc.Count(), timeout, n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
