package commands

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/cmd/traineectl/internal/cmdutil"
)

// TrainersGetOptions are the inputs of `traineectl trainers get`.
type TrainersGetOptions struct {
	Trainer string // an id or a whole name
}

func newTrainersGetCmd(f *cmdutil.Factory, runF func(*TrainersGetOptions) error) *cobra.Command {
	var o TrainersGetOptions
	return &cobra.Command{
		Use:   "get ID|NAME",
		Short: "Show a trainer",
		Long: `Show one trainer: id, name, e-mail, whether active and how many live
trainees. The trainer is its id or its whole name, in any case, looked up
in the company's trainers: one that is not among them exits with status 2,
listing them.`,
		Example: `  traineectl trainers get 7
  traineectl trainers get "maya brooks" -o json`,
		Args:              cmdutil.ExactArgs(1, "a trainer's id or name"),
		ValidArgsFunction: completeTrainerArg(f),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Trainer = args[0]
			return runWith(cmd.Context(), f, &o, runF, runTrainersGet)
		},
	}
}

func runTrainersGet(ctx context.Context, f *cmdutil.Factory, o *TrainersGetOptions) error {
	t, err := (&trainerBook{f: f}).find(ctx, "trainer", o.Trainer)
	if err != nil {
		return err
	}
	return f.Print(trainersView([]api.TrainerSummary{*t}, true))
}
