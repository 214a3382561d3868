package server

import (
	"os"
	"testing"
)

// TestMain lets this test binary serve as the hashing helper that the
// helper tests and BenchmarkHashParallel start.
func TestMain(m *testing.M) {
	ServeHashHelperIfAsked()
	os.Exit(m.Run())
}
