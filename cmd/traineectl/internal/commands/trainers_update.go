package commands

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/client"
	"github.com/traineed/traineed/cmd/traineectl/internal/cmdutil"
)

// TrainersUpdateOptions are the inputs of `traineectl trainers update`.
type TrainersUpdateOptions struct {
	Trainer string // an id or a whole name
	Patch   api.TrainerPatch
}

func newTrainersUpdateCmd(f *cmdutil.Factory, runF func(*TrainersUpdateOptions) error) *cobra.Command {
	var o TrainersUpdateOptions
	var name, email string
	var activate bool
	cmd := &cobra.Command{
		Use:   "update ID|NAME [--name NAME] [--email EMAIL] [--activate]",
		Short: "Change a trainer's name or e-mail, or activate a trainer again (admin key)",
		Long: `Change a trainer: sends only the flags given. --activate makes a deactivated
trainer active again (able to take trainees); "traineectl trainers
deactivate" deactivates one. The keys bound to the trainer, disabled by the
deactivation, stay disabled: stderr names them, and "traineectl keys update
ID --enable" enables each that should work again.

The trainer is an id or a whole name of the company's trainers (another
exits 2, listing them). Needs an admin key: another key exits 7 (errorCode
1029).`,
		Example: `  traineectl trainers update 7 --email maya.brooks@example.com
  traineectl trainers update "Maya Brooks" --activate`,
		Args:              cmdutil.ExactArgs(1, "a trainer's id or name"),
		ValidArgsFunction: completeTrainerArg(f),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Trainer = args[0]
			o.Patch.Name = ifChanged(cmd.Flags(), "name", &name)
			o.Patch.Email = ifChanged(cmd.Flags(), "email", &email)
			if activate {
				o.Patch.Active = &activate
			}
			if o.Patch.Name == nil && o.Patch.Email == nil && o.Patch.Active == nil {
				return nothingChanged("--name, --email or --activate")
			}
			return runWith(cmd.Context(), f, &o, runF, runTrainersUpdate)
		},
	}
	cmd.Flags().StringVar(&name, "name", "", "the trainer's new name")
	cmd.Flags().StringVar(&email, "email", "", "the trainer's new e-mail address")
	cmd.Flags().BoolVar(&activate, "activate", false, "make a deactivated trainer active again")
	for _, n := range []string{"name", "email"} {
		_ = cmd.RegisterFlagCompletionFunc(n, cobra.NoFileCompletions)
	}
	return cmd
}

func runTrainersUpdate(ctx context.Context, f *cmdutil.Factory, o *TrainersUpdateOptions) error {
	if err := checkBody(o.Patch, func(b []byte) error { _, err := api.ParseTrainerPatch(b); return err }, nil); err != nil {
		return err
	}
	before, err := (&trainerBook{f: f}).find(ctx, "trainer", o.Trainer)
	if err != nil {
		return err
	}
	c, err := f.Client()
	if err != nil {
		return err
	}
	t, err := c.UpdateTrainer(ctx, before.ID, o.Patch)
	if err != nil {
		return err
	}
	noteDone(f, "Updated", "trainer", t.ID, t.Name)
	if !before.Active && t.Active {
		fmt.Fprintln(f.IOStreams.ErrOut, activatedNote(ctx, f, t))
	}
	return f.Print(trainersView([]api.TrainerSummary{*t}, true))
}

// activatedNote says that an activated trainer's keys stay disabled (the
// deactivation disabled them), naming those the company's list shows,
// and how to enable them.
func activatedNote(ctx context.Context, f *cmdutil.Factory, t *api.TrainerSummary) string {
	note := fmt.Sprintf("Trainer %s is active again; their keys stay disabled", api.EscapeText(trainerText(t, t.ID)))
	c, err := f.Client()
	var ks []*api.APIKey
	if err == nil {
		ks, err = client.Collect(c.ListKeys(ctx, client.KeyListParams{State: api.KeyDisabled}))
	}
	if err != nil {
		return note + " (`traineectl keys list --state disabled` lists them). Enable each that should work again with `traineectl keys update ID --enable`."
	}
	var ids []int64
	for _, k := range ks {
		if k.TrainerID != nil && *k.TrainerID == t.ID {
			ids = append(ids, k.ID)
		}
	}
	switch len(ids) {
	case 0:
		return fmt.Sprintf("Trainer %s is active again; no disabled key is bound to them", api.EscapeText(trainerText(t, t.ID)))
	case 1:
		note += ": key " + keyNames(ctx, f, ids)
	default:
		note += ": keys " + keyNames(ctx, f, ids)
	}
	return note + ". Enable each that should work again with `traineectl keys update ID --enable`."
}
