package layout

import (
	"strings"
	"testing"
)

// wrapWords wraps at spaces only: a date's hyphens never break it.
func TestWrapWordsKeepsDates(t *testing.T) {
	got := WrapWords("the trial ended on 31-02-2027 and nothing else", 24)
	for _, l := range got {
		if strings.HasSuffix(l, "-") || len([]rune(l)) > 24 {
			t.Fatalf("wrapped %q", got)
		}
	}
	if !strings.Contains(strings.Join(got, "|"), "31-02-2027") {
		t.Fatalf("the date is broken: %q", got)
	}
	if got := WrapWords(strings.Repeat("x", 30), 10); len(got) != 3 || got[2] != "xxxxxxxxxx" {
		t.Fatalf("a long word: %q", got)
	}
}
