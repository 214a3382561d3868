package jobs

import (
	"testing"
	"time"
)

// WaitCycles waits until the dispatcher has begun and ended n claim cycles
// after the call (n >= 2 guarantees one that began after it).
func WaitCycles(t testing.TB, d *Dispatcher, n int) {
	t.Helper()
	select {
	case <-d.cycled: // one that may have ended before the call
	default:
	}
	timeout := time.After(10 * time.Second)
	for range n {
		select {
		case <-d.cycled:
		case <-timeout:
			t.Fatalf("the dispatcher did not finish %d claim cycles in 10 s", n)
		}
	}
}
