package client_test

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/traineed/traineed/api/client"
)

// A 429 is waited for (its Retry-After, capped at 60 s) and sent again, at
// most twice, besides the retries of 5xx; a third 429 is the error.
func TestRateLimitedIsWaitedFor(t *testing.T) {
	s := newStub(t, func(n int, w http.ResponseWriter, r *http.Request) {
		switch n {
		case 1:
			w.Header().Set("Retry-After", "3")
			w.WriteHeader(429)
		case 2:
			w.Header().Set("Retry-After", "600")
			w.WriteHeader(429)
		default:
			w.Write(readTestdata(t, "envelope_b.json"))
		}
	})
	sl := &sleeper{}
	if _, err := newTestClient(s.URL, sl).Trainee(context.Background(), 41); err != nil {
		t.Fatalf("after two 429: %v", err)
	}
	if s.attempts() != 3 || len(sl.delays) != 2 || sl.delays[0] != 3*time.Second || sl.delays[1] != time.Minute {
		t.Fatalf("%d attempts, waits %v", s.attempts(), sl.delays)
	}

	always := newStub(t, func(n int, w http.ResponseWriter, r *http.Request) { w.WriteHeader(429) })
	sl = &sleeper{}
	_, err := newTestClient(always.URL, sl).Trainee(context.Background(), 41)
	var re *client.RejectedError
	if !errors.As(err, &re) || re.Status != 429 || always.attempts() != 3 || len(sl.delays) != 2 || sl.delays[0] != time.Second {
		t.Fatalf("err %v after %d attempts, waits %v", err, always.attempts(), sl.delays)
	}
}
