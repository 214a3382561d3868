package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/traineed/traineed/api/server"
)

// The limits file is read at start and again by the SIGHUP hook, which
// changes a running limiter; a broken file is refused and leaves the
// limits as they were.
func TestLimitsFileReload(t *testing.T) {
	path := filepath.Join(t.TempDir(), "limits.yaml")
	write := func(s string) {
		if err := os.WriteFile(path, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("rate-limit: 600\nrate-burst: 20\n")
	l, err := readLimits(path)
	if err != nil || l != (limits{RateLimit: 600, RateBurst: 20}) {
		t.Fatalf("read %+v, %v", l, err)
	}
	lim := server.NewMemoryLimiter(l.RateLimit, l.RateBurst)
	reload := reloadLimits(path, lim)

	write("rate-limit: 60\nrate-burst: 5\n")
	if err := reload(); err != nil {
		t.Fatal(err)
	}
	if r, b := lim.Limit(); r != 60 || b != 5 {
		t.Fatalf("after the reload: %d/%d", r, b)
	}
	for _, bad := range []string{"rate-limit: 0\nrate-burst: 5\n", "rate-burst: 5\n", "rate-limit: [\n"} {
		write(bad)
		if err := reload(); err == nil || !strings.Contains(err.Error(), "--limits-file") {
			t.Errorf("%q: %v", bad, err)
		}
		if r, b := lim.Limit(); r != 60 || b != 5 {
			t.Fatalf("%q changed the limits to %d/%d", bad, r, b)
		}
	}
}
