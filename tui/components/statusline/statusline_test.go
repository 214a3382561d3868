package statusline

import (
	"strings"
	"testing"
)

// A long status wraps at spaces: a date is never broken at its hyphens,
// and what two lines cannot hold is cut with "…".
func TestStatusLineWrapsAtSpaces(t *testing.T) {
	var s StatusLine
	s.ShowStatus(StatusError, "the field contractEnd must be a real date in the calendar, not 31-02-2027, and the rest of this message runs on and on and on well past the end of the second line of the status")
	for _, w := range []int{40, 68, 70, 73, 75} {
		lines := s.StatusLines(w)
		if len(lines) != 2 {
			t.Fatalf("width %d: %q", w, lines)
		}
		for _, l := range lines {
			if strings.HasSuffix(l, "31-") || strings.HasSuffix(l, "31-02-") || len([]rune(l)) > w {
				t.Fatalf("width %d: %q", w, lines)
			}
		}
		if !strings.HasSuffix(lines[1], "…") {
			t.Fatalf("width %d: not cut with …: %q", w, lines)
		}
	}
}
