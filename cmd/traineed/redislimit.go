package main

import (
	"context"
	"log/slog"
	"strconv"
	"sync"
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
type redisLimiter struct {
	rl     *redis_rate.Limiter
	prefix string
	local  *server.MemoryLimiter
	log    *slog.Logger

	mu        sync.Mutex
	limit     redis_rate.Limit
	lastLog   time.Time
	downUntil time.Time // after a failure, Redis is not asked again for redisPause
}

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

// SetLimit changes the limit of every key at once.
func (l *redisLimiter) SetLimit(rate, burst int) {
	l.mu.Lock()
	l.limit = redis_rate.Limit{Rate: max(rate, 1), Burst: max(burst, 1), Period: time.Minute}
	l.mu.Unlock()
	l.local.SetLimit(rate, burst)
}

func (l *redisLimiter) Allow(keyID int64, now time.Time) server.RateDecision {
	l.mu.Lock()
	limit, down := l.limit, now.Before(l.downUntil)
	l.mu.Unlock()
	if down {
		server.CountLimiterFailOpen()
		return l.local.Allow(keyID, now)
	}
	ctx, cancel := context.WithTimeout(context.Background(), redisWait)
	defer cancel()
	res, err := l.rl.Allow(ctx, l.prefix+strconv.FormatInt(keyID, 10), limit)
	if err != nil {
		server.CountLimiterFailOpen()
		l.mu.Lock()
		l.downUntil = now.Add(redisPause)
		if now.Sub(l.lastLog) >= time.Minute {
			l.lastLog = now
			l.log.Warn("rate limiter: Redis does not answer; limiting on this instance alone", "error", err)
		}
		l.mu.Unlock()
		return l.local.Allow(keyID, now)
	}
	return server.RateDecision{Allowed: res.Allowed > 0, Limit: limit.Rate, Remaining: res.Remaining,
		RetryAfter: res.RetryAfter, ResetAfter: res.ResetAfter}
}
