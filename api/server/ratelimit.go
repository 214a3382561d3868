package server

import (
	"math"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/traineed/traineed/api"
)

// Default rate limit per API key: 1,200 requests a minute with a burst of
// 100.
const (
	DefaultRateLimit = 1200 // requests a minute
	DefaultRateBurst = 100
)

// RateDecision is a limiter's answer to one request.
type RateDecision struct {
	Allowed    bool
	Limit      int           // requests a minute
	Burst      int           // requests that may be made at once when the bucket is full
	Remaining  int           // requests that could be made at once now
	RetryAfter time.Duration // when refused: until the next request is allowed
	ResetAfter time.Duration // until the whole burst is available again
}

// RateLimiter limits the requests of each API key.
type RateLimiter interface {
	Allow(keyID int64, now time.Time) RateDecision
}

// WithRateLimiter limits every authenticated request by its API key.
func WithRateLimiter(l RateLimiter) Option { return func(h *Handler) { h.limiter = l } }

// MemoryLimiter is a GCRA limiter (the generic cell rate algorithm: a
// token bucket kept as one theoretical arrival time per key) in this
// process's memory. It is safe for concurrent use; SetLimit changes the
// limit at run time.
type MemoryLimiter struct {
	mu     sync.Mutex
	rate   int // a minute
	burst  int
	tat    map[int64]time.Time
	sweepN int
}

// NewMemoryLimiter returns a limiter of rate requests a minute with burst.
func NewMemoryLimiter(rate, burst int) *MemoryLimiter {
	l := &MemoryLimiter{tat: map[int64]time.Time{}}
	l.SetLimit(rate, burst)
	return l
}

// SetLimit changes the limit; values below 1 are taken as 1.
func (l *MemoryLimiter) SetLimit(rate, burst int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.rate, l.burst = max(rate, 1), max(burst, 1)
}

// Limit returns the current limit.
func (l *MemoryLimiter) Limit() (rate, burst int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.rate, l.burst
}

// Allow implements RateLimiter with GCRA, as redis_rate computes it.
func (l *MemoryLimiter) Allow(keyID int64, now time.Time) RateDecision {
	l.mu.Lock()
	defer l.mu.Unlock()
	emission := time.Minute / time.Duration(l.rate)
	tolerance := emission * time.Duration(l.burst)
	tat := l.tat[keyID]
	if tat.Before(now) {
		tat = now
	}
	newTat := tat.Add(emission)
	allowAt := newTat.Add(-tolerance)
	diff := now.Sub(allowAt)
	d := RateDecision{Limit: l.rate, Burst: l.burst}
	if diff < 0 {
		d.RetryAfter = -diff
		d.ResetAfter = tat.Sub(now)
		return d
	}
	d.Allowed = true
	d.Remaining = int(diff / emission)
	d.ResetAfter = newTat.Sub(now)
	l.tat[keyID] = newTat
	if l.sweepN++; l.sweepN >= 10000 { // forget keys whose bucket is full again
		l.sweepN = 0
		for k, t := range l.tat {
			if !t.After(now) {
				delete(l.tat, k)
			}
		}
	}
	return d
}

// RateLimitPolicy is the name of the one quota policy of the RateLimit
// and RateLimit-Policy fields.
const RateLimitPolicy = "per-key"

// rateLimit applies the limiter to a request of keyID: it sets the rate
// limit fields and reports a refusal as errRateLimited.
//
// The fields follow draft-ietf-httpapi-ratelimit-headers (-08 and later):
// the policy is the key's token bucket, q requests (the burst) refilled
// over w seconds (the burst at the per-minute rate), and RateLimit says
// how many of them r remain now and in how many seconds t the bucket is
// full again:
//
//	RateLimit-Policy: "per-key";q=100;w=5
//	RateLimit: "per-key";r=99;t=1
//
// A 429 has r=0 and Retry-After: the seconds until one request passes
// (at most t). The earlier draft's RateLimit-Limit (requests a minute),
// RateLimit-Remaining and RateLimit-Reset are kept for the clients that
// read them.
func (h *Handler) rateLimit(w http.ResponseWriter, keyID int64) error {
	if h.limiter == nil {
		return nil
	}
	d := h.limiter.Allow(keyID, h.limitNow())
	hd := w.Header()
	burst := max(d.Burst, 1)
	window := max(ceilSeconds(time.Duration(burst)*time.Minute/time.Duration(max(d.Limit, 1))), 1)
	hd.Set("RateLimit-Policy", `"`+RateLimitPolicy+`";q=`+strconv.Itoa(burst)+";w="+strconv.Itoa(window))
	remaining := min(max(d.Remaining, 0), burst)
	if !d.Allowed {
		remaining = 0
	}
	hd.Set("RateLimit", `"`+RateLimitPolicy+`";r=`+strconv.Itoa(remaining)+";t="+strconv.Itoa(min(ceilSeconds(d.ResetAfter), window)))
	hd.Set("RateLimit-Limit", strconv.Itoa(d.Limit))
	hd.Set("RateLimit-Remaining", strconv.Itoa(max(d.Remaining, 0)))
	hd.Set("RateLimit-Reset", strconv.Itoa(ceilSeconds(d.ResetAfter)))
	if !d.Allowed {
		hd.Set("Retry-After", strconv.Itoa(max(ceilSeconds(d.RetryAfter), 1)))
		return api.ErrRateLimited
	}
	return nil
}

func ceilSeconds(d time.Duration) int { return int(math.Ceil(d.Seconds())) }

var limiterFailOpen atomic.Int64

// CountLimiterFailOpen records one request let through because a shared
// limiter (Redis) did not answer.
func CountLimiterFailOpen() { limiterFailOpen.Add(1) }

// LimiterFailOpenTotal is how many requests were let through because a
// shared limiter did not answer (for the metrics).
func LimiterFailOpenTotal() int64 { return limiterFailOpen.Load() }
