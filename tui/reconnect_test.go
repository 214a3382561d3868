package tui

import (
	"net"
	"net/http"
	"sync/atomic"
	"syscall"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/traineed/traineed/api/client"
)

// downable fails every request with a refused connection while down.
type downable struct {
	down atomic.Bool
	next http.RoundTripper
}

func (d *downable) RoundTrip(r *http.Request) (*http.Response, error) {
	if d.down.Load() {
		return nil, &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}
	}
	return d.next.RoundTrip(r)
}

// The connection error goes from the status line as soon as the server
// answers again; another error stays while its screen does.
func TestConnectionErrorClearsWhenTheServerAnswers(t *testing.T) {
	s := newServer(t)
	tr := &downable{next: s.rec}
	tr.down.Store(true)
	c := client.New(s.URL, s.Key, client.WithRetryDelays(), client.WithHTTPClient(&http.Client{Transport: tr}))
	d := newDriver(t, c, Options{})
	d.send(tea.WindowSizeMsg{Width: 100, Height: 24})
	d.settle()
	d.expect(t, "Cannot reach the server")
	tr.down.Store(false)
	d.press("ctrl+r")
	d.settle()
	d.expectNot(t, "Cannot reach the server")
	d.expect(t, "Trainees")
}
