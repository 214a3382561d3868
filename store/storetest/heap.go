package storetest

import (
	"runtime"
	"time"
)

// HeapPeak samples the heap every interval until the returned stop is
// called, and stop returns the highest value of stat seen (for example
// HeapAlloc or HeapInuse).
func HeapPeak(interval time.Duration, stat func(*runtime.MemStats) uint64) (stop func() uint64) {
	var peak uint64
	done := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			peak = max(peak, stat(&ms))
			select {
			case <-done:
				return
			case <-time.After(interval):
			}
		}
	}()
	return func() uint64 {
		close(done)
		<-sampled
		return peak
	}
}
