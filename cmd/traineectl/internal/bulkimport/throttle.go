package bulkimport

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"time"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/client"
)

// MaxThrottledSends bounds how many times one row is sent again after the
// server kept refusing it for the key's rate limit (429, after the
// client's own Retry-After waits); then it fails like any refused row.
const MaxThrottledSends = 5

// Slots is the import's parallelism, lowered while the server answers 429:
// each row holds a slot while it is processed, and halving the slots (at
// least one) makes the other workers wait for their turn instead of
// failing rows on the rate limit.
type Slots struct {
	mu      sync.Mutex
	cond    *sync.Cond
	allowed int
	busy    int
}

func NewSlots(n int) *Slots {
	s := &Slots{allowed: n}
	s.cond = sync.NewCond(&s.mu)
	return s
}

func (s *Slots) Acquire() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for s.busy >= s.allowed {
		s.cond.Wait()
	}
	s.busy++
}

func (s *Slots) Release() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.busy--
	s.cond.Broadcast()
}

// Halve lowers the parallelism (never below one) and returns it.
func (s *Slots) Halve() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.allowed = max(1, s.allowed/2)
	return s.allowed
}

// Allowed is the parallelism now.
func (s *Slots) Allowed() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.allowed
}

// RateLimited reports whether err is the server's 429.
func RateLimited(err error) bool {
	var re *client.RejectedError
	return errors.As(err, &re) && re.Status == http.StatusTooManyRequests
}

// create sends the row's create; while the server answers 429 it lowers
// the import's parallelism, waits ThrottleWait and sends it again (see
// throttled). A 429 changed nothing on the server (and the create carries
// its idempotency key), so sending again is safe.
func (r *runner) create(ctx context.Context, row *Row, req api.CreateRequest) (*api.Trainee, error) {
	var t *api.Trainee
	err := r.throttled(ctx, func() (err error) {
		t, err = r.o.API.Create(ctx, row.RequestID, req)
		return err
	})
	return t, err
}

// throttled makes a call and, while the server answers 429, lowers the
// run's parallelism, waits ThrottleWait and makes it again, at most
// MaxThrottledSends times.
func (r *runner) throttled(ctx context.Context, call func() error) error {
	err := call()
	for n := 0; RateLimited(err) && n < MaxThrottledSends; n++ {
		allowed := r.slots.Halve()
		r.mu.Lock()
		r.sum.Throttled++
		r.sum.Parallel = allowed
		r.mu.Unlock()
		timer := time.NewTimer(r.o.ThrottleWait)
		select {
		case <-ctx.Done():
			timer.Stop()
			return err
		case <-timer.C:
		}
		err = call()
	}
	return err
}
