package commands

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/traineed/traineed/cmd/traineectl/internal/cmdutil"
)

// AutomationsListOptions are the inputs of `traineectl automations list`.
type AutomationsListOptions struct{}

func newAutomationsListCmd(f *cmdutil.Factory) *cobra.Command {
	var o AutomationsListOptions
	return &cobra.Command{
		Use:   "list",
		Short: "List the company's automations",
		Long: `List every automation of the company by id, with its trigger, conditions,
action, run count and last run.`,
		Example: `  traineectl automations list
  traineectl automations list -o json | jq '.[] | select(.runCount > 0) | .name'`,
		Args: cmdutil.ExactArgs(0, "arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error { return runAutomationsList(cmd.Context(), f, &o) },
	}
}

func runAutomationsList(ctx context.Context, f *cmdutil.Factory, _ *AutomationsListOptions) error {
	c, err := f.Client()
	if err != nil {
		return err
	}
	as, err := c.AllAutomations(ctx)
	if err != nil {
		return err
	}
	return printAutomations(f, as, false)
}
