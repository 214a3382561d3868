package main

import (
	"context"
	"runtime/debug"
	"sync/atomic"
	"testing"
	"time"
)

func TestSetServerGC(t *testing.T) {
	prev := debug.SetGCPercent(100)
	defer debug.SetGCPercent(prev)
	for _, c := range []struct {
		gogc     string
		helper   bool
		inForce  int // afterwards
		returned int
	}{
		{"", true, serverGCPercent, 100},
		{"", false, 100, -1},    // hashes in process: Go's default
		{"200", true, 100, -1},  // the environment's choice (here: what was set)
		{"off", false, 100, -1}, // likewise
	} {
		debug.SetGCPercent(100)
		got := setServerGC(c.gogc, c.helper)
		if inForce := debug.SetGCPercent(100); inForce != c.inForce {
			t.Errorf("GOGC=%q helper=%v: GC percent %d, want %d", c.gogc, c.helper, inForce, c.inForce)
		}
		if got != c.returned {
			t.Errorf("GOGC=%q helper=%v: returned %d, want %d", c.gogc, c.helper, got, c.returned)
		}
	}
}

// When the helper fails and the hashes move into the server, the
// collector goes back to the percentage it had.
func TestGCFollowsHelper(t *testing.T) {
	prev := debug.SetGCPercent(serverGCPercent)
	defer debug.SetGCPercent(prev)
	var alive atomic.Bool
	alive.Store(true)
	done := make(chan struct{})
	go func() { gcFollowsHelper(context.Background(), time.Millisecond, alive.Load, 100); close(done) }()
	time.Sleep(20 * time.Millisecond)
	if p := debug.SetGCPercent(serverGCPercent); p != serverGCPercent {
		t.Fatalf("GC percent %d while the helper lives, want %d", p, serverGCPercent)
	}
	alive.Store(false)
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("gcFollowsHelper still running after the helper failed")
	}
	if p := debug.SetGCPercent(serverGCPercent); p != 100 {
		t.Fatalf("GC percent %d after the helper failed, want 100", p)
	}
}

// The server hands its memory back once per quiet spell: not while it
// allocates, not again and again while it stays quiet.
func TestTrimWhenIdle(t *testing.T) {
	var total uint64               // bytes allocated so far, as the test has said
	next := make(chan uint64)      // what each call of allocated returns
	frees := make(chan uint64, 16) // total at each free
	var freedAt atomic.Uint64
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	alloc := func() uint64 { // one call per tick, and one at the start
		select {
		case a := <-next:
			freedAt.Store(a)
			return a
		case <-ctx.Done():
			return 0
		}
	}
	go trimWhenIdle(ctx, time.Millisecond, alloc, func() { frees <- freedAt.Load() })
	step := func(grow uint64) { // the next tick, after grow bytes
		total += grow
		next <- total
	}
	noFree := func(when string) {
		select {
		case a := <-frees:
			t.Fatalf("%s: freed (at %d bytes allocated)", when, a)
		case <-time.After(20 * time.Millisecond):
		}
	}
	wantFree := func(when string, at uint64) {
		select {
		case a := <-frees:
			if a != at {
				t.Fatalf("%s: freed at %d bytes allocated, want %d", when, a, at)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: not freed", when)
		}
	}
	step(0) // the start
	step(0) // one quiet tick after the busy start
	noFree("one quiet tick")
	step(0) // two: free
	wantFree("second quiet tick after the start", total)
	step(0)
	step(trimQuiet - 1) // still quiet
	noFree("quiet ticks after the free")
	step(trimQuiet) // busy
	step(5 * trimQuiet)
	noFree("busy ticks")
	step(10)        // quiet
	step(trimQuiet) // busy again before the second quiet tick
	step(0)
	noFree("traffic that comes and goes")
	step(0)
	wantFree("two quiet ticks after busy ones", total)
	step(0)
	step(0)
	noFree("more quiet ticks")
}
