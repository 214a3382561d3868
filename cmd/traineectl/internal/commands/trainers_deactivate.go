package commands

import (
	"context"
	"errors"

	"github.com/spf13/cobra"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/client"
	"github.com/traineed/traineed/cmd/traineectl/internal/cmdutil"
)

// TrainersDeactivateOptions are the inputs of `traineectl trainers
// deactivate`.
type TrainersDeactivateOptions struct {
	Trainer    string // an id or a whole name
	ReassignTo string // "": none
}

func newTrainersDeactivateCmd(f *cmdutil.Factory) *cobra.Command {
	var o TrainersDeactivateOptions
	cmd := &cobra.Command{
		Use:   "deactivate ID|NAME [--reassign-to ID|NAME]",
		Short: "Deactivate a trainer, handing their trainees to another (admin key)",
		Long: `Deactivate a trainer: they stay in the list (and in the trainees' history) but
take no trainees ("traineectl trainers update ID --activate" undoes it).

A trainer who still has trainees (soft-deleted ones count) is refused
(exit status 5, errorCode 1033) unless --reassign-to names the trainer who
takes them over: the trainees move and the trainer is deactivated in one
step. Both take an id or a whole name of the company's trainers (another
exits 2, listing them). Needs an admin key: another key exits 7 (errorCode
1029).`,
		Example: `  traineectl trainers deactivate 7
  traineectl trainers deactivate "Maya Brooks" --reassign-to "Sam Coach"`,
		Args:              cmdutil.ExactArgs(1, "a trainer's id or name"),
		ValidArgsFunction: completeTrainerArg(f),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Trainer = args[0]
			if cmd.Flags().Changed("reassign-to") && o.ReassignTo == "" {
				return cmdutil.Usagef("--reassign-to wants a trainer's id or name")
			}
			return runTrainersDeactivate(cmd.Context(), f, &o)
		},
	}
	cmd.Flags().StringVar(&o.ReassignTo, "reassign-to", "", "the trainer (id or whole name) who takes over the trainees")
	_ = cmd.RegisterFlagCompletionFunc("reassign-to", completeTrainerIDs(f))
	return cmd
}

func runTrainersDeactivate(ctx context.Context, f *cmdutil.Factory, o *TrainersDeactivateOptions) error {
	book := &trainerBook{f: f}
	t, err := book.find(ctx, "trainer", o.Trainer)
	if err != nil {
		return err
	}
	off := false
	p := api.TrainerPatch{Active: &off}
	if o.ReassignTo != "" {
		to, err := book.find(ctx, "--reassign-to", o.ReassignTo)
		if err != nil {
			return err
		}
		p.ReassignTo = &to.ID
	}
	err = patchTrainer(ctx, f, t.ID, p, "Deactivated")
	var rej *client.RejectedError
	if errors.As(err, &rej) && rej.ErrorCode == api.CodeTrainerHasTrainees {
		return &cmdutil.HintError{Err: err, Hint: "give --reassign-to ID|NAME, the trainer who takes the trainees over (`traineectl trainers` lists them); nothing was changed"}
	}
	return err
}
