package commands

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/traineed/traineed/api/client"
	"github.com/traineed/traineed/cmd/traineectl/internal/cmdutil"
)

// AutomationsDeleteOptions are the inputs of `traineectl automations delete`.
type AutomationsDeleteOptions struct {
	IDs []int64
	Yes bool
}

func newAutomationsDeleteCmd(f *cmdutil.Factory, runF func(*AutomationsDeleteOptions) error) *cobra.Command {
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
		RunE:              idsRunE(f, &o.IDs, &o, runF, runAutomationsDelete),
	}
	c.Flags().BoolVarP(&o.Yes, "yes", "y", false, "delete without asking")
	return c
}

func runAutomationsDelete(ctx context.Context, f *cmdutil.Factory, o *AutomationsDeleteOptions) error {
	ids := make([]string, len(o.IDs))
	for i, id := range o.IDs {
		ids[i] = fmt.Sprint(id)
	}
	if err := confirmDelete(ctx, f, o.Yes, fmt.Sprintf("Delete automation %s for good?", strings.Join(ids, ", "))); err != nil {
		return err
	}
	return byIDs(ctx, f, automationResource, o.IDs, "Deleted", (*client.Client).DeleteAutomation)
}
