package server

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"fmt"
	"runtime"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"
	"golang.org/x/crypto/argon2"
)

// PasswordParams are argon2id's cost parameters.
type PasswordParams struct {
	MemoryKiB uint32
	Time      uint32
	Threads   uint8
}

// DefaultPasswordParams are OWASP's advice: m=19 MiB, t=2, p=1.
var DefaultPasswordParams = PasswordParams{MemoryKiB: 19 * 1024, Time: 2, Threads: 1}

// Hasher hashes passwords with argon2id, a bounded number at a time, so
// that a burst of creates queues instead of exhausting memory.
//
// A hasher from NewHasherHelper (what serve uses on Linux) hashes in a
// helper process: the same executable started again as a child, every
// thread of it at the lowest CPU priority (nice 19), jobs sent over a pipe
// (hashhelper.go). The kernel then runs the server's request threads first
// and the hashes on whatever CPU is left: reads keep their latency during a
// burst of creates, and with nothing else to do the hashes get every core.
// The 19 MiB each hash allocates stays out of the server's heap too. (A
// niced thread inside the server cannot do this: x/crypto's argon2 runs each
// segment of a hash on a goroutine of its own, which the runtime schedules
// on its ordinary threads.) If the helper cannot be started, or dies, the
// hash runs on the caller's goroutine instead, so a create never fails for
// it. Other hashers hash on their callers' goroutines, at most n at once.
type Hasher struct {
	params PasswordParams
	sem    chan struct{}       // a slot per hash running at once
	helper *hashHelper         // the helper process, or nil
	onWait func(time.Duration) // the queue's wait, for the metrics
	tracer trace.Tracer        // nil: no span per hash
}

// observed returns a hasher sharing h's slots that reports each hash's
// wait for a slot to onWait (when not nil) and makes each hash a span of
// tracer's (when not nil).
func (h *Hasher) observed(onWait func(time.Duration), tracer trace.Tracer) *Hasher {
	return &Hasher{params: h.params, sem: h.sem, helper: h.helper, onWait: onWait, tracer: tracer}
}

// DefaultHashConcurrency is how many passwords a helper process hashes at
// once by default: GOMAXPROCS, so that the hashes take every core the
// requests leave idle; where there is no low-priority helper (every
// system but Linux), DefaultPlainHashConcurrency.
func DefaultHashConcurrency() int {
	if lowPrioritySupported {
		return runtime.GOMAXPROCS(0)
	}
	return DefaultPlainHashConcurrency()
}

// DefaultPlainHashConcurrency is how many passwords are hashed at once on
// the callers' goroutines: GOMAXPROCS-1, at least 1. A hash (p=1) keeps one
// core busy for its whole ~25 ms; with every core hashing, a 0.5 ms read
// waits for the scheduler to preempt one (15.9 ms median during a create
// burst on two cores), so one core is left to everything else.
func DefaultPlainHashConcurrency() int { return max(1, runtime.GOMAXPROCS(0)-1) }

// NewHasher returns a Hasher with the given parameters hashing on its
// callers' goroutines, DefaultPlainHashConcurrency at once.
func NewHasher(p PasswordParams) *Hasher { return NewHasherPlain(p, DefaultPlainHashConcurrency()) }

// NewHasherPlain returns a Hasher hashing at most n passwords at once (at
// least one) on its callers' goroutines, at their priority.
func NewHasherPlain(p PasswordParams, n int) *Hasher {
	return &Hasher{params: p, sem: make(chan struct{}, max(1, n))}
}

// NewHasherHelper returns a Hasher hashing at most n passwords at once (at
// least one) in a helper process at nice 19: exe started with HashHelperEnv
// set, which must call ServeHashHelperIfAsked first thing (traineed's main
// does). The process starts with the first hash. Where no process can be
// given a lower priority (every system but Linux) it is NewHasherPlain.
func NewHasherHelper(p PasswordParams, n int, exe string) *Hasher {
	h := NewHasherPlain(p, n)
	if lowPrioritySupported {
		h.helper = &hashHelper{exe: exe, procs: cap(h.sem)}
	}
	return h
}

// Concurrency is how many passwords h hashes at once.
func (h *Hasher) Concurrency() int { return cap(h.sem) }

// LowPriority reports whether h hashes in a low-priority helper process
// (false once the helper could not be started).
func (h *Hasher) LowPriority() bool { return h.helper != nil && !h.helper.failed.Load() }

// Close stops h's helper process, if any; a later hash starts a new one.
func (h *Hasher) Close() error {
	if h.helper == nil {
		return nil
	}
	return h.helper.close()
}

// Hash returns the PHC string of password: $argon2id$v=19$m=..,t=..,p=..$salt$hash.
func (h *Hasher) Hash(ctx context.Context, password string) (string, error) {
	if h.tracer != nil {
		var span trace.Span
		ctx, span = h.tracer.Start(ctx, "password.hash", trace.WithAttributes(
			attribute.Bool("traineed.hash.helper", h.LowPriority()), attribute.String("traineed.hash.algorithm", "argon2id")))
		defer span.End()
	}
	start := time.Now()
	select {
	case h.sem <- struct{}{}:
	case <-ctx.Done():
		return "", ctx.Err()
	}
	if h.onWait != nil {
		h.onWait(time.Since(start))
	}
	release := func() { <-h.sem }
	if h.helper != nil && !h.helper.failed.Load() {
		// The slot is held until the helper has finished the job, even if
		// the caller gives up first (the helper's memory is bounded by the
		// slots too): helper.hash hands release on in that case.
		s, tookRelease, err := h.helper.hash(ctx, h.params, password, release)
		if tookRelease {
			return s, err
		}
		// The helper died or could not start (the slot is still held):
		// hash here.
	}
	defer release()
	return hash(h.params, password), nil
}

// hash computes the PHC string of password with a fresh salt.
func hash(pp PasswordParams, password string) string {
	salt := make([]byte, 16)
	_, _ = rand.Read(salt)
	key := argon2.IDKey([]byte(password), salt, pp.Time, pp.MemoryKiB, pp.Threads, 32)
	enc := base64.RawStdEncoding
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2.Version, pp.MemoryKiB, pp.Time, pp.Threads,
		enc.EncodeToString(salt), enc.EncodeToString(key))
}

// VerifyPassword reports whether password matches a hash made by Hash.
func VerifyPassword(hash, password string) bool {
	parts := strings.Split(hash, "$")
	if len(parts) != 6 || parts[1] != "argon2id" {
		return false
	}
	var p PasswordParams
	if _, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &p.MemoryKiB, &p.Time, &p.Threads); err != nil {
		return false
	}
	enc := base64.RawStdEncoding
	salt, err1 := enc.DecodeString(parts[4])
	want, err2 := enc.DecodeString(parts[5])
	if err1 != nil || err2 != nil {
		return false
	}
	got := argon2.IDKey([]byte(password), salt, p.Time, p.MemoryKiB, p.Threads, uint32(len(want)))
	return subtle.ConstantTimeCompare(got, want) == 1
}
