package main

import (
	"context"
	"runtime/debug"
	"runtime/metrics"
	"time"
)

// serverGCPercent is the server's GOGC when its passwords are hashed in
// the helper process and the environment sets none. A request allocates
// about 12 KB and the server's live heap is a few MiB, so at Go's default
// of 100 the collector ran dozens of times a second under load, and each
// run wakes threads, which is dear on a small virtual machine: at 400 the
// server spent 45-48 µs of CPU per GET by id instead of 52-65 µs
// (docs/performance.md, "GET by id: the collector and the driver"). The
// memory this keeps between collections is handed back when requests stop
// (trimWhenIdle). Hashing in process (no helper) allocates 19 MiB per
// password, so the server keeps Go's default there.
const serverGCPercent = 400

// setServerGC applies serverGCPercent unless GOGC is set (gogc is its
// value) or the hashes run in the server (helper false); it returns the
// percentage in force afterwards, or -1 when it left Go's setting alone.
func setServerGC(gogc string, helper bool) int {
	if gogc != "" || !helper {
		return -1
	}
	debug.SetGCPercent(serverGCPercent)
	return serverGCPercent
}

// trimIdle is how long the server must allocate (almost) nothing before
// it returns its free memory to the system.
const trimIdle = 5 * time.Second

// trimQuiet is what the server may allocate in trimIdle and still count
// as idle (the metrics, the feed's polls, the webhook dispatcher's polls).
const trimQuiet = 1 << 20

// trimWhenIdle runs free once each time the process goes quiet: after a
// tick of every in which allocated (bytes allocated since the start) grew
// by less than trimQuiet, following one in which it grew by more. It
// returns when ctx is done.
func trimWhenIdle(ctx context.Context, every time.Duration, allocated func() uint64, free func()) {
	t := time.NewTicker(every)
	defer t.Stop()
	last, busy := allocated(), true // the start itself (migrations, the demo) was busy
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		now := allocated()
		switch {
		case now-last >= trimQuiet:
			busy = true
		case busy:
			free()
			busy = false
		}
		last = now
	}
}

// heapAllocated is the bytes the process has allocated on the heap since
// it started.
func heapAllocated() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}
