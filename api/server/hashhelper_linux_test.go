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
	base := niceOfThreads(t, os.Getpid())[os.Getpid()]
	if base == 19 {
		t.Skip("the test runs at nice 19 already")
	}
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
	// The thread that started the helper was lowered to nice 19 and ends
	// with its goroutine; if it was the main thread, which the runtime
	// never ends, it is parked for good instead. No other thread is niced.
	for tid, n := range niceOfThreads(t, os.Getpid()) {
		if n != base && tid != os.Getpid() {
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

// The helper reads its jobs (and writes its answers) through the runtime's
// poller: its ends of the pipes are non-blocking. A blocking read of the
// inherited pipe keeps a P while it waits, so a job read waited for the
// system monitor to take that P back before its hash could start: the
// helper made 83 % of the in-process rate, with a core idle a tenth of the time.
func TestHashHelperPipesArePolled(t *testing.T) {
	h := testHelperHasher(t, 1)
	if _, err := h.Hash(context.Background(), "a"); err != nil {
		t.Fatal(err)
	}
	pid := h.helper.pid()
	for _, fd := range []string{"0", "1"} {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/fdinfo/" + fd)
		if err != nil {
			t.Fatal(err)
		}
		var flags int64
		for _, line := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(line, "flags:"); ok {
				flags, _ = strconv.ParseInt(strings.TrimSpace(v), 8, 64)
			}
		}
		if flags&syscall.O_NONBLOCK == 0 {
			t.Errorf("the helper's fd %s is blocking (flags %o)", fd, flags)
		}
	}
}

// The helper runs one P per slot, whatever GOMAXPROCS the server runs with:
// a server at GOMAXPROCS=1 (faster reads on a small machine) still hashes
// on every core.
func TestHashHelperProcsAreItsSlots(t *testing.T) {
	t.Setenv("GOMAXPROCS", "1")
	h := testHelperHasher(t, 3)
	if _, err := h.Hash(context.Background(), "a"); err != nil {
		t.Fatal(err)
	}
	env, err := os.ReadFile("/proc/" + strconv.Itoa(h.helper.pid()) + "/environ")
	if err != nil {
		t.Fatal(err)
	}
	var procs []string
	for _, kv := range strings.Split(string(env), "\x00") {
		if v, ok := strings.CutPrefix(kv, "GOMAXPROCS="); ok {
			procs = append(procs, v)
		}
	}
	if len(procs) != 1 || procs[0] != "3" {
		t.Errorf("the helper's GOMAXPROCS: %q, want one, 3", procs)
	}
}

// ps and top show the helper by its name, not as "exe" (the name of
// /proc/self/exe, which serve starts).
func TestHashHelperName(t *testing.T) {
	h := testHelperHasher(t, 1)
	if _, err := h.Hash(context.Background(), "a"); err != nil {
		t.Fatal(err)
	}
	pid := strconv.Itoa(h.helper.pid())
	comm, err := os.ReadFile("/proc/" + pid + "/comm")
	if err != nil {
		t.Fatal(err)
	}
	cmdline, err := os.ReadFile("/proc/" + pid + "/cmdline")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(string(comm)); got != helperName {
		t.Errorf("comm %q, want %q", got, helperName)
	}
	if got := strings.TrimRight(string(cmdline), "\x00"); got != helperName {
		t.Errorf("cmdline %q, want %q", got, helperName)
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

// A caller that gives up while the helper hashes for it does not free its
// slot until the helper has answered: the slots bound the helper's memory
// too, whatever the callers do.
func TestHashHelperSlotHeldUntilAnswered(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	slow := PasswordParams{MemoryKiB: 64, Time: 3000, Threads: 1} // some 100 ms or more
	h := NewHasherHelper(slow, 1, exe)
	t.Cleanup(func() { h.Close() })
	if _, err := h.Hash(context.Background(), "warm"); err != nil { // the helper runs
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	start := time.Now()
	if _, err := h.Hash(ctx, "given up"); err == nil {
		t.Skip("the hash finished within 10 ms: too fast a machine for this test")
	}
	if len(h.sem) != 1 {
		t.Fatalf("the slot was freed when the caller gave up (after %v), while the helper still hashes", time.Since(start))
	}
	for len(h.sem) != 0 {
		if time.Since(start) > 10*time.Second {
			t.Fatal("the slot was never freed")
		}
		time.Sleep(time.Millisecond)
	}
	if s, err := h.Hash(context.Background(), "next"); err != nil || !VerifyPassword(s, "next") {
		t.Fatalf("next hash: %q, %v", s, err)
	}
}

// pid is the running helper's process id, 0 when none runs.
func (h *hashHelper) pid() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.cur == nil {
		return 0
	}
	return h.cur.cmd.Process.Pid
}
