//go:build !linux

package server

import "errors"

// lowPrioritySupported: elsewhere the hashes run on their callers'
// goroutines, GOMAXPROCS-1 at once by default.
const lowPrioritySupported = false

func lowerThreadPriority() error { return errors.New("no per-thread priority on this system") }
