package commands

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/client"
	"github.com/traineed/traineed/cmd/traineectl/internal/cmdutil"
)

// AutomationsUpdateOptions are the inputs of `traineectl automations update`.
type AutomationsUpdateOptions struct {
	ID    int64
	Flags automationFlags
}

func newAutomationsUpdateCmd(f *cmdutil.Factory, runF func(*AutomationsUpdateOptions) error) *cobra.Command {
	var o AutomationsUpdateOptions
	c := &cobra.Command{
		Use:   "update ID [flags] [-f FILE]",
		Short: "Change an automation",
		Long: `Change the members of an automation that the flags (or the file's members)
give; the others keep their value. --trainer none and --status none remove
a condition. An automation that becomes a WEBHOOK gets a new secret, shown
once as on create.`,
		Example: `  traineectl automations update 7 --days 3
  traineectl automations update 7 --status none --trainer 12`,
		Args:              cmdutil.ExactArgs(1, "an automation id"),
		ValidArgsFunction: completeAutomationIDs(f, false),
		RunE: func(cmd *cobra.Command, args []string) (err error) {
			if o.ID, err = cmdutil.ParseID(args[0]); err != nil {
				return err
			}
			o.Flags.recordSet(cmd.Flags().Changed)
			return runWith(cmd.Context(), f, &o, runF, runAutomationsUpdate)
		},
	}
	o.Flags.register(c, false, completeTrainerIDs(f))
	return c
}

func runAutomationsUpdate(ctx context.Context, f *cmdutil.Factory, o *AutomationsUpdateOptions) error {
	return o.Flags.send(ctx, f, "nothing to change: give at least one flag or -f FILE", "Updated",
		withAutomationParams(func(c *client.Client, p client.AutomationParams) (*api.Automation, error) {
			return c.UpdateAutomation(ctx, o.ID, p)
		}))
}
