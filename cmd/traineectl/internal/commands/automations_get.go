package commands

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/cmd/traineectl/internal/cmdutil"
)

// AutomationsGetOptions are the inputs of `traineectl automations get`.
type AutomationsGetOptions struct {
	IDs []int64
}

func newAutomationsGetCmd(f *cmdutil.Factory, runF func(*AutomationsGetOptions) error) *cobra.Command {
	var o AutomationsGetOptions
	return &cobra.Command{
		Use:   "get ID...",
		Short: "Show automations by id",
		Long: `Show one or more automations. With -o json one id prints the object and
several ids an array. An id that is not one of your company's automations
exits with status 4; with several ids the others are still shown.`,
		Example:           `  traineectl automations get 7 -o yaml`,
		Args:              cmdutil.MinArgs(1, "automation ids"),
		ValidArgsFunction: completeAutomationIDs(f, true),
		RunE:              idsRunE(f, &o.IDs, &o, runF, runAutomationsGet),
	}
}

func runAutomationsGet(ctx context.Context, f *cmdutil.Factory, o *AutomationsGetOptions) error {
	c, err := f.Client()
	if err != nil {
		return err
	}
	as, err := each(f, o.IDs, func(id int64) (*api.Automation, error) { return c.Automation(ctx, id) })
	if len(as) > 0 || err == nil {
		if perr := printAutomations(f, as, len(o.IDs) == 1); perr != nil {
			return perr
		}
	}
	return err
}
