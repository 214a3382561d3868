package commands

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/cmd/traineectl/internal/cmdutil"
	"github.com/traineed/traineed/cmd/traineectl/internal/output"
)

// WebhooksRedeliverOptions are the inputs of `webhooks redeliver`.
type WebhooksRedeliverOptions struct{ EventID string }

func newWebhooksRedeliverCmd(f *cmdutil.Factory, runF func(*WebhooksRedeliverOptions) error) *cobra.Command {
	return &cobra.Command{
		Use:   "redeliver EVENT-ID",
		Short: "Send an event again to your webhooks subscribed to it",
		Long: `Schedule a new delivery of an event (evt_..., the webhook-id a receiver saw) to
every current webhook subscribed to its type, due at once, with the same
webhook-id and body. Prints how many deliveries were scheduled.`,
		Args: cmdutil.ExactArgs(1, "an event id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if !strings.HasPrefix(args[0], api.WebhookEventIDPrefix) {
				return cmdutil.Usagef("an event id starts with %s, not %q", api.WebhookEventIDPrefix, args[0])
			}
			o := &WebhooksRedeliverOptions{EventID: args[0]}
			return runWith(cmd.Context(), f, o, runF, runWebhooksRedeliver)
		},
	}
}

func runWebhooksRedeliver(ctx context.Context, f *cmdutil.Factory, o *WebhooksRedeliverOptions) error {
	c, err := f.Client()
	if err != nil {
		return err
	}
	n, err := c.Redeliver(ctx, o.EventID)
	if err != nil {
		return err
	}
	v := map[string]any{"eventId": o.EventID, "deliveries": n}
	return f.Print(output.View{Value: v, CSVHeader: []string{"eventId", "deliveries"}, CSVRows: [][]string{{o.EventID, strconv.Itoa(n)}},
		Text: func(out io.Writer) error {
			_, err := fmt.Fprintf(out, "Scheduled %s of %s\n", output.Count(n, "delivery", "deliveries"), o.EventID)
			return err
		}})
}
