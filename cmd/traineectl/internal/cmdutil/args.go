package cmdutil

import (
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/traineed/traineed/api"
)

// ParseDate reads a date of the command line: dd-MM-yyyy, yyyy-MM-dd,
// today or yesterday (the local day of now).
func ParseDate(s string, now time.Time) (api.Date, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "today":
		return api.DateOf(now), nil
	case "yesterday":
		return api.DateOf(now).AddDays(-1), nil
	}
	if d, err := api.ParseDate(s); err == nil {
		return d, nil
	}
	if len(s) == len("2006-01-02") {
		if t, err := time.Parse("2006-01-02", s); err == nil {
			return api.DateOf(t), nil
		}
	}
	return api.Date{}, Usagef("invalid date %q: use dd-MM-yyyy, yyyy-MM-dd, today or yesterday", s)
}

// ParseID reads a trainee id.
func ParseID(s string) (int64, error) {
	id, err := strconv.ParseInt(s, 10, 64)
	if err != nil || id <= 0 {
		return 0, Usagef("invalid trainee id %q: ids are positive integers", s)
	}
	return id, nil
}

// ParseIDs reads several trainee ids.
func ParseIDs(args []string) ([]int64, error) {
	ids := make([]int64, len(args))
	for i, a := range args {
		id, err := ParseID(a)
		if err != nil {
			return nil, err
		}
		ids[i] = id
	}
	return ids, nil
}

// ExactArgs wants exactly n arguments, named in the error.
func ExactArgs(n int, what string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) != n {
			return Usagef("%s wants %d argument(s) (%s), got %d", cmd.CommandPath(), n, what, len(args))
		}
		return nil
	}
}

// MinArgs wants at least n arguments.
func MinArgs(n int, what string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) < n {
			return Usagef("%s wants at least %d argument(s) (%s)", cmd.CommandPath(), n, what)
		}
		return nil
	}
}

// MaxArgs wants at most n arguments.
func MaxArgs(n int, what string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) > n {
			return Usagef("%s takes at most %d argument(s) (%s), got %d", cmd.CommandPath(), n, what, len(args))
		}
		return nil
	}
}
