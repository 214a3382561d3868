package commands

import (
	"context"
	"iter"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/client"
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

// idCandidate is an id a completion may offer, with its description.
type idCandidate struct {
	id   int64
	desc string
}

// completeListIDs offers the ids of every resource a list yields, each
// described by describe (a name, a URL): completeIDs over a list.
func completeListIDs[T any](f *cmdutil.Factory, multi bool,
	list func(ctx context.Context, c *client.Client) iter.Seq2[*T, error],
	describe func(*T) idCandidate) cobra.CompletionFunc {
	return completeIDs(f, multi, func(ctx context.Context, c *client.Client, _ string) ([]idCandidate, error) {
		rs, err := client.Collect(list(ctx, c))
		out := make([]idCandidate, len(rs))
		for i, r := range rs {
			out[i] = describe(r)
		}
		return out, err
	})
}

// completeIDs is the skeleton of every id completion: only digits (or
// nothing) are completed, since shells keep only the candidates that start
// with the typed word; list runs under the completion deadline with the
// completion client, and offers nothing on an error; an id already on the
// command line (multi) or already offered is left out. Descriptions (a
// name, a URL) are shown escaped (api.EscapeText).
func completeIDs(f *cmdutil.Factory, multi bool,
	list func(ctx context.Context, c *client.Client, toComplete string) ([]idCandidate, error)) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		const noFiles = cobra.ShellCompDirectiveNoFileComp
		if !multi && len(args) > 0 || !isDigits(toComplete) {
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
		cands, err := list(ctx, c, toComplete)
		if err != nil {
			return nil, noFiles
		}
		offered := map[string]bool{}
		for _, a := range args {
			offered[a] = true
		}
		var out []cobra.Completion
		for _, cand := range cands {
			id := strconv.FormatInt(cand.id, 10)
			if !offered[id] && strings.HasPrefix(id, toComplete) {
				offered[id] = true
				out = append(out, cobra.CompletionWithDesc(id, api.EscapeText(cand.desc)))
			}
		}
		return out, noFiles
	}
}

// completeTraineeIDs offers trainee ids with their names as descriptions:
// digits (or nothing) list the trainees whose id starts with them, among
// the first completionPages×100 of the status; a whole id is also read
// directly, so that it is offered whenever it exists (and is of the
// status).
func completeTraineeIDs(f *cmdutil.Factory, status string, multi bool) cobra.CompletionFunc {
	return completeIDs(f, multi, func(ctx context.Context, c *client.Client, toComplete string) ([]idCandidate, error) {
		var out []idCandidate
		if id, ok := api.ParseID(toComplete); ok {
			// A whole id: found even beyond the pages read below.
			if t, err := c.Trainee(ctx, id); err == nil && t != nil && hasStatus(t, status, f.Today()) {
				out = append(out, idCandidate{t.ID, t.Name})
			}
		}
		for t, err := range c.ListTrainees(ctx, client.SearchParams{Status: status, Size: 100, Max: completionPages * 100}) {
			if err != nil {
				return nil, err
			}
			out = append(out, idCandidate{t.ID, t.Name})
		}
		return out, nil
	})
}

// hasStatus reports whether t belongs in a search of status.
func hasStatus(t *api.Trainee, status string, today api.Date) bool { return t.HasStatus(status, today) }

func isDigits(s string) bool {
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
