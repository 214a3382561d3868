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
		gogc   string
		helper bool
		want   int // returned, and in force afterwards
	}{
		{"", true, serverGCPercent},
		{"", false, 100},    // hashes in process: Go's default
		{"200", true, 100},  // the environment's choice (here: what was set)
		{"off", false, 100}, // likewise
	} {
		debug.SetGCPercent(100)
		got := setServerGC(c.gogc, c.helper)
		inForce := debug.SetGCPercent(100)
		if inForce != c.want {
			t.Errorf("GOGC=%q helper=%v: GC percent %d, want %d", c.gogc, c.helper, inForce, c.want)
		}
		if want := c.want; want == 100 {
			if got != -1 {
				t.Errorf("GOGC=%q helper=%v: returned %d, want -1", c.gogc, c.helper, got)
			}
		} else if got != want {
			t.Errorf("GOGC=%q helper=%v: returned %d, want %d", c.gogc, c.helper, got, want)
		}
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
	step(0) // quiet after the busy start: free
	wantFree("first quiet tick after the start", total)
	step(0)
	step(trimQuiet - 1) // still quiet
	noFree("quiet ticks after the free")
	step(trimQuiet) // busy
	step(5 * trimQuiet)
	noFree("busy ticks")
	step(10) // quiet again
	wantFree("quiet tick after busy ones", total)
	step(0)
	noFree("second quiet tick")
}
