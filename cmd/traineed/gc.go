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
// run wakes threads, which is dear on a small virtual machine: with the
// typed access log, 400 took the server's CPU per GET by id from 50-51 µs
// to about 45.5 µs (docs/performance.md, "GET by id: the collector and
// the driver", pairs 1-3 against 4-6). The memory this keeps between
// collections is handed back when requests stop (trimWhenIdle). Hashing in
// process (no helper) allocates 19 MiB per password, so the server keeps
// Go's default there, and goes back to it if the helper fails
// (gcFollowsHelper).
const serverGCPercent = 400

// setServerGC applies serverGCPercent unless GOGC is set (gogc is its
// value) or the hashes run in the server (helper false); it returns the
// percentage it replaced, or -1 when it left Go's setting alone.
func setServerGC(gogc string, helper bool) int {
	if gogc != "" || !helper {
		return -1
	}
	return debug.SetGCPercent(serverGCPercent)
}

// gcFollowsHelper puts the collector's percentage back to prev once
// helper reports false (the hashes have moved into the server), checking
// every tick until then or until ctx is done.
func gcFollowsHelper(ctx context.Context, every time.Duration, helper func() bool, prev int) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if !helper() {
			debug.SetGCPercent(prev)
			return
		}
	}
}

// trimTick is how often the server looks at what it has allocated, and
// trimQuietTicks how many ticks in a row it must allocate (almost)
// nothing before it returns its free memory to the system.
const (
	trimTick       = 3 * time.Second
	trimQuietTicks = 2
)

// trimQuiet is what the server may allocate in a tick and still count it
// quiet (the metrics, the feed's polls, the webhook dispatcher's polls).
const trimQuiet = 1 << 20

// trimWhenIdle runs free once each time the process goes quiet: after
// trimQuietTicks ticks in a row (a tick every every) in each of which
// allocated (bytes allocated since the start) grew by less than
// trimQuiet, following a tick in which it grew by more. Traffic that
// comes and goes thus frees at most once per trimQuietTicks+1 ticks (a
// free is a full collection). It returns when ctx is done.
func trimWhenIdle(ctx context.Context, every time.Duration, allocated func() uint64, free func()) {
	t := time.NewTicker(every)
	defer t.Stop()
	last := allocated()
	quiet := 0 // quiet ticks in a row since the last busy one; the start itself was busy
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		now := allocated()
		if now-last >= trimQuiet {
			quiet = 0
		} else if quiet++; quiet == trimQuietTicks {
			free()
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
