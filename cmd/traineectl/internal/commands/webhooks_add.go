package commands

import (
	"context"
	"strings"

	"github.com/spf13/cobra"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/client"
	"github.com/traineed/traineed/cmd/traineectl/internal/cmdutil"
)

// WebhooksAddOptions are the inputs of `webhooks add`.
type WebhooksAddOptions struct {
	URL      string
	Events   []string // nil: every type
	Disabled bool
}

func newWebhooksAddCmd(f *cmdutil.Factory, runF func(*WebhooksAddOptions) error) *cobra.Command {
	var o WebhooksAddOptions
	var events string
	cmd := &cobra.Command{
		Use:   "add --url URL [--events LIST] [--disabled]",
		Short: "Add a webhook and print its secret (the only time it is shown)",
		Example: `  traineectl webhooks add --url https://crm.example/hooks/traineed
  traineectl webhooks add --url https://audit.example/in --events trainee.deleted,trainee.restored`,
		Args: cmdutil.ExactArgs(0, "none"),
		RunE: func(cmd *cobra.Command, args []string) (err error) {
			if o.Events, err = parseEventsFlag(events); err != nil {
				return err
			}
			if err := api.ValidateURLFlag("--url", o.URL); err != nil {
				return cmdutil.Usagef("%v", err)
			}
			return runWith(cmd.Context(), f, &o, runF, runWebhooksAdd)
		},
	}
	cmd.Flags().StringVar(&o.URL, "url", "", "the http or https URL to POST events to (required)")
	cmd.Flags().StringVar(&events, "events", "", "comma-separated event types, or all (default: every trainee event, "+strings.Join(api.TraineeEventTypes, ",")+"; the others: "+strings.Join(api.AdminEventTypes, ",")+")")
	cmd.Flags().BoolVar(&o.Disabled, "disabled", false, "add it paused: its deliveries wait until it is enabled")
	_ = cmd.MarkFlagRequired("url")
	_ = cmd.RegisterFlagCompletionFunc("events", fixedValues(api.WebhookEventTypes...))
	_ = cmd.RegisterFlagCompletionFunc("url", cobra.NoFileCompletions)
	return cmd
}

// parseEventsFlag reads --events; "" is nil (every type, or unchanged).
func parseEventsFlag(s string) ([]string, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	evs, err := api.ParseWebhookEvents(s)
	if err != nil {
		return nil, cmdutil.Usagef("--events: %v", err)
	}
	return evs, nil
}

func runWebhooksAdd(ctx context.Context, f *cmdutil.Factory, o *WebhooksAddOptions) error {
	c, err := f.Client()
	if err != nil {
		return err
	}
	in := client.WebhookInput{URL: &o.URL, Events: o.Events}
	if o.Disabled {
		no := false
		in.Enabled = &no
	}
	env, err := c.CreateWebhook(ctx, in)
	if err != nil {
		return err
	}
	return f.Print(secretView(f, env, "Added"))
}
