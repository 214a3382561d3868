// Package output prints traineectl's results as a table, JSON, YAML or
// CSV, with --jq, --template and --fields: what each resource's columns
// are, and how a list streams. The writing itself, and its escaping, is
// cmd/internal/textout's, which traineed's commands print through too.
package output

import (
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/cmd/internal/textout"
)

// Format is an output format of -o.
type Format string

// The formats.
const (
	Table Format = "table"
	JSON  Format = "json"
	YAML  Format = "yaml"
	CSV   Format = "csv"
)

// Formats lists every format, for help and completion.
var Formats = []string{string(Table), string(JSON), string(YAML), string(CSV)}

// ParseFormat checks a -o value.
func ParseFormat(s string) (Format, error) {
	for _, f := range Formats {
		if strings.EqualFold(s, f) {
			return Format(f), nil
		}
	}
	return "", fmt.Errorf("invalid output format %q: use table, json, yaml or csv", s)
}

// Column is a table column: the one writer's (textout), which prints
// every format.
type Column = textout.Column

// Count is "1 event" or "N events": n and the noun, singular or plural
// (many is the plural: "deliveries").
func Count[N ~int | ~int64](n N, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// zone is where Stamp shows instants: local, or UTC with --utc.
var zone atomic.Pointer[time.Location]

// SetZone sets where Stamp shows instants (the root command does, from
// --utc, at every run).
func SetZone(loc *time.Location) { zone.Store(loc) }

// Stamp is an instant as tables and notes show it: api.ShownTimeLayout in
// the zone SetZone chose (local by default).
func Stamp(t time.Time) string {
	loc := zone.Load()
	if loc == nil {
		loc = time.Local
	}
	return t.In(loc).Format(api.ShownTimeLayout)
}

// Instant is an instant as CSV writes it: RFC 3339 in UTC, as JSON and
// YAML do.
func Instant(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }
