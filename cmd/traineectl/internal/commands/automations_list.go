package commands

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/traineed/traineed/api/client"
	"github.com/traineed/traineed/cmd/traineectl/internal/cmdutil"
	"github.com/traineed/traineed/cmd/traineectl/internal/output"
)

// AutomationsListOptions are the inputs of `traineectl automations list`.
type AutomationsListOptions struct {
	listFlags
}

func newAutomationsListCmd(f *cmdutil.Factory, runF func(*AutomationsListOptions) error) *cobra.Command {
	var o AutomationsListOptions
	cmd := &cobra.Command{
		Use:   "list [--limit N | --all]",
		Short: "List the company's automations",
		Long: `List the automations of the company by id, with their trigger, conditions,
action, run count and last run. Without more one page is printed (20
automations); --limit N fetches up to N across pages, --all every one. When
the company has more automations than were printed, a line on stderr says so.`,
		Example: `  traineectl automations list
  traineectl automations list --all -o json | jq '.[] | select(.runCount > 0) | .name'`,
		Args: cmdutil.ExactArgs(0, "arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := recordGiven(cmd, &o); err != nil {
				return err
			}
			return runWith(cmd.Context(), f, &o, runF, runAutomationsList)
		},
	}
	o.register(cmd, "automation")
	return cmd
}

func runAutomationsList(ctx context.Context, f *cmdutil.Factory, o *AutomationsListOptions) error {
	c, err := f.Client()
	if err != nil {
		return err
	}
	return runList(ctx, f, &o.listFlags, c.ListAutomations, client.ListParams{}, output.AutomationRowsNamed(func() map[int64]string { return f.TrainerNames(ctx) }))
}
