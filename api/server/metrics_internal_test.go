package server

import (
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// BenchmarkMetricsObserve is the work the metrics add to one request:
// one counter and one histogram observation under their labels.
func BenchmarkMetricsObserve(b *testing.B) {
	reg := prometheus.NewRegistry()
	m := NewMetrics(reg, reg)
	b.ReportAllocs()
	for b.Loop() {
		m.observe("GET /public-api/trainees/{id}", "GET", 200, reasonNone, 150*time.Microsecond)
	}
}
