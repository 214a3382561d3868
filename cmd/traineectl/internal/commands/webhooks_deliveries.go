package commands

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/client"
	"github.com/traineed/traineed/cmd/traineectl/internal/cmdutil"
	"github.com/traineed/traineed/cmd/traineectl/internal/output"
)

// WebhooksDeliveriesOptions are the inputs of `webhooks deliveries`.
type WebhooksDeliveriesOptions struct {
	ID         int64
	Page, Size int
}

func newWebhooksDeliveriesCmd(f *cmdutil.Factory) *cobra.Command {
	var o WebhooksDeliveriesOptions
	cmd := &cobra.Command{
		Use:   "deliveries ID [--page N] [--size N]",
		Short: "Show a webhook's delivery attempts, newest first",
		Long: `Show a webhook's delivery attempts, newest first: the event id (the webhook-id
the receiver saw), the type, the attempt, the status code, the latency, the
error, when it started and the delivery's state (pending, succeeded, failed).
A delivery not attempted yet shows as attempt 0. -o json adds the first KiB of
each response and the next attempt's time.`,
		Args:              cmdutil.ExactArgs(1, "a webhook id"),
		ValidArgsFunction: completeWebhookIDs(f),
		RunE: func(cmd *cobra.Command, args []string) (err error) {
			if o.ID, err = webhookArg(args); err != nil {
				return err
			}
			if o.Page < 0 || o.Size < 1 || o.Size > api.MaxPageSize {
				return cmdutil.Usagef("--page must be 0 or more and --size 1 to %d", api.MaxPageSize)
			}
			return runWebhooksDeliveries(cmd.Context(), f, &o)
		},
	}
	cmd.Flags().IntVar(&o.Page, "page", 0, "page number, from 0")
	cmd.Flags().IntVar(&o.Size, "size", 20, "attempts per page, 1 to 100")
	return cmd
}

func runWebhooksDeliveries(ctx context.Context, f *cmdutil.Factory, o *WebhooksDeliveriesOptions) error {
	c, err := f.Client()
	if err != nil {
		return err
	}
	page, err := c.WebhookDeliveries(ctx, o.ID, client.ListParams{Page: o.Page, Limit: o.Size})
	if err != nil {
		return err
	}
	cols := []output.Column{{Header: "EVENT"}, {Header: "TYPE"}, {Header: "ATTEMPT", Right: true}, {Header: "STATUS", Right: true},
		{Header: "LATENCY", Right: true}, {Header: "ERROR", Flex: true}, {Header: "TIME"}, {Header: "STATE"}}
	var rows, csv [][]string
	for _, a := range page.Deliveries {
		status, latency, msg, latencyCSV := "-", "-", "", ""
		if a.StatusCode != nil {
			status = strconv.Itoa(*a.StatusCode)
		}
		if a.LatencyMs != nil {
			latency = strconv.FormatFloat(*a.LatencyMs, 'f', 1, 64) + " ms"
			latencyCSV = num(*a.LatencyMs)
		}
		if a.Error != nil {
			msg = *a.Error
		}
		rows = append(rows, []string{a.EventID, a.Type, strconv.Itoa(a.Attempt), status, latency, msg, stamp(a.Time), a.State})
		statusCSV := ""
		if a.StatusCode != nil {
			statusCSV = status
		}
		csv = append(csv, []string{a.EventID, a.Type, strconv.Itoa(a.Attempt), statusCSV, latencyCSV, msg, a.Time.UTC().Format(time.RFC3339Nano), a.State})
	}
	err = f.Print(output.View{Value: page.Deliveries,
		CSVHeader: []string{"eventId", "type", "attempt", "statusCode", "latencyMs", "error", "time", "state"}, CSVRows: csv,
		Columns: cols, Rows: rows})
	if err == nil && page.HasMore && f.IOStreams.StdoutTTY && f.OutputFormat() == output.Table {
		fmt.Fprintf(f.IOStreams.ErrOut, "More: --page %d\n", o.Page+1)
	}
	return err
}
