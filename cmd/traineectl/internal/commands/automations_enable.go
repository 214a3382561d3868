package commands

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/client"
	"github.com/traineed/traineed/cmd/traineectl/internal/cmdutil"
)

// AutomationsEnableOptions are the inputs of `traineectl automations enable`
// and `disable`.
type AutomationsEnableOptions struct {
	IDs    []int64
	Enable bool
}

func newAutomationsEnableCmd(f *cmdutil.Factory, enable bool) *cobra.Command {
	o := AutomationsEnableOptions{Enable: enable}
	c := &cobra.Command{
		Use:   "enable ID...",
		Short: "Enable automations",
		Long: `Enable automations: they fire again. A time trigger then fires for what is
still due (within the 7-day catch-up window).`,
		Example:           `  traineectl automations enable 7 8`,
		Args:              cmdutil.MinArgs(1, "automation ids"),
		ValidArgsFunction: completeAutomationIDs(f, true),
		RunE: func(cmd *cobra.Command, args []string) (err error) {
			if o.IDs, err = cmdutil.ParseIDs(args); err != nil {
				return err
			}
			return runAutomationsEnable(cmd.Context(), f, &o)
		},
	}
	if !enable {
		c.Use, c.Short = "disable ID...", "Disable automations"
		c.Long = `Disable automations: they fire nothing until enabled again. Deliveries
already scheduled are still sent.`
		c.Example = `  traineectl automations disable 7`
	}
	return c
}

func runAutomationsEnable(ctx context.Context, f *cmdutil.Factory, o *AutomationsEnableOptions) error {
	c, err := f.Client()
	if err != nil {
		return err
	}
	done := "Enabled"
	if !o.Enable {
		done = "Disabled"
	}
	as, err := each(f, o.IDs, func(id int64) (*api.Automation, error) {
		a, err := c.UpdateAutomation(ctx, id, client.AutomationParams{Enabled: api.Val(o.Enable)})
		if err == nil {
			noteAutomation(f, done, a)
		}
		return a, err
	})
	if len(as) > 0 || err == nil {
		if perr := printAutomations(f, as, len(o.IDs) == 1); perr != nil {
			return perr
		}
	}
	return err
}
