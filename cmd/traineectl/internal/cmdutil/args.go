package cmdutil

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"
	"github.com/traineed/traineed/api"
)

// ParseDate reads a date of the command line (api.ParseDateInput: dd-MM-yyyy,
// yyyy-MM-dd, today or yesterday, the local day of now); a bad one is a
// usage error.
func ParseDate(s string, now time.Time) (api.Date, error) {
	d, err := api.ParseDateInput(s, now)
	if err != nil {
		return api.Date{}, Usagef("%v", err)
	}
	return d, nil
}

// ParseID reads a trainee id.
func ParseID(s string) (int64, error) {
	id, ok := api.ParseID(s)
	if !ok {
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
			return Usagef("%s wants %s (%s), got %d", cmd.CommandPath(), arguments(n), what, len(args))
		}
		return nil
	}
}

// MinArgs wants at least n arguments.
func MinArgs(n int, what string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) < n {
			return Usagef("%s wants at least %s (%s)", cmd.CommandPath(), arguments(n), what)
		}
		return nil
	}
}

// MaxArgs wants at most n arguments.
func MaxArgs(n int, what string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) > n {
			return Usagef("%s takes at most %s (%s), got %d", cmd.CommandPath(), arguments(n), what, len(args))
		}
		return nil
	}
}

// arguments is "1 argument" or "N arguments".
func arguments(n int) string {
	if n == 1 {
		return "1 argument"
	}
	return fmt.Sprintf("%d arguments", n)
}
