package commands

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/traineed/traineed/cmd/traineectl/internal/cmdutil"
)

// WebhooksRotateOptions are the inputs of `webhooks rotate-secret`.
type WebhooksRotateOptions struct{ ID int64 }

func newWebhooksRotateCmd(f *cmdutil.Factory, runF func(*WebhooksRotateOptions) error) *cobra.Command {
	return &cobra.Command{
		Use:   "rotate-secret ID",
		Short: "Give a webhook a new secret; the old one keeps signing for 24 hours",
		Long: `Give a webhook a new signing secret and print it (the only time it is shown).
For 24 hours every delivery carries two signatures, one with the new secret and
one with the old, so the receiver can switch to the new secret at any moment of
that day.`,
		Args:              cmdutil.ExactArgs(1, "a webhook id"),
		ValidArgsFunction: completeWebhookIDs(f),
		RunE: func(cmd *cobra.Command, args []string) (err error) {
			var o WebhooksRotateOptions
			if o.ID, err = webhookArg(args); err != nil {
				return err
			}
			return runWith(cmd.Context(), f, &o, runF, runWebhooksRotate)
		},
	}
}

func runWebhooksRotate(ctx context.Context, f *cmdutil.Factory, o *WebhooksRotateOptions) error {
	c, err := f.Client()
	if err != nil {
		return err
	}
	env, err := c.RotateWebhookSecret(ctx, o.ID)
	if err != nil {
		return err
	}
	return f.Print(secretView(f, env, "Rotated the secret of"))
}

// completeWebhookIDs offers the company's webhook ids, with their URLs.
