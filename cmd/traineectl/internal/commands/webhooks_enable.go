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
type WebhooksEnableOptions = EnableOptions

var webhooksEnableHelp = enableHelp{
	what:  "webhook ids",
	short: [2]string{"Enable webhooks: their waiting deliveries go at once", "Disable webhooks: their deliveries wait until they are enabled"},
	long: [2]string{`Enable webhooks: their deliveries, waiting while they were disabled, are sent at
once. This also clears the reason the server gave when it disabled one by itself
(it answered 410 Gone, or its address is one the server does not send to).`, `Disable webhooks: nothing is sent to them, and their deliveries (new ones
included) wait until they are enabled again.`},
	example: [2]string{`  traineectl webhooks enable 3`, `  traineectl webhooks disable 3`},
}

func newWebhooksEnableCmd(f *cmdutil.Factory, enable bool, runF func(*WebhooksEnableOptions) error) *cobra.Command {
	return newEnableCmd(f, enable, webhooksEnableHelp, completeWebhookIDs(f), runF, runWebhooksEnable)
}

func runWebhooksEnable(ctx context.Context, f *cmdutil.Factory, o *WebhooksEnableOptions) error {
	return byIDs(ctx, f, webhookResource, o.IDs, enabledWord(o.Enable),
		func(c *client.Client, ctx context.Context, id int64, _ ...client.RequestOption) (*api.Webhook, error) {
			return c.UpdateWebhook(ctx, id, client.WebhookInput{Enabled: &o.Enable})
		})
}
