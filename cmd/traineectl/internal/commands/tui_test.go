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

// tui --help describes the TUI of docs/tui.md: its home dashboard, live
// updates, marks and bulk actions, the command line, the webhooks and
// automations screens; every line fits 80 columns.
func TestTUIHelp(t *testing.T) {
	h := newHarness(t, "http://127.0.0.1:1", stubKey)
	r := h.run("tui", "--help").expect(t, 0)
	long, _, _ := strings.Cut(r.out, "Usage:")
	for _, want := range []string{"Home", "recent changes", "Live", "L pauses", "space marks", "ctrl+a",
		"x acts", "extend 30", ": opens the command line", "w opens the webhooks", "the automations", "read-only", "NO_COLOR"} {
		if !strings.Contains(long, want) {
			t.Errorf("tui --help does not say %q:\n%s", want, long)
		}
	}
	if strings.Contains(long, "searchable") {
		t.Errorf("tui --help still describes the old searchable list:\n%s", long)
	}
	for _, line := range strings.Split(long, "\n") {
		if len([]rune(line)) > 80 {
			t.Errorf("line over 80 columns: %q", line)
		}
	}
}
