package commands

import (
	"context"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/traineed/traineed/api"
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
