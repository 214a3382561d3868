package commands

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/cmd/traineectl/internal/cmdutil"
	"github.com/traineed/traineed/cmd/traineectl/internal/output"
)

// TrainersReassignOptions are the inputs of `traineectl trainers
// reassign`.
type TrainersReassignOptions struct {
	From, To string // ids or whole names
	Yes      bool
}

func newTrainersReassignCmd(f *cmdutil.Factory, runF func(*TrainersReassignOptions) error) *cobra.Command {
	var o TrainersReassignOptions
	cmd := &cobra.Command{
		Use:   "reassign FROM --to ID|NAME [--yes]",
		Short: "Move every trainee of one trainer to another (admin key)",
		Long: `Move every trainee of trainer FROM (soft-deleted ones included) to the trainer
--to, in one step on the server: each moved trainee gets a trainee.updated
event, as a bulk update gives. FROM stays active. Both take an id or a
trainer's whole name of the company's trainers (another exits 2, listing
them).

On a terminal you are asked to confirm, with the number of trainees;
elsewhere --yes is required. Answered no, or without --yes off a terminal,
nothing is moved and the exit status is 2. A --to trainer who is deactivated is refused (exit status 5,
errorCode 1035). Needs an admin key: another key exits 7 (errorCode 1029).`,
		Example: `  traineectl trainers reassign "Maya Brooks" --to "Sam Coach"
  traineectl trainers reassign 7 --to 9 --yes -o json`,
		Args:              cmdutil.ExactArgs(1, "the trainer whose trainees move: id or name"),
		ValidArgsFunction: completeTrainerArg(f),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.From = args[0]
			return runWith(cmd.Context(), f, &o, runF, runTrainersReassign)
		},
	}
	cmd.Flags().StringVar(&o.To, "to", "", "the trainer (id or whole name) who takes the trainees over (required)")
	cmd.Flags().BoolVarP(&o.Yes, "yes", "y", false, "move without asking")
	_ = cmd.MarkFlagRequired("to")
	_ = cmd.RegisterFlagCompletionFunc("to", completeTrainerIDs(f))
	return cmd
}

func runTrainersReassign(ctx context.Context, f *cmdutil.Factory, o *TrainersReassignOptions) error {
	if !o.Yes && !f.IOStreams.CanPrompt() {
		return cmdutil.Usagef("refusing to move trainees without --yes when stdin is not a terminal; nothing was moved")
	}
	book := &trainerBook{f: f}
	from, err := book.find(ctx, "trainer", o.From)
	if err != nil {
		return err
	}
	to, err := book.find(ctx, "--to", o.To)
	if err != nil {
		return err
	}
	c, err := f.Client()
	if err != nil {
		return err
	}
	if !o.Yes {
		if err := confirmReassign(ctx, f, from, to); err != nil {
			return err
		}
	}
	r, err := c.ReassignTrainees(ctx, from.ID, to.ID)
	if err != nil {
		return err
	}
	fromText, toText := trainerText(r.From, from.ID), trainerText(r.To, to.ID)
	if f.IOStreams.StdoutTTY {
		fmt.Fprintf(f.IOStreams.ErrOut, "Moved %s from %s to %s\n", trainees(int64(r.Moved)), api.EscapeText(fromText), api.EscapeText(toText))
	}
	return f.Print(output.View{Value: output.Omit(r, "timestamp"),
		CSVHeader: []string{"from", "to", "moved"}, CSVRows: [][]string{{id(from.ID), id(to.ID), fmt.Sprint(r.Moved)}},
		Columns: []output.Column{{Header: "FROM", Field: "from", Flex: true}, {Header: "TO", Field: "to", Flex: true}, {Header: "MOVED", Field: "moved", Right: true}},
		Rows:    [][]string{{fromText, toText, fmt.Sprint(r.Moved)}}})
}

// confirmReassign asks, naming both trainers and how many trainees move
// (the live ones, as GET /trainers/{id} counts them).
func confirmReassign(ctx context.Context, f *cmdutil.Factory, from, to *api.TrainerSummary) error {
	if from.Trainees == nil {
		if c, err := f.Client(); err == nil {
			if counted, err := c.Trainer(ctx, from.ID); err == nil {
				from = counted
			}
		}
	}
	q := fmt.Sprintf("Move every trainee of trainer %s to trainer %s?", api.EscapeText(trainerText(from, from.ID)), api.EscapeText(trainerText(to, to.ID)))
	if from.Trainees != nil {
		q = fmt.Sprintf("Move the %s of trainer %s, and any soft-deleted ones, to trainer %s?", trainees(int64(*from.Trainees)),
			api.EscapeText(trainerText(from, from.ID)), api.EscapeText(trainerText(to, to.ID)))
	}
	ok, err := f.Confirm(ctx, q)
	if err != nil {
		return err
	}
	if !ok {
		return cmdutil.Declinedf("not confirmed; nothing was moved")
	}
	return nil
}

// trainerText is "Maya Brooks (7)", or the id alone when the trainer is
// not known.
func trainerText(t *api.TrainerSummary, id int64) string {
	if t == nil {
		return fmt.Sprint(id)
	}
	return fmt.Sprintf("%s (%d)", t.Name, t.ID)
}
