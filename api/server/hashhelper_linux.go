package server

import (
	"os"
	"os/exec"
	"runtime"

	"golang.org/x/sys/unix"
)

// lowPrioritySupported: on Linux a process can be started at nice 19.
const lowPrioritySupported = true

// startNiced starts cmd at nice 19. A child takes the nice value of the
// thread that forks it, and every thread of the child takes it from the
// child's first one: so cmd is started from a thread of its own that is
// first lowered to nice 19 (on Linux PRIO_PROCESS with a thread id applies
// to that thread alone). That thread never goes back to the runtime: its
// goroutine ends locked, which ends the thread (raising a priority again
// needs privilege). The runtime creates no thread from a locked one (it
// hands that to its template thread), so no niced thread joins its pool.
func startNiced(cmd *exec.Cmd) error {
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // never unlocked
		if err := unix.Setpriority(unix.PRIO_PROCESS, unix.Gettid(), 19); err != nil {
			errc <- err
			return
		}
		errc <- cmd.Start()
	}()
	return <-errc
}

// pollable returns f (a pipe inherited from the server) switched to
// non-blocking mode, so that the runtime waits for it in its poller. A
// blocking read of an inherited pipe keeps its P while it waits: a job read
// then waits for the system monitor to take that P back (up to 10 ms) before
// its hash can start, and a core idles meanwhile.
func pollable(f *os.File) *os.File {
	fd := int(f.Fd())
	if err := unix.SetNonblock(fd, true); err != nil {
		return f
	}
	return os.NewFile(uintptr(fd), f.Name())
}

// nameProcess sets the process's name (its main thread's comm, which ps,
// top and pgrep show) to name.
func nameProcess(name string) { _ = os.WriteFile("/proc/self/comm", []byte(name), 0) }
