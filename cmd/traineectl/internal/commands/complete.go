package commands

import (
	"context"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/cmd/traineectl/internal/cmdutil"
)

// fixedValues completes a flag from a list ("value\tdescription").
func fixedValues(values ...string) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		return values, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveKeepOrder
	}
}

// completeDates offers the date words; withNone adds "none".
func completeDates(withNone bool) cobra.CompletionFunc {
	v := []string{"today\tthe local day", "yesterday\tthe day before"}
	if withNone {
		v = append(v, none+"\tclear the date")
	}
	return fixedValues(v...)
}

// completeProfiles offers the saved profile names: as the value of a flag,
// or as a command's only argument.
func completeProfiles(f *cmdutil.Factory, onlyArg bool) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if onlyArg && len(args) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		cfg, err := f.Config()
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		var out []cobra.Completion
		for _, n := range cfg.Names() {
			out = append(out, cobra.CompletionWithDesc(n, cfg.Profiles[n].BaseURL))
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}

// completionPages bounds how many pages of 100 an id completion reads.
const completionPages = 5

// completeTraineeIDs offers trainee ids with their names as descriptions.
// What has been typed is searched for: digits (or nothing) list the
// trainees whose id starts with them; anything else is a search query. The
// lookup gives up after cmdutil.CompletionTimeout and offers nothing on
// any error.
func completeTraineeIDs(f *cmdutil.Factory, status string, multi bool) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		const noFiles = cobra.ShellCompDirectiveNoFileComp
		if !multi && len(args) > 0 {
			return nil, noFiles
		}
		if err := bindGlobal(f, cmd); err != nil {
			return nil, noFiles
		}
		ctx := cmd.Context()
		if ctx == nil {
			ctx = context.Background()
		}
		ctx, cancel := context.WithTimeout(ctx, f.CompletionDeadline())
		defer cancel()
		c, err := f.CompletionClient()
		if err != nil {
			return nil, noFiles
		}
		given := map[string]bool{}
		for _, a := range args {
			given[a] = true
		}
		numeric := isDigits(toComplete)
		p := api.SearchParams{Status: status, Size: 100}
		if !numeric {
			p.Query = toComplete
		}
		var out []cobra.Completion
		for page := 0; page < completionPages; page++ {
			p.Page = page
			pg, err := c.SearchTrainees(ctx, p)
			if err != nil {
				return nil, noFiles
			}
			for _, t := range pg.Content {
				id := strconv.FormatInt(t.ID, 10)
				if given[id] || numeric && !strings.HasPrefix(id, toComplete) {
					continue
				}
				out = append(out, cobra.CompletionWithDesc(id, t.Name))
			}
			if page+1 >= pg.Page.TotalPages {
				break
			}
		}
		return out, noFiles
	}
}

func isDigits(s string) bool {
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
