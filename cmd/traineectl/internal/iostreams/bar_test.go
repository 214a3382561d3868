package iostreams

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

func TestBarOnATerminal(t *testing.T) {
	var out bytes.Buffer
	t0 := time.Unix(1000, 0)
	clock := t0
	b := NewBar(&out, true, false, "trainees", 4, func() time.Time { return clock })
	b.Start()
	clock = t0.Add(2 * time.Second)
	b.Record(true, nil)
	b.Record(true, []string{"trainee 7: failed: 1001 boom"})
	b.Record(false, nil)
	b.mu.Lock()
	b.draw()
	b.mu.Unlock()
	b.Write([]byte("trace line\n"))
	b.mu.Lock()
	b.draw()
	b.mu.Unlock()
	b.Stop()
	got := out.String()
	for _, want := range []string{
		"[------------------------------] 0/4 trainees, 0 failed, 0.0 trainees/s",
		"\r\x1b[Ktrainee 7: failed: 1001 boom\n",
		"[######################--------] 3/4 trainees, 1 failed, 1.0 trainees/s, ETA 1s",
		"\r\x1b[Ktrace line\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%q", want, got)
		}
	}
	if !strings.HasSuffix(got, "\r\x1b[K") {
		t.Errorf("Stop left the bar on the screen: %q", got)
	}
	b.Stop() // twice is harmless
}

func TestBarElsewherePrintsOnlyFailures(t *testing.T) {
	var out bytes.Buffer
	b := NewBar(&out, false, false, "rows", 2, nil)
	b.Start()
	b.Record(true, []string{"row 2: invalid: 1002 email: bad", "row 2: invalid: 1002 phone: bad"})
	b.Record(true, nil)
	b.Stop()
	if got, want := out.String(), "row 2: invalid: 1002 email: bad\nrow 2: invalid: 1002 phone: bad\n"; got != want {
		t.Errorf("output %q, want %q", got, want)
	}
}
