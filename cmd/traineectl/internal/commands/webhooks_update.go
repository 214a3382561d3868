package commands

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/client"
	"github.com/traineed/traineed/cmd/traineectl/internal/cmdutil"
)

// WebhooksUpdateOptions are the inputs of `webhooks update`.
type WebhooksUpdateOptions struct {
	ID      int64
	URL     *string
	Events  []string
	Enabled *bool
}

func newWebhooksUpdateCmd(f *cmdutil.Factory, runF func(*WebhooksUpdateOptions) error) *cobra.Command {
	var url, events string
	var enable, disable bool
	cmd := &cobra.Command{
		Use:   "update ID [--url URL] [--events LIST] [--enable|--disable]",
		Short: "Change a webhook's URL or events, or pause or resume it",
		Example: `  traineectl webhooks update 3 --disable
  traineectl webhooks update 3 --events trainee.created --url https://crm.example/v2/hooks`,
		Args:              cmdutil.ExactArgs(1, "a webhook id"),
		ValidArgsFunction: completeWebhookIDs(f),
		RunE: func(cmd *cobra.Command, args []string) (err error) {
			var o WebhooksUpdateOptions
			if o.ID, err = webhookArg(args); err != nil {
				return err
			}
			if cmd.Flags().Changed("url") {
				if err := api.ValidateURLFlag("--url", url); err != nil {
					return cmdutil.Usagef("%v", err)
				}
				o.URL = &url
			}
			if o.Events, err = parseEventsFlag(events); err != nil {
				return err
			}
			if enable && disable {
				return cmdutil.Usagef("--enable and --disable contradict each other")
			}
			if enable || disable {
				v := enable
				o.Enabled = &v
			}
			if o.URL == nil && o.Events == nil && o.Enabled == nil {
				return cmdutil.Usagef("nothing to change: give --url, --events, --enable or --disable")
			}
			return runWith(cmd.Context(), f, &o, runF, runWebhooksUpdate)
		},
	}
	cmd.Flags().StringVar(&url, "url", "", "the new URL")
	cmd.Flags().StringVar(&events, "events", "", "the new comma-separated event types")
	cmd.Flags().BoolVar(&enable, "enable", false, "resume a paused webhook (its waiting deliveries go at once)")
	cmd.Flags().BoolVar(&disable, "disable", false, "pause the webhook: its deliveries wait")
	_ = cmd.RegisterFlagCompletionFunc("events", fixedValues(api.WebhookEventTypes...))
	return cmd
}

func runWebhooksUpdate(ctx context.Context, f *cmdutil.Factory, o *WebhooksUpdateOptions) error {
	c, err := f.Client()
	if err != nil {
		return err
	}
	w, err := c.UpdateWebhook(ctx, o.ID, client.WebhookInput{URL: o.URL, Events: o.Events, Enabled: o.Enabled})
	if err != nil {
		return err
	}
	return f.Print(webhooksView([]*api.Webhook{w}, true))
}
