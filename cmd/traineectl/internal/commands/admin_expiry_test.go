package commands_test

import (
	"strings"
	"testing"
	"time"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/cmd/traineectl/internal/cmdutil"
)

// --expires takes whole spans of h, d, w, m (calendar months) and y, never
// minutes or fractions; a date is the last day the key works (refused from
// the next midnight), which stderr says; --overlap takes the same units.
func TestKeyExpiryAndOverlapSpans(t *testing.T) {
	srv := newAdminServer(t)
	h := newHarness(t, srv.url, srv.admin)
	expires := func(args ...string) (*time.Time, result) {
		t.Helper()
		r := h.run(append([]string{"keys", "create", "--name", "k", "--scope", "read", "--utc", "-o", "json"}, args...)...).expect(t, 0)
		return decode[api.APIKey](t, r).ExpiresAt, r
	}
	for span, want := range map[string]time.Time{
		"36h": testNow.Add(36 * time.Hour),
		"90d": testNow.AddDate(0, 0, 90),
		"6w":  testNow.AddDate(0, 0, 42),
		"3m":  time.Date(2027, 2, 21, 10, 0, 0, 0, time.UTC), // three months, not three minutes
		"1y":  time.Date(2027, 11, 21, 10, 0, 0, 0, time.UTC),
	} {
		if at, r := expires("--expires", span); at == nil || !at.Equal(want) {
			t.Errorf("--expires %s: %v, want %v\n%s", span, at, want, r)
		}
	}
	for _, date := range []string{"31-12-2026", "2026-12-31"} {
		at, r := expires("--expires", date)
		if at == nil || !at.Equal(time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)) ||
			!strings.Contains(r.err, "expires 2027-01-01 00:00 (works through 31-12-2026)") {
			t.Errorf("--expires %s: %v\n%s", date, at, r)
		}
	}
	if at, r := expires("--expires", "today"); at == nil || !at.Equal(time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("--expires today: %v\n%s", at, r)
	}
	n := srv.keyCount(t, h)
	for _, bad := range []string{"1.5h", "3min", "90s", "1h30m", "2M", "3 months", "0d", "101y"} {
		r := h.run("keys", "create", "--name", "x", "--scope", "read", "--expires", bad).expect(t, cmdutil.ExitUsage)
		if !strings.Contains(r.err, "--expires") {
			t.Errorf("--expires %s: %s", bad, r)
		}
	}
	if r := h.run("keys", "create", "--name", "x", "--scope", "read", "--expires", "1.5h").expect(t, cmdutil.ExitUsage); !strings.Contains(r.err, "a whole number and h (hours)") {
		t.Errorf("a fraction's error: %s", r)
	}
	if srv.keyCount(t, h) != n {
		t.Errorf("a refused --expires made a key")
	}

	// keys update says when the key expires.
	id := strings.TrimSpace(h.run("keys", "list", "--jq", `[.[] | select(.name == "k")][0].id`).expect(t, 0).out)
	r := h.run("keys", "update", id, "--expires", "31-12-2026", "--utc").expect(t, 0)
	if !strings.Contains(r.err, "expires 2027-01-01 00:00 (works through 31-12-2026)") {
		t.Errorf("keys update --expires: %s", r)
	}

	// --overlap: hours, days, weeks, up to 7d; m is months.
	for _, ok := range []string{"0", "2h", "2d", "1w"} {
		h.run("keys", "rotate", id, "--overlap", ok).expect(t, 0)
	}
	for _, bad := range []string{"30m", "1.5h", "8d", "2w", "1y", "90s"} {
		if r := h.run("keys", "rotate", id, "--overlap", bad).expect(t, cmdutil.ExitUsage); !strings.Contains(r.err, "--overlap") {
			t.Errorf("--overlap %s: %s", bad, r)
		}
	}

	for _, verb := range []string{"create", "update"} {
		r := h.run("keys", verb, "--help").expect(t, 0)
		if !strings.Contains(r.out, "3m") || !strings.Contains(r.out, "works through that day") {
			t.Errorf("keys %s --help does not say what --expires takes:\n%s", verb, r.out)
		}
	}
	if r := h.run("keys", "create", "--help").expect(t, 0); !strings.Contains(r.out, "calendar months") || !strings.Contains(r.out, "1.5h is refused") {
		t.Errorf("keys create --help:\n%s", r.out)
	}
}
