package commands_test

import (
	"strings"
	"testing"
)

// The TUI needs a terminal; without one it says so (usage error) instead
// of drawing into a pipe.
func TestTUINeedsATerminal(t *testing.T) {
	h := newHarness(t, "http://127.0.0.1:1", stubKey)
	r := h.run("tui").expect(t, 2)
	if !strings.Contains(r.err, "tui needs a terminal") || r.out != "" {
		t.Fatalf("%s", r)
	}
	r = h.runWith(runOpts{tty: true}, "tui", "-v").expect(t, 2)
	if !strings.Contains(r.err, "--log-file") {
		t.Fatalf("%s", r)
	}
	r = h.run("tui", "extra").expect(t, 2)
	if r.out != "" {
		t.Fatalf("%s", r)
	}
}
