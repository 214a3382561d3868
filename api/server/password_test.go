package server

import (
	"context"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestHashAndVerify(t *testing.T) {
	h := NewHasher(PasswordParams{MemoryKiB: 64, Time: 1, Threads: 1})
	a, err := h.Hash(context.Background(), "correct horse")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := h.Hash(context.Background(), "correct horse")
	if a == b {
		t.Fatal("two hashes of one password are equal: no salt")
	}
	if !strings.HasPrefix(a, "$argon2id$v=19$m=64,t=1,p=1$") {
		t.Fatalf("hash %q", a)
	}
	if !VerifyPassword(a, "correct horse") || VerifyPassword(a, "correct horsE") || VerifyPassword("$bcrypt$x", "x") {
		t.Fatal("verify")
	}
}

func TestDefaultParamsAreOWASP(t *testing.T) {
	if DefaultPasswordParams != (PasswordParams{MemoryKiB: 19456, Time: 2, Threads: 1}) {
		t.Fatalf("default params %+v", DefaultPasswordParams)
	}
}

// On the callers' goroutines, hashing leaves a core to the other
// requests: GOMAXPROCS-1 slots, at least one. A low-priority helper
// process (Linux) takes every core by default (the kernel runs the
// requests first).
func TestHashConcurrencyLeavesACore(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for procs, want := range map[int]int{1: 1, 2: 1, 3: 2, 8: 7} {
		runtime.GOMAXPROCS(procs)
		if got := NewHasherPlain(DefaultPasswordParams, DefaultPlainHashConcurrency()).Concurrency(); got != want {
			t.Errorf("GOMAXPROCS %d: %d hashing slots, want %d", procs, got, want)
		}
		if got := NewHasher(DefaultPasswordParams).Concurrency(); got != want {
			t.Errorf("GOMAXPROCS %d: NewHasher has %d slots, want %d", procs, got, want)
		}
		if lowPrioritySupported {
			want = procs
		}
		if got := DefaultHashConcurrency(); got != want {
			t.Errorf("GOMAXPROCS %d: %d helper slots by default, want %d", procs, got, want)
		}
	}
	if NewHasherPlain(DefaultPasswordParams, 0).Concurrency() != 1 || NewHasherHelper(DefaultPasswordParams, 5, "x").Concurrency() != 5 {
		t.Error("slots")
	}
}

// The semaphore bounds hashing; a cancelled caller
// waiting for a slot gives up.
func TestHashBoundedAndCancellable(t *testing.T) {
	h := NewHasher(PasswordParams{MemoryKiB: 64, Time: 1, Threads: 1})
	for range cap(h.sem) {
		h.sem <- struct{}{}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := h.Hash(ctx, "password"); err == nil {
		t.Fatal("hash ran with every slot taken")
	}
	<-h.sem
	if _, err := h.Hash(context.Background(), "password"); err != nil {
		t.Fatal(err)
	}
}

// BenchmarkHashUnbounded is the machine's raw argon2id rate with the
// production parameters and one hash per core (GOMAXPROCS) on the callers'
// goroutines: the machine's rate.
func BenchmarkHashUnbounded(b *testing.B) {
	benchHash(b, NewHasherPlain(DefaultPasswordParams, runtime.GOMAXPROCS(0)))
}

// BenchmarkHashParallel is the argon2id rate with the production parameters
// and serve's default hasher (DefaultHashConcurrency in the low-priority
// helper process where supported, this test binary acting as the helper):
// the ceiling of creates/s.
func BenchmarkHashParallel(b *testing.B) {
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	h := NewHasherHelper(DefaultPasswordParams, DefaultHashConcurrency(), exe)
	defer h.Close()
	benchHash(b, h)
}

// BenchmarkHashPlain is the argon2id rate of the plain hasher's default
// (DefaultPlainHashConcurrency slots on the callers' goroutines: the rule
// before the low-priority helper, and serve --hash-low-priority=false).
func BenchmarkHashPlain(b *testing.B) {
	benchHash(b, NewHasherPlain(DefaultPasswordParams, DefaultPlainHashConcurrency()))
}

func benchHash(b *testing.B, h *Hasher) {
	var mu sync.Mutex
	start := time.Now()
	b.SetParallelism(16)
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := h.Hash(context.Background(), "benchmark password"); err != nil {
				mu.Lock()
				b.Error(err)
				mu.Unlock()
			}
		}
	})
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "hashes/s")
}
