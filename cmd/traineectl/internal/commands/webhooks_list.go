package commands

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/client"
	"github.com/traineed/traineed/cmd/traineectl/internal/cmdutil"
)

// WebhooksListOptions are the inputs of `webhooks list` (none).
type WebhooksListOptions struct{}

func newWebhooksListCmd(f *cmdutil.Factory, runF func(*WebhooksListOptions) error) *cobra.Command {
	return &cobra.Command{
		Use: "list", Short: "List your company's webhooks (never their secrets)", Args: cmdutil.ExactArgs(0, "none"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o := &WebhooksListOptions{}
			return runWith(cmd.Context(), f, o, runF, runWebhooksList)
		},
	}
}

func runWebhooksList(ctx context.Context, f *cmdutil.Factory, _ *WebhooksListOptions) error {
	c, err := f.Client()
	if err != nil {
		return err
	}
	ws, err := client.Collect(c.ListWebhooks(ctx, client.ListParams{}))
	if err != nil {
		return err
	}
	return f.Print(webhooksView(ws, false))
}

// WebhooksGetOptions are the inputs of `webhooks get`.
type WebhooksGetOptions struct{ ID int64 }

func newWebhooksGetCmd(f *cmdutil.Factory, runF func(*WebhooksGetOptions) error) *cobra.Command {
	return &cobra.Command{
		Use: "get ID", Short: "Show a webhook", Args: cmdutil.ExactArgs(1, "a webhook id"),
		ValidArgsFunction: completeWebhookIDs(f),
		RunE: func(cmd *cobra.Command, args []string) (err error) {
			var o WebhooksGetOptions
			if o.ID, err = webhookArg(args); err != nil {
				return err
			}
			return runWith(cmd.Context(), f, &o, runF, runWebhooksGet)
		},
	}
}

func runWebhooksGet(ctx context.Context, f *cmdutil.Factory, o *WebhooksGetOptions) error {
	c, err := f.Client()
	if err != nil {
		return err
	}
	w, err := c.Webhook(ctx, o.ID)
	if err != nil {
		return err
	}
	return f.Print(webhooksView([]*api.Webhook{w}, true))
}
