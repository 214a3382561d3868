package server

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// niceOfThreads returns the nice value of each thread of process pid.
func niceOfThreads(t *testing.T, pid int) map[int]int {
	t.Helper()
	stats, err := filepath.Glob("/proc/" + strconv.Itoa(pid) + "/task/*/stat")
	if err != nil {
		t.Fatal(err)
	}
	nice := map[int]int{}
	for _, st := range stats {
		b, err := os.ReadFile(st)
		if err != nil {
			continue // the thread ended
		}
		// pid (comm) state ...: the fields after the last ')'; nice is
		// field 19 of the line, the 17th after the comm.
		f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
		tid, _ := strconv.Atoi(filepath.Base(filepath.Dir(st)))
		nice[tid], _ = strconv.Atoi(f[16])
	}
	return nice
}

func testHelperHasher(t *testing.T, n int) *Hasher {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	h := NewHasherHelper(PasswordParams{MemoryKiB: 64, Time: 1, Threads: 1}, n, exe)
	t.Cleanup(func() { h.Close() })
	return h
}

// The helper hasher hashes in a child process whose every thread is at
// nice 19, while no thread of the server is niced and GOMAXPROCS is left
// alone; hashes beyond the slots queue and all finish.
func TestHashInLowPriorityHelper(t *testing.T) {
	procs := runtime.GOMAXPROCS(0)
	h := testHelperHasher(t, 2)
	if !h.LowPriority() {
		t.Fatal("no low-priority helper on Linux")
	}
	a, err := h.Hash(context.Background(), "correct horse")
	if err != nil || !VerifyPassword(a, "correct horse") {
		t.Fatalf("hash %q, %v", a, err)
	}
	pid := h.helper.pid()
	if pid == 0 || pid == os.Getpid() {
		t.Fatalf("helper pid %d", pid)
	}
	helper := niceOfThreads(t, pid)
	if len(helper) < 2 {
		t.Fatalf("helper threads %v", helper)
	}
	for tid, n := range helper {
		if n != 19 {
			t.Errorf("helper thread %d at nice %d, want 19", tid, n)
		}
	}
	own := niceOfThreads(t, os.Getpid())
	base := own[os.Getpid()]
	if base == 19 {
		t.Skip("the test runs at nice 19 already")
	}
	for tid, n := range own {
		if n != base {
			t.Errorf("server thread %d at nice %d (the process's: %d)", tid, n, base)
		}
	}
	if runtime.GOMAXPROCS(0) != procs {
		t.Errorf("GOMAXPROCS changed from %d to %d", procs, runtime.GOMAXPROCS(0))
	}
	var wg sync.WaitGroup
	for i := range 6 {
		wg.Go(func() {
			pw := "pw" + strconv.Itoa(i)
			if s, err := h.Hash(context.Background(), pw); err != nil || !VerifyPassword(s, pw) {
				t.Errorf("hash %d: %q, %v", i, s, err)
			}
		})
	}
	wg.Wait()
	if h.helper.pid() != pid {
		t.Error("a second helper was started while the first ran")
	}
}

// A helper killed is replaced: the next hashes succeed, in a new helper
// process; Close ends it.
func TestHashHelperRestarts(t *testing.T) {
	h := testHelperHasher(t, 1)
	if _, err := h.Hash(context.Background(), "a"); err != nil {
		t.Fatal(err)
	}
	pid := h.helper.pid()
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	for h.helper.pid() == pid { // until the reader saw it end
		time.Sleep(time.Millisecond)
	}
	s, err := h.Hash(context.Background(), "b")
	if err != nil || !VerifyPassword(s, "b") {
		t.Fatalf("after the kill: %q, %v", s, err)
	}
	next := h.helper.pid()
	if next == 0 || next == pid || !h.LowPriority() {
		t.Fatalf("helper after the kill: pid %d (was %d), low priority %v", next, pid, h.LowPriority())
	}
	if err := h.Close(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		if _, err := os.Stat("/proc/" + strconv.Itoa(next)); os.IsNotExist(err) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the helper did not exit after Close")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// A helper that cannot start, or ends without answering, leaves the hashes
// to the server: they still succeed, and no process is tried per hash.
func TestHashHelperFallsBack(t *testing.T) {
	for _, exe := range []string{"/nonexistent/traineed", "/bin/true"} {
		h := NewHasherHelper(PasswordParams{MemoryKiB: 64, Time: 1, Threads: 1}, 1, exe)
		for i := range 3 {
			s, err := h.Hash(context.Background(), "pw")
			if err != nil || !VerifyPassword(s, "pw") {
				t.Fatalf("%s, hash %d: %q, %v", exe, i, s, err)
			}
		}
		if h.LowPriority() {
			t.Errorf("%s: still reported as low priority", exe)
		}
		h.Close()
	}
}
