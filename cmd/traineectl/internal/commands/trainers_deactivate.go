package commands

import (
	"context"
	"errors"
	"fmt"
	"strings"

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

func newTrainersDeactivateCmd(f *cmdutil.Factory, runF func(*TrainersDeactivateOptions) error) *cobra.Command {
	var o TrainersDeactivateOptions
	cmd := &cobra.Command{
		Use:   "deactivate ID|NAME [--reassign-to ID|NAME]",
		Short: "Deactivate a trainer, handing their trainees to another (admin key)",
		Long: `Deactivate a trainer: they stay in the list (and in the trainees' history) but
take no trainees ("traineectl trainers update ID --activate" undoes it). The
keys bound to the trainer are disabled with them; stderr names them, and how
many trainees moved to whom: "Deactivated trainer 5 (Leo Coach): moved 20
trainees to Hannah Okoye (3); disabled keys 9 (Leo tablet), 11 (Leo phone)".
A trainer who is inactive already is left as they are (exit status 0).

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
			return runWith(cmd.Context(), f, &o, runF, runTrainersDeactivate)
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
	var to *api.TrainerSummary
	if o.ReassignTo != "" {
		if to, err = book.find(ctx, "--reassign-to", o.ReassignTo); err != nil {
			return err
		}
	}
	if !t.Active {
		fmt.Fprintf(f.IOStreams.ErrOut, "Trainer %s was already inactive; nothing was changed.\n", api.EscapeText(trainerText(t, t.ID)))
		return f.Print(trainersView([]api.TrainerSummary{*t}, true))
	}
	var reassignTo *int64
	if to != nil {
		reassignTo = &to.ID
	}
	c, err := f.Client()
	if err != nil {
		return err
	}
	env, err := c.DeactivateTrainer(ctx, t.ID, reassignTo)
	var rej *client.RejectedError
	if errors.As(err, &rej) && rej.ErrorCode == api.CodeTrainerHasTrainees {
		return &cmdutil.HintError{Err: err, Hint: "give --reassign-to ID|NAME, the trainer who takes the trainees over (`traineectl trainers` lists them); nothing was changed"}
	}
	if err != nil {
		return err
	}
	fmt.Fprintln(f.IOStreams.ErrOut, deactivatedNote(ctx, f, env, to))
	v := trainersView([]api.TrainerSummary{*env.Trainer}, true)
	v.Value = deactivated{env.Trainer, env.Moved, env.DisabledKeys}
	return f.Print(v)
}

// deactivated is what `trainers deactivate` prints in JSON and YAML: the
// trainer, with what the deactivation did.
type deactivated struct {
	*api.TrainerSummary
	Moved        *int    `json:"moved,omitempty"`
	DisabledKeys []int64 `json:"disabledKeys,omitempty"`
}

// deactivatedNote says what a deactivation did: "Deactivated trainer Leo
// Coach (5): moved 20 trainees to Hannah Okoye (3); disabled keys 9 (Leo
// tablet), 11 (Leo phone)". The keys are named from the company's list
// (by id alone when it cannot be read).
func deactivatedNote(ctx context.Context, f *cmdutil.Factory, env *api.TrainerEnvelope, to *api.TrainerSummary) string {
	note := "Deactivated trainer " + api.EscapeText(trainerText(env.Trainer, env.Trainer.ID))
	var did []string
	if env.Moved != nil && to != nil {
		did = append(did, fmt.Sprintf("moved %s to %s", trainees(int64(*env.Moved)), api.EscapeText(trainerText(to, to.ID))))
	}
	switch len(env.DisabledKeys) {
	case 0:
		did = append(did, "no key of theirs to disable")
	case 1:
		did = append(did, "disabled key "+keyNames(ctx, f, env.DisabledKeys))
	default:
		did = append(did, "disabled keys "+keyNames(ctx, f, env.DisabledKeys))
	}
	return note + ": " + strings.Join(did, "; ")
}

// keyNames is "9 (Leo tablet), 11 (Leo phone)": the keys' ids with their
// names as the company's keys list gives them (ids alone when it cannot
// be read).
func keyNames(ctx context.Context, f *cmdutil.Factory, ids []int64) string {
	names := map[int64]string{}
	if c, err := f.Client(); err == nil {
		if ks, err := client.Collect(c.ListKeys(ctx, client.KeyListParams{State: "all"})); err == nil {
			for _, k := range ks {
				names[k.ID] = k.Name
			}
		}
	}
	parts := make([]string, len(ids))
	for i, kid := range ids {
		parts[i] = id(kid)
		if n, ok := names[kid]; ok {
			parts[i] += " (" + api.EscapeText(n) + ")"
		}
	}
	return strings.Join(parts, ", ")
}
