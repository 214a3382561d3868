package server

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
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

// Hasher hashes passwords with argon2id, a bounded number at a time, so
// that a burst of creates queues instead of exhausting memory.
//
// Where the system allows it (Linux), the hashes run on the package's
// low-priority workers: goroutines each locked to its own OS thread for its
// whole life, the thread given the lowest CPU priority (nice 19), with
// GOMAXPROCS raised by the number of workers, so a hash never holds one of
// the Ps that serve requests. The intent is that the kernel runs the
// request threads first and the hashes on whatever CPU is left, but
// x/crypto's argon2 runs each segment of a hash on a goroutine of its own
// (processBlocks), which the runtime schedules on its ordinary threads: the
// worker's thread mostly waits, and most of a hash runs at the requests'
// priority (docs/performance.md, "Reads during a burst of creates"; the
// fix, not built, is a hashing helper process at nice 19). Elsewhere (or with NewHasherPlain) a hash runs on its
// caller's goroutine, at most n at once.
type Hasher struct {
	params      PasswordParams
	sem         chan struct{}       // a slot per hash running at once
	lowPriority bool                // on the low-priority workers
	onWait      func(time.Duration) // the queue's wait, for the metrics
}

// observed returns a hasher sharing h's slots that reports each hash's
// wait for a slot to onWait.
func (h *Hasher) observed(onWait func(time.Duration)) *Hasher {
	return &Hasher{params: h.params, sem: h.sem, lowPriority: h.lowPriority, onWait: onWait}
}

// DefaultHashConcurrency is how many passwords are hashed at once by
// default: with the low-priority workers (Linux) GOMAXPROCS, so that the
// hashes take every core the requests leave idle; without them
// DefaultPlainHashConcurrency.
func DefaultHashConcurrency() int {
	if lowPrioritySupported {
		return requestProcs()
	}
	return DefaultPlainHashConcurrency()
}

// requestProcs is GOMAXPROCS without the Ps added for the low-priority
// workers.
func requestProcs() int { return max(1, runtime.GOMAXPROCS(0)-int(lowWorkers.n.Load())) }

// DefaultPlainHashConcurrency is how many passwords are hashed at once on
// the callers' goroutines: GOMAXPROCS-1, at least 1. A hash (p=1) keeps one
// core busy for its whole ~25 ms; with every core hashing, a 0.5 ms read
// waits for the scheduler to preempt one (15.9 ms median during a create
// burst on two cores), so one core is left to everything else.
func DefaultPlainHashConcurrency() int { return max(1, requestProcs()-1) }

// NewHasher returns a Hasher with the given parameters and
// DefaultHashConcurrency slots, on the low-priority workers where
// supported.
func NewHasher(p PasswordParams) *Hasher { return NewHasherN(p, DefaultHashConcurrency()) }

// NewHasherN returns a Hasher hashing at most n passwords at once (at least
// one), on the low-priority workers where supported.
func NewHasherN(p PasswordParams, n int) *Hasher {
	return &Hasher{params: p, sem: make(chan struct{}, max(1, n)), lowPriority: lowPrioritySupported}
}

// NewHasherPlain returns a Hasher hashing at most n passwords at once (at
// least one) on its callers' goroutines, at their priority.
func NewHasherPlain(p PasswordParams, n int) *Hasher {
	return &Hasher{params: p, sem: make(chan struct{}, max(1, n))}
}

// Concurrency is how many passwords h hashes at once.
func (h *Hasher) Concurrency() int { return cap(h.sem) }

// LowPriority reports whether h hashes on the low-priority workers.
func (h *Hasher) LowPriority() bool { return h.lowPriority && !lowWorkers.failed.Load() }

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
	if h.lowPriority && lowWorkers.ensure(cap(h.sem)) {
		j := hashJob{params: h.params, password: password, done: make(chan string, 1)}
		lowWorkers.jobs <- j
		return <-j.done, nil
	}
	return hash(h.params, password), nil
}

// lowWorkers are the process's low-priority hashing workers, shared by
// every Hasher: a hasher that is dropped leaves nothing behind, and the
// pool only grows, to the largest concurrency asked of it.
var lowWorkers = &workerPool{jobs: make(chan hashJob)}

type workerPool struct {
	mu     sync.Mutex
	n      atomic.Int32 // workers running
	failed atomic.Bool  // a thread's priority could not be lowered: hash on the callers
	jobs   chan hashJob
}

type hashJob struct {
	params   PasswordParams
	password string
	done     chan string
}

// ensure starts workers until n run, raising GOMAXPROCS by as many, and
// reports whether the pool can be used. A worker whose thread's priority
// cannot be lowered ends (and its thread with it); the pool then stays
// unused.
func (p *workerPool) ensure(n int) bool {
	if int(p.n.Load()) >= n {
		return true
	}
	if p.failed.Load() {
		return false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	add := n - int(p.n.Load())
	if add <= 0 || p.failed.Load() {
		return !p.failed.Load()
	}
	ready := make(chan error)
	started := 0
	for range add {
		go p.worker(ready)
	}
	for range add {
		if err := <-ready; err != nil {
			p.failed.Store(true)
		} else {
			started++
		}
	}
	// A running worker holds a P: give the requests theirs back.
	p.n.Add(int32(started))
	runtime.GOMAXPROCS(runtime.GOMAXPROCS(0) + started)
	return !p.failed.Load()
}

// worker hashes jobs on its own OS thread at the lowest priority, for the
// life of the process. It never unlocks the thread, so a niced thread never
// goes back to the runtime to run other goroutines: if lowering the
// priority fails it returns, and a locked goroutine that returns takes its
// thread with it.
func (p *workerPool) worker(ready chan<- error) {
	runtime.LockOSThread()
	if err := lowerThreadPriority(); err != nil {
		ready <- err
		return
	}
	ready <- nil
	for j := range p.jobs {
		j.done <- hash(j.params, j.password)
	}
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
