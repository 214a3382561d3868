package commands

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/client"
	"github.com/traineed/traineed/cmd/traineectl/internal/cmdutil"
	"github.com/traineed/traineed/cmd/traineectl/internal/output"
)

func newTrainersCmd(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "trainers [list]",
		Short: "List your company's trainers",
		Long: `Your company's trainers: the ids that "--trainer" takes and that trainees'
trainerId names. Tables of trainees show trainers by name. Alone, it lists
them, as "trainers list" does.`,
		Example: `  traineectl trainers
  traineectl trainers list --jq '.[] | select(.name == "Coach Carter") | .id'`,
		// Alone it lists (a group's help is one --help away); an unknown
		// subcommand is still a usage error, as in every other group.
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return unknownSubcommand(cmd, args[0])
			}
			return runTrainersList(cmd.Context(), f, &TrainersListOptions{})
		},
	}
	cmd.AddCommand(newTrainersListCmd(f))
	return cmd
}

// TrainersListOptions are the inputs of `traineectl trainers list`: none.
type TrainersListOptions struct{}

func newTrainersListCmd(f *cmdutil.Factory) *cobra.Command {
	return &cobra.Command{
		Use:     "list",
		Aliases: []string{"ls"},
		Short:   "List the trainers: id, name and e-mail",
		Example: `  traineectl trainers list
  traineectl trainers list -o json`,
		Args: cmdutil.ExactArgs(0, "none"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runTrainersList(cmd.Context(), f, &TrainersListOptions{})
		},
	}
}

// runTrainersList prints the company's trainers.
func runTrainersList(ctx context.Context, f *cmdutil.Factory, _ *TrainersListOptions) error {
	c, err := f.Client()
	if err != nil {
		return err
	}
	ts, err := c.Trainers(ctx)
	if err != nil {
		return err
	}
	return f.Print(trainersView(ts))
}

func trainersView(ts []api.TrainerSummary) output.View {
	rows := make([][]string, len(ts))
	for i, t := range ts {
		rows[i] = []string{strconv.FormatInt(t.ID, 10), t.Name, t.Email}
	}
	return output.View{
		Value: ts, CSVHeader: []string{"id", "name", "email"}, CSVRows: rows,
		Columns: []output.Column{
			{Header: "ID", Field: "id", Right: true},
			{Header: "NAME", Field: "name", Flex: true, MinWidth: 10},
			{Header: "EMAIL", Field: "email", Flex: true, MinWidth: 12},
		},
		Rows: rows,
	}
}

// resolveTrainer reads a --trainer value: a whole number is a trainer id,
// sent as it is (the server checks it: 1010); anything else is a trainer's
// name, looked up in GET /public-api/trainers, case-insensitive and whole.
// No trainer of that name, or several, is a usage error that lists the
// company's trainers.
func resolveTrainer(ctx context.Context, f *cmdutil.Factory, text string) (string, error) {
	text = strings.TrimSpace(text)
	if isWholeNumber(text) {
		return text, nil
	}
	c, err := f.Client()
	if err != nil {
		return "", err
	}
	ts, err := c.Trainers(ctx)
	if rej := (*client.RejectedError)(nil); errors.As(err, &rej) && rej.Status == http.StatusNotFound {
		return "", cmdutil.Usagef("--trainer %q: this server cannot look a trainer up by name: give the trainer's id", text)
	}
	if err != nil {
		return "", fmt.Errorf("--trainer %q: reading the trainers to find that name: %w", text, err)
	}
	var named []api.TrainerSummary
	for _, t := range ts {
		if strings.EqualFold(strings.TrimSpace(t.Name), text) {
			named = append(named, t)
		}
	}
	switch {
	case len(named) == 1:
		return strconv.FormatInt(named[0].ID, 10), nil
	case len(named) > 1:
		return "", cmdutil.Usagef("--trainer: %d trainers are named %q: %s; give the id", len(named), text, trainerListText(named))
	case len(ts) == 0:
		return "", cmdutil.Usagef("--trainer: no trainer is named %q: your company has no trainers", text)
	}
	return "", cmdutil.Usagef("--trainer: no trainer is named %q%s; your company's trainers (id name): %s",
		text, didYouMean(ts, text), trainerListText(ts))
}

// isWholeNumber reports whether a --trainer value is an id rather than a
// name (as the flag reads an id: 7, 0x7).
func isWholeNumber(text string) bool {
	_, err := strconv.ParseInt(strings.TrimSpace(text), 0, 64)
	return err == nil
}

// didYouMean names the one trainer whose name starts with text, if there
// is exactly one.
func didYouMean(ts []api.TrainerSummary, text string) string {
	var hit *api.TrainerSummary
	for i, t := range ts {
		if len(text) <= len(t.Name) && strings.EqualFold(t.Name[:len(text)], text) {
			if hit != nil {
				return ""
			}
			hit = &ts[i]
		}
	}
	if hit == nil {
		return ""
	}
	return fmt.Sprintf(" (did you mean %q, id %d?)", api.EscapeText(hit.Name), hit.ID)
}

// trainerListText is "7 Maya Brooks, 9 Hannah Okoye": at most 20 trainers,
// then how many more ("traineectl trainers" lists them all).
func trainerListText(ts []api.TrainerSummary) string {
	const most = 20
	parts := make([]string, 0, min(len(ts), most)+1)
	for i, t := range ts {
		if i == most {
			parts = append(parts, fmt.Sprintf("and %d more (traineectl trainers lists them)", len(ts)-most))
			break
		}
		parts = append(parts, fmt.Sprintf("%d %s", t.ID, api.EscapeText(t.Name)))
	}
	return strings.Join(parts, ", ")
}

// completeTrainerIDs offers the company's trainer ids, with their names,
// for --trainer (the trainee ids on the command line do not count).
func completeTrainerIDs(f *cmdutil.Factory) cobra.CompletionFunc {
	ids := completeIDs(f, false, func(ctx context.Context, c *client.Client, _ string) ([]idCandidate, error) {
		ts, err := c.Trainers(ctx)
		out := make([]idCandidate, len(ts))
		for i, t := range ts {
			out[i] = idCandidate{t.ID, t.Name}
		}
		return out, err
	})
	return func(cmd *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		return ids(cmd, nil, toComplete)
	}
}
