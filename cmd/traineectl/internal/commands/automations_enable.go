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
type AutomationsEnableOptions = EnableOptions

var automationsEnableHelp = enableHelp{
	what:  "automation ids",
	short: [2]string{"Enable automations", "Disable automations"},
	long: [2]string{`Enable automations: they fire again. A time trigger then fires for what is
still due (within the 7-day catch-up window).`, `Disable automations: they fire nothing until enabled again. Deliveries
already scheduled are still sent.`},
	example: [2]string{`  traineectl automations enable 7 8`, `  traineectl automations disable 7`},
}

func newAutomationsEnableCmd(f *cmdutil.Factory, enable bool, runF func(*AutomationsEnableOptions) error) *cobra.Command {
	return newEnableCmd(f, enable, automationsEnableHelp, completeAutomationIDs(f, true), runF, runAutomationsEnable)
}

func runAutomationsEnable(ctx context.Context, f *cmdutil.Factory, o *AutomationsEnableOptions) error {
	return byIDs(ctx, f, automationResource, o.IDs, enabledWord(o.Enable),
		func(c *client.Client, ctx context.Context, id int64, _ ...client.RequestOption) (*api.Automation, error) {
			return c.UpdateAutomation(ctx, id, client.AutomationParams{Enabled: api.Val(o.Enable)})
		})
}
