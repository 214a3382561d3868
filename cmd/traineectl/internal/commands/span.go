package commands

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// span is a stretch of calendar time as people type it: a whole number
// and a unit, h (hours), d (days), w (weeks), m (calendar months) or y
// (years): 36h, 90d, 6w, 3m, 1y. There are no fractions (1.5h) and no Go
// durations: 3m is three months, never three minutes. keys --expires and
// --overlap read it (and so can --extend, issue 38).
type span struct {
	n    int
	unit byte
}

// spanUnits says what parseSpan takes, for help and errors.
const spanUnits = "a whole number and h (hours), d (days), w (weeks), m (months) or y (years): 36h, 90d, 6w, 3m, 1y"

var (
	spanPattern = regexp.MustCompile(`^([0-9]+)([hdwmy])$`)
	// spanLike is what was meant as a span (a number and letters), so
	// that its error says what a span is.
	spanLike = regexp.MustCompile(`^[0-9.,]+\s*[a-zA-Zµ]+$`)
)

// maxSpanCount bounds n, far above any expiry a server takes.
const maxSpanCount = 1_000_000

// parseSpan reads a span; ok is false when s does not look like one (a
// date, a time), err set when it does but is not one (1.5h, 90min, 3M).
func parseSpan(s string) (sp span, ok bool, err error) {
	s = strings.TrimSpace(s)
	m := spanPattern.FindStringSubmatch(s)
	if m == nil {
		if spanLike.MatchString(s) {
			return span{}, true, fmt.Errorf("%q is not a span: give %s", s, spanUnits)
		}
		return span{}, false, nil
	}
	n, err := strconv.Atoi(m[1])
	if err != nil || n > maxSpanCount {
		return span{}, true, fmt.Errorf("%q is too long", s)
	}
	return span{n, m[2][0]}, true, nil
}

// after is the instant sp after t: hours exactly, days and weeks on t's
// calendar (the same time of day), months and years too, a day past the
// end of a shorter month being its last day (31-01 plus 1m is 28-02 or
// 29-02).
func (sp span) after(t time.Time) time.Time {
	switch sp.unit {
	case 'h':
		return t.Add(time.Duration(sp.n) * time.Hour)
	case 'd':
		return t.AddDate(0, 0, sp.n)
	case 'w':
		return t.AddDate(0, 0, 7*sp.n)
	case 'y':
		return addMonths(t, 12*sp.n)
	}
	return addMonths(t, sp.n)
}

// addMonths is t n calendar months later, on the month's last day when
// t's day is past it.
func addMonths(t time.Time, n int) time.Time {
	y, m, d := t.Date()
	last := time.Date(y, m+time.Month(n)+1, 0, 0, 0, 0, 0, t.Location()).Day()
	return time.Date(y, m+time.Month(n), min(d, last), t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), t.Location())
}

// duration is sp as a fixed length, for an overlap: hours, days and
// weeks of up to a year (ok false for months and years, whose length
// varies, and for longer spans).
func (sp span) duration() (d time.Duration, ok bool) {
	per := map[byte]time.Duration{'h': time.Hour, 'd': 24 * time.Hour, 'w': 7 * 24 * time.Hour}[sp.unit]
	d = time.Duration(sp.n) * per
	return d, per != 0 && sp.n <= 366*24 && d <= 366*24*time.Hour
}
