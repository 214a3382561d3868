package server

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// niceOfThreads returns the nice value of each of the process's threads.
func niceOfThreads(t *testing.T) map[int]int {
	t.Helper()
	dirs, err := filepath.Glob("/proc/self/task/*/stat")
	if err != nil {
		t.Fatal(err)
	}
	nice := map[int]int{}
	for _, d := range dirs {
		b, err := os.ReadFile(d)
		if err != nil {
			continue // the thread ended
		}
		// pid (comm) state ...: the fields after the last ')'; nice is
		// field 19 of the line, the 17th after the comm.
		f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
		tid, _ := strconv.Atoi(filepath.Base(filepath.Dir(d)))
		nice[tid], _ = strconv.Atoi(f[16])
	}
	return nice
}

// The default hasher hashes on threads of nice 19, and gives the Ps they
// hold back: GOMAXPROCS grows by as many workers; no other thread is
// niced, and the caller's own priority is untouched.
func TestHashOnLowPriorityThreads(t *testing.T) {
	before := runtime.GOMAXPROCS(0) - int(lowWorkers.n.Load())
	h := NewHasherN(PasswordParams{MemoryKiB: 64, Time: 1, Threads: 1}, 2)
	if !h.LowPriority() {
		t.Fatal("no low-priority hashing on Linux")
	}
	a, err := h.Hash(context.Background(), "correct horse")
	if err != nil || !VerifyPassword(a, "correct horse") {
		t.Fatalf("hash %q, %v", a, err)
	}
	workers := int(lowWorkers.n.Load())
	if workers < 2 {
		t.Fatalf("%d workers, want at least 2", workers)
	}
	if got := runtime.GOMAXPROCS(0); got != before+workers {
		t.Errorf("GOMAXPROCS %d, want %d + %d workers", got, before, workers)
	}
	threads := niceOfThreads(t)
	base := threads[os.Getpid()] // the main thread's: the process's own
	if base == 19 {
		t.Skip("the process runs at nice 19 already")
	}
	niced := 0
	for _, n := range threads {
		switch n {
		case 19:
			niced++
		case base:
		default:
			t.Errorf("a thread of nice %d (the process's: %d)", n, base)
		}
	}
	if niced != workers {
		t.Errorf("%d threads of nice 19, want one per worker (%d)", niced, workers)
	}
	// More hashes, at once, than workers: they queue and all finish.
	done := make(chan error)
	for range 5 {
		go func() {
			s, err := h.Hash(context.Background(), "pw")
			if err == nil && !VerifyPassword(s, "pw") {
				err = context.Canceled
			}
			done <- err
		}()
	}
	for range 5 {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
	if int(lowWorkers.n.Load()) != workers {
		t.Errorf("the pool grew to %d workers for a hasher of 2 slots", lowWorkers.n.Load())
	}
	// The plain hasher hashes on the caller's goroutine.
	if NewHasherPlain(DefaultPasswordParams, 1).LowPriority() {
		t.Error("NewHasherPlain on low-priority workers")
	}
}
