package commands

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/cmd/traineectl/internal/cmdutil"
)

// AutomationsDeleteOptions are the inputs of `traineectl automations delete`.
type AutomationsDeleteOptions struct {
	IDs []int64
	Yes bool
}

func newAutomationsDeleteCmd(f *cmdutil.Factory) *cobra.Command {
	var o AutomationsDeleteOptions
	c := &cobra.Command{
		Use:   "delete ID... [--yes]",
		Short: "Delete automations",
		Long: `Delete automations for good, with their pending webhook deliveries; their
runs stay readable ("automations runs ID") for 30 days. The deleted
automations are printed as they were.

On a terminal you are asked to confirm; elsewhere --yes is required, and
without it nothing is deleted and the exit status is 2.`,
		Example:           `  traineectl automations delete 7 --yes`,
		Args:              cmdutil.MinArgs(1, "automation ids"),
		ValidArgsFunction: completeAutomationIDs(f, true),
		RunE: func(cmd *cobra.Command, args []string) (err error) {
			if o.IDs, err = cmdutil.ParseIDs(args); err != nil {
				return err
			}
			return runAutomationsDelete(cmd.Context(), f, &o)
		},
	}
	c.Flags().BoolVarP(&o.Yes, "yes", "y", false, "delete without asking")
	return c
}

func runAutomationsDelete(ctx context.Context, f *cmdutil.Factory, o *AutomationsDeleteOptions) error {
	if !o.Yes {
		if !f.IOStreams.CanPrompt() {
			return cmdutil.Usagef("refusing to delete without --yes when stdin is not a terminal; nothing was deleted")
		}
		ids := make([]string, len(o.IDs))
		for i, id := range o.IDs {
			ids[i] = fmt.Sprint(id)
		}
		ok, err := f.Confirm(ctx, fmt.Sprintf("Delete automation %s for good?", strings.Join(ids, ", ")))
		if err != nil {
			return err
		}
		if !ok {
			return cmdutil.Usagef("not confirmed; nothing was deleted")
		}
	}
	c, err := f.Client()
	if err != nil {
		return err
	}
	as, err := each(f, o.IDs, func(id int64) (*api.Automation, error) {
		a, err := c.DeleteAutomation(ctx, id)
		if err == nil {
			noteAutomation(f, "Deleted", a)
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
