package commands

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/cmd/traineectl/internal/cmdutil"
)

// TrainersCreateOptions are the inputs of `traineectl trainers create`.
type TrainersCreateOptions struct {
	Trainer api.NewTrainer
}

func newTrainersCreateCmd(f *cmdutil.Factory, runF func(*TrainersCreateOptions) error) *cobra.Command {
	var o TrainersCreateOptions
	cmd := &cobra.Command{
		Use:   "create --name NAME --email EMAIL",
		Short: "Add a trainer (admin key)",
		Long: `Add a trainer to the company, active, and print it. The name and e-mail
address follow a trainee's rules (1 to 100 characters; a valid address),
checked before anything is sent. Needs an admin key: another key exits 7
(errorCode 1029).

Give the new trainer a key of their own with "traineectl keys create
--trainer NAME": their changes then carry their name in the event feed.`,
		Example: `  traineectl trainers create --name "Sam Coach" --email sam@example.com
  traineectl keys create --name "Sam's phone" --scope full --trainer "Sam Coach" --save-profile sam`,
		Args: cmdutil.ExactArgs(0, "none"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runWith(cmd.Context(), f, &o, runF, runTrainersCreate)
		},
	}
	cmd.Flags().StringVar(&o.Trainer.Name, "name", "", "the trainer's name (required)")
	cmd.Flags().StringVar(&o.Trainer.Email, "email", "", "the trainer's e-mail address (required)")
	_ = cmd.MarkFlagRequired("name")
	_ = cmd.MarkFlagRequired("email")
	for _, n := range []string{"name", "email"} {
		_ = cmd.RegisterFlagCompletionFunc(n, cobra.NoFileCompletions)
	}
	return cmd
}

func runTrainersCreate(ctx context.Context, f *cmdutil.Factory, o *TrainersCreateOptions) error {
	if err := checkBody(o.Trainer, func(b []byte) error { _, err := api.ParseNewTrainer(b); return err }, nil); err != nil {
		return err
	}
	c, err := f.Client()
	if err != nil {
		return err
	}
	t, err := c.CreateTrainer(ctx, o.Trainer)
	if err != nil {
		return err
	}
	noteDone(f, "Created", "trainer", t.ID, t.Name)
	return f.Print(trainersView([]api.TrainerSummary{*t}, true))
}
