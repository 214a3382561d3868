package commands

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/traineed/traineed/api/client"
	"github.com/traineed/traineed/cmd/traineectl/internal/cmdutil"
)

// WebhooksDeleteOptions are the inputs of `webhooks delete`.
type WebhooksDeleteOptions struct {
	ID  int64
	Yes bool
}

func newWebhooksDeleteCmd(f *cmdutil.Factory, runF func(*WebhooksDeleteOptions) error) *cobra.Command {
	var o WebhooksDeleteOptions
	cmd := &cobra.Command{
		Use:   "delete ID [--yes]",
		Short: "Delete a webhook with its deliveries' history",
		Long: `Delete a webhook with its deliveries' history. On a terminal you are asked to
confirm; elsewhere --yes is required, and without it nothing is deleted (exit 2).`,
		Args:              cmdutil.ExactArgs(1, "a webhook id"),
		ValidArgsFunction: completeWebhookIDs(f),
		RunE: func(cmd *cobra.Command, args []string) (err error) {
			if o.ID, err = webhookArg(args); err != nil {
				return err
			}
			return runWith(cmd.Context(), f, &o, runF, runWebhooksDelete)
		},
	}
	cmd.Flags().BoolVarP(&o.Yes, "yes", "y", false, "delete without asking")
	return cmd
}

func runWebhooksDelete(ctx context.Context, f *cmdutil.Factory, o *WebhooksDeleteOptions) error {
	if err := confirmDelete(ctx, f, o.Yes, fmt.Sprintf("Delete webhook %d and its deliveries' history?", o.ID)); err != nil {
		return err
	}
	return byIDs(ctx, f, webhookResource, []int64{o.ID}, "Deleted", (*client.Client).DeleteWebhook)
}
