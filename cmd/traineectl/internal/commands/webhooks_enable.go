package commands

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/client"
	"github.com/traineed/traineed/cmd/traineectl/internal/cmdutil"
)

// WebhooksEnableOptions are the inputs of `traineectl webhooks enable` and
// `disable`.
type WebhooksEnableOptions struct {
	IDs    []int64
	Enable bool
}

func newWebhooksEnableCmd(f *cmdutil.Factory, enable bool, runF func(*WebhooksEnableOptions) error) *cobra.Command {
	o := WebhooksEnableOptions{Enable: enable}
	c := &cobra.Command{
		Use:   "enable ID...",
		Short: "Enable webhooks: their waiting deliveries go at once",
		Long: `Enable webhooks: their deliveries, waiting while they were disabled, are sent at
once. This also clears the reason the server gave when it disabled one by itself
(it answered 410 Gone, or its address is one the server does not send to).`,
		Example:           `  traineectl webhooks enable 3`,
		Args:              cmdutil.MinArgs(1, "webhook ids"),
		ValidArgsFunction: completeWebhookIDs(f),
		RunE: func(cmd *cobra.Command, args []string) (err error) {
			if o.IDs, err = cmdutil.ParseIDs(args); err != nil {
				return err
			}
			if runF != nil {
				return runF(&o)
			}
			return runWebhooksEnable(cmd.Context(), f, &o)
		},
	}
	if !enable {
		c.Use, c.Short = "disable ID...", "Disable webhooks: their deliveries wait until they are enabled"
		c.Long = `Disable webhooks: nothing is sent to them, and their deliveries (new ones
included) wait until they are enabled again.`
		c.Example = `  traineectl webhooks disable 3`
	}
	return c
}

func runWebhooksEnable(ctx context.Context, f *cmdutil.Factory, o *WebhooksEnableOptions) error {
	return byIDs(ctx, f, webhookResource, o.IDs, enabledWord(o.Enable),
		func(c *client.Client, ctx context.Context, id int64) (*api.Webhook, error) {
			return c.UpdateWebhook(ctx, id, client.WebhookInput{Enabled: &o.Enable})
		})
}
