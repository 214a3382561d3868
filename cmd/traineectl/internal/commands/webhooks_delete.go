package commands

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/cmd/traineectl/internal/cmdutil"
)

// WebhooksDeleteOptions are the inputs of `webhooks delete`.
type WebhooksDeleteOptions struct {
	ID  int64
	Yes bool
}

func newWebhooksDeleteCmd(f *cmdutil.Factory) *cobra.Command {
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
			return runWebhooksDelete(cmd.Context(), f, &o)
		},
	}
	cmd.Flags().BoolVarP(&o.Yes, "yes", "y", false, "delete without asking")
	return cmd
}

func runWebhooksDelete(ctx context.Context, f *cmdutil.Factory, o *WebhooksDeleteOptions) error {
	if !o.Yes {
		if !f.IOStreams.CanPrompt() {
			return cmdutil.Usagef("refusing to delete without --yes when stdin is not a terminal; nothing was deleted")
		}
		ok, err := f.Confirm(ctx, fmt.Sprintf("Delete webhook %d and its deliveries' history?", o.ID))
		if err != nil {
			return err
		}
		if !ok {
			return cmdutil.Usagef("not confirmed; nothing was deleted")
		}
	}
	c, err := f.Client()
	if err != nil {
		return err
	}
	w, err := c.DeleteWebhook(ctx, o.ID)
	if err != nil {
		return err
	}
	if f.IOStreams.StdoutTTY {
		fmt.Fprintf(f.IOStreams.ErrOut, "Deleted webhook %d (%s)\n", w.ID, api.EscapeText(w.URL))
	}
	return f.Print(webhooksView([]*api.Webhook{w}, true))
}
