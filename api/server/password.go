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

// Hasher hashes passwords with argon2id, a bounded number at a time: a
// burst of creates queues instead of exhausting memory, and leaves the
// other requests a share of the CPU (see DefaultHashConcurrency).
type Hasher struct {
	params PasswordParams
	sem    chan struct{}
	onWait func(time.Duration) // the queue's wait, for the metrics
}

// observed returns a hasher sharing h's slots that reports each hash's
// wait for a slot to onWait.
func (h *Hasher) observed(onWait func(time.Duration)) *Hasher {
	return &Hasher{params: h.params, sem: h.sem, onWait: onWait}
}

// DefaultHashConcurrency is how many passwords are hashed at once by
// default: GOMAXPROCS-1, at least 1. A hash (p=1) keeps one core busy for
// its whole ~25 ms; with every core hashing, a 0.5 ms read waits for the
// scheduler to preempt one (15.9 ms median during a create burst on two
// cores). One core kept free for everything else holds reads near their
// idle latency; creates still run at the rate of the hashing slots.
func DefaultHashConcurrency() int { return max(1, runtime.GOMAXPROCS(0)-1) }

// NewHasher returns a Hasher with the given parameters and
// DefaultHashConcurrency slots.
func NewHasher(p PasswordParams) *Hasher { return NewHasherN(p, DefaultHashConcurrency()) }

// NewHasherN returns a Hasher hashing at most n passwords at once (at least
// one).
func NewHasherN(p PasswordParams, n int) *Hasher {
	return &Hasher{params: p, sem: make(chan struct{}, max(1, n))}
}

// Concurrency is how many passwords h hashes at once.
func (h *Hasher) Concurrency() int { return cap(h.sem) }

// Hash returns the PHC string of password: $argon2id$v=19$m=..,t=..,p=..$salt$hash.
func (h *Hasher) Hash(ctx context.Context, password string) (string, error) {
	start := time.Now()
	select {
	case h.sem <- struct{}{}:
	case <-ctx.Done():
		return "", ctx.Err()
	}
	if h.onWait != nil {
		h.onWait(time.Since(start))
	}
	defer func() { <-h.sem }()
	salt := make([]byte, 16)
	_, _ = rand.Read(salt)
	p := h.params
	key := argon2.IDKey([]byte(password), salt, p.Time, p.MemoryKiB, p.Threads, 32)
	enc := base64.RawStdEncoding
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2.Version, p.MemoryKiB, p.Time, p.Threads,
		enc.EncodeToString(salt), enc.EncodeToString(key)), nil
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
