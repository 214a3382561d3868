package storetest

import (
	"strconv"
	"testing"
	"time"
)

func TestTemplateStale(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	at := func(d time.Duration) string {
		return templatePrefix + strconv.FormatInt(now.Add(-d).Unix(), 10) + "_0a1b2c3d"
	}
	for name, want := range map[string]bool{
		at(2 * time.Hour):                true,
		at(templateMaxAge + time.Second): true,
		at(time.Minute):                  false,
		at(-time.Minute):                 false, // another machine's clock ahead
		templatePrefix + "x_0a1b2c3d":    false,
		templatePrefix + "1800000000":    false,
	} {
		if got := templateStale(name, now); got != want {
			t.Errorf("templateStale(%q) = %v, want %v", name, got, want)
		}
	}
}
