package commands

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/client"
	"github.com/traineed/traineed/cmd/traineectl/internal/cmdutil"
)

// AutomationsCreateOptions are the inputs of `traineectl automations create`.
type AutomationsCreateOptions struct {
	Flags automationFlags
}

func newAutomationsCreateCmd(f *cmdutil.Factory, runF func(*AutomationsCreateOptions) error) *cobra.Command {
	var o AutomationsCreateOptions
	c := &cobra.Command{
		Use:   "create (--name NAME --trigger TYPE [--days N] --action TYPE [--url URL] | -f FILE)",
		Short: "Create an automation",
		Long: `Create an automation from flags, or from a JSON or YAML file (-f; - reads
stdin) in the shape of the API's body, whose members the flags override.

A WEBHOOK automation's signing secret (whsec_...) is shown once: on stderr
in the table and CSV formats, as "secret" in JSON and YAML. EMAIL, SMS and
PUSH actions are reserved for a later release (exit status 5, error 1013).`,
		Example: `  traineectl automations create --name "CRM: a week before the end" --trigger EXPIRATION_APPROACHING --days 7 \
      --action WEBHOOK --url https://crm.example/hooks/traineed
  traineectl automations create --name "Idle 14 days" --trigger INACTIVE --days 14 --status active \
      --action WEBHOOK --url https://crm.example/hooks/idle
  traineectl automations create -f automation.yaml`,
		Args: cmdutil.ExactArgs(0, "arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.Flags.recordSet(cmd.Flags().Changed)
			return runWith(cmd.Context(), f, &o, runF, runAutomationsCreate)
		},
	}
	o.Flags.register(c, true, completeTrainerIDs(f))
	return c
}

func runAutomationsCreate(ctx context.Context, f *cmdutil.Factory, o *AutomationsCreateOptions) error {
	return o.Flags.send(ctx, f, "give the automation with flags (--name, --trigger, --action, ...) or -f FILE", "Created",
		withAutomationParams(func(c *client.Client, p client.AutomationParams) (*api.Automation, error) {
			return c.CreateAutomation(ctx, p)
		}))
}

// noteAutomation tells a terminal what was done: "Created automation 7 (name)".
func noteAutomation(f *cmdutil.Factory, done string, a *api.Automation) {
	noteDone(f, done, "automation", a.ID, a.Name)
}
