package main

import (
	"context"
	"log/slog"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-redis/redis_rate/v10"
	"github.com/redis/go-redis/v9"

	"github.com/traineed/traineed/api/server"
)

// redisLimiter is the per-key limit shared by every instance through Redis
// (redis_rate's GCRA). When Redis does not answer within redisWait the
// request is decided by this instance's own in-memory limiter instead (the
// API never stops with Redis), counted by server.CountLimiterFailOpen and
// logged at most once a minute.
//
// Asking Redis costs a round trip, about as much as serving a GET by id, so
// an instance leases tokens: it takes up to a quarter of what Redis says the
// key has left (at most maxLease, and one when it knows nothing yet) in one
// call and spends them locally for at most leaseTTL. Leased tokens are
// spent in Redis, so the instances together never admit more than the
// limit; near the limit the lease shrinks to one token, which is exact. A
// refusal is remembered until its Retry-After, when nothing could pass.
type redisLimiter struct {
	rl     *redis_rate.Limiter
	prefix string
	local  *server.MemoryLimiter
	log    *slog.Logger

	mu        sync.Mutex
	limit     redis_rate.Limit
	leases    map[int64]*lease
	sweepN    int
	lastLog   time.Time
	downUntil time.Time // after a failure, Redis is not asked again for redisPause

	asks atomic.Int64 // calls to Redis (for tests)
}

// lease is what an instance knows of one key's bucket.
type lease struct {
	tokens    int           // leased from Redis, not yet spent
	expires   time.Time     // after it, unspent tokens are dropped
	remaining int           // what Redis had left after the last lease (-1: never asked)
	resetAt   time.Time     // when the whole burst is back, as of the last answer
	denyUntil time.Time     // the last refusal's Retry-After
	refill    chan struct{} // closed when a Redis call in flight ends
}

const (
	maxLease = 1024
	leaseTTL = time.Second
)

// redisPause is how long the limiter stays local after Redis failed, so a
// dead Redis costs one wait a second rather than one per request.
const redisPause = time.Second

// quietRedis drops go-redis's own log lines (one per failed dial): the
// limiter logs the failure itself, once a minute.
type quietRedis struct{}

func (quietRedis) Printf(context.Context, string, ...any) {}

const redisWait = 250 * time.Millisecond

func newRedisLimiter(url, prefix string, rate, burst int, log *slog.Logger) (*redisLimiter, *redis.Client, error) {
	opt, err := redis.ParseURL(url)
	if err != nil {
		return nil, nil, err
	}
	opt.MaxRetries, opt.DialerRetries = 0, 1
	redis.SetLogger(quietRedis{})
	opt.DialTimeout, opt.ReadTimeout, opt.WriteTimeout = redisWait, redisWait, redisWait
	rdb := redis.NewClient(opt)
	l := &redisLimiter{rl: redis_rate.NewLimiter(rdb), prefix: prefix, local: server.NewMemoryLimiter(rate, burst), log: log}
	l.SetLimit(rate, burst)
	return l, rdb, nil
}

// SetLimit changes the limit of every key at once; leases are dropped.
func (l *redisLimiter) SetLimit(rate, burst int) {
	l.mu.Lock()
	l.limit = redis_rate.Limit{Rate: max(rate, 1), Burst: max(burst, 1), Period: time.Minute}
	l.leases = map[int64]*lease{}
	l.mu.Unlock()
	l.local.SetLimit(rate, burst)
}

func (l *redisLimiter) Allow(keyID int64, now time.Time) server.RateDecision {
	l.mu.Lock()
	for {
		if now.Before(l.downUntil) {
			l.mu.Unlock()
			server.CountLimiterFailOpen()
			return l.local.Allow(keyID, now)
		}
		limit := l.limit
		st := l.leases[keyID]
		if st == nil {
			st = &lease{remaining: -1}
			l.leases[keyID] = st
			l.sweep(now)
		}
		if now.Before(st.denyUntil) {
			l.mu.Unlock()
			return server.RateDecision{Limit: limit.Rate, Burst: limit.Burst, RetryAfter: st.denyUntil.Sub(now), ResetAfter: max(st.resetAt.Sub(now), 0)}
		}
		if st.tokens > 0 && now.Before(st.expires) {
			st.tokens--
			d := server.RateDecision{Allowed: true, Limit: limit.Rate, Burst: limit.Burst, Remaining: st.remaining + st.tokens, ResetAfter: max(st.resetAt.Sub(now), 0)}
			l.mu.Unlock()
			return d
		}
		if st.refill != nil { // another request of this key is asking Redis: wait for its lease
			ch := st.refill
			l.mu.Unlock()
			<-ch
			l.mu.Lock()
			continue
		}
		n := 1
		if st.remaining > 0 {
			n = min(max(st.remaining/4, 1), maxLease)
		}
		st.tokens, st.refill = 0, make(chan struct{})
		l.mu.Unlock()
		res, err := l.ask(keyID, limit, n)
		l.mu.Lock()
		close(st.refill)
		st.refill = nil
		if err != nil {
			l.downUntil = now.Add(redisPause)
			if now.Sub(l.lastLog) >= time.Minute {
				l.lastLog = now
				l.log.Warn("rate limiter: Redis does not answer; limiting on this instance alone", "error", err)
			}
			l.mu.Unlock()
			server.CountLimiterFailOpen()
			return l.local.Allow(keyID, now)
		}
		st.remaining, st.resetAt = res.Remaining, now.Add(res.ResetAfter)
		if res.Allowed == 0 {
			st.denyUntil = now.Add(res.RetryAfter)
			l.mu.Unlock()
			return server.RateDecision{Limit: limit.Rate, Burst: limit.Burst, RetryAfter: res.RetryAfter, ResetAfter: res.ResetAfter}
		}
		st.tokens, st.expires = res.Allowed-1, now.Add(leaseTTL)
		d := server.RateDecision{Allowed: true, Limit: limit.Rate, Burst: limit.Burst, Remaining: st.remaining + st.tokens, ResetAfter: res.ResetAfter}
		l.mu.Unlock()
		return d
	}
}

// ask takes up to n tokens of keyID's bucket in Redis.
func (l *redisLimiter) ask(keyID int64, limit redis_rate.Limit, n int) (*redis_rate.Result, error) {
	l.asks.Add(1)
	ctx, cancel := context.WithTimeout(context.Background(), redisWait)
	defer cancel()
	return l.rl.AllowAtMost(ctx, l.prefix+strconv.FormatInt(keyID, 10), limit, n)
}

// sweep forgets, now and then, the keys whose lease and refusal are over.
// l.mu is held.
func (l *redisLimiter) sweep(now time.Time) {
	if l.sweepN++; l.sweepN < 10000 {
		return
	}
	l.sweepN = 0
	for k, st := range l.leases {
		if st.refill == nil && !now.Before(st.expires) && !now.Before(st.denyUntil) {
			delete(l.leases, k)
		}
	}
}
