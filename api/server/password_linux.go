package server

import "golang.org/x/sys/unix"

// lowPrioritySupported: Linux can lower one thread's CPU priority.
const lowPrioritySupported = true

// lowerThreadPriority gives the calling OS thread (only it: on Linux
// PRIO_PROCESS with a thread id applies to that thread) the lowest CPU
// priority, nice 19. Lowering needs no privilege.
func lowerThreadPriority() error {
	return unix.Setpriority(unix.PRIO_PROCESS, unix.Gettid(), 19)
}
