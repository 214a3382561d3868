package commands

import (
	"context"
	"iter"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/client"
	"github.com/traineed/traineed/cmd/traineectl/internal/cmdutil"
	"github.com/traineed/traineed/cmd/traineectl/internal/output"
)

// WebhooksDeliveriesOptions are the inputs of `webhooks deliveries`.
type WebhooksDeliveriesOptions struct {
	ID int64
	pagedList
}

func newWebhooksDeliveriesCmd(f *cmdutil.Factory, runF func(*WebhooksDeliveriesOptions) error) *cobra.Command {
	var o WebhooksDeliveriesOptions
	cmd := &cobra.Command{
		Use:   "deliveries ID [--limit N | --all] [--page N] [--size N]",
		Short: "Show a webhook's delivery attempts, newest first",
		Long: `Show a webhook's delivery attempts, newest first: the event id (the webhook-id
the receiver saw), the type, the attempt, the status code, the latency, the
error, when it started and the delivery's state (pending, succeeded, failed).
A delivery not attempted yet shows as attempt 0. -o json adds the first KiB of
each response and the next attempt's time.

Without more one page is printed (--size attempts, 20 by default; --page
counts from 0); --limit N fetches up to N attempts across pages, --all every
one. When more attempts follow than were printed, a line on stderr says so.`,
		Args:              cmdutil.ExactArgs(1, "a webhook id"),
		ValidArgsFunction: completeWebhookIDs(f),
		RunE: func(cmd *cobra.Command, args []string) (err error) {
			if o.ID, err = webhookArg(args); err != nil {
				return err
			}
			if err := recordGiven(cmd, &o); err != nil {
				return err
			}
			return runWith(cmd.Context(), f, &o, runF, runWebhooksDeliveries)
		},
	}
	o.register(cmd, "attempt")
	return cmd
}

// deliveryRows is how a list of delivery attempts prints.
var deliveryRows = output.Rows[*api.WebhookAttempt]{
	CSVHeader: []string{"eventId", "type", "attempt", "statusCode", "latencyMs", "error", "time", "state", "traineeId", "traineeName"},
	CSVRow: func(a *api.WebhookAttempt) []string {
		status, latency := "", ""
		if a.StatusCode != nil {
			status = strconv.Itoa(*a.StatusCode)
		}
		if a.LatencyMs != nil {
			latency = num(*a.LatencyMs)
		}
		return []string{a.EventID, a.Type, strconv.Itoa(a.Attempt), status, latency, deref(a.Error), output.Instant(a.Time), a.State,
			output.IDOr(a.TraineeID, ""), output.StrOr(a.TraineeName, "")}
	},
	// At 80 columns the least useful go first (latency, the time, the
	// attempt's number, the type), so that the status, the error and the
	// state stay.
	Columns: []output.Column{{Header: "EVENT"}, {Header: "TYPE", Drop: 4}, {Header: "TRAINEE", Flex: true, MinWidth: 10}, {Header: "ATTEMPT", Right: true, Drop: 3}, {Header: "STATUS", Right: true},
		{Header: "LATENCY", Right: true, Drop: 1}, {Header: "ERROR", Flex: true}, {Header: "TIME", Drop: 2}, {Header: "STATE"}},
	Row: func(a *api.WebhookAttempt) []string {
		// As the TUI shows them: a request nobody answered has no status
		// and no latency; a pending delivery already attempted is retrying.
		status, latency := "-", "-"
		if a.StatusCode != nil {
			status = strconv.Itoa(*a.StatusCode)
			if a.LatencyMs != nil {
				latency = strconv.FormatFloat(*a.LatencyMs, 'f', 1, 64) + " ms"
			}
		}
		return []string{a.EventID, a.Type, deliveryTrainee(a), strconv.Itoa(a.Attempt), status, latency, deref(a.Error), stamp(a.Time), a.ShownState()}
	},
}

// deliveryTrainee is the trainee a delivery's event was about, as the
// runs show one: "Ada Park #12", "#12" once erased, "-" for none.
func deliveryTrainee(a *api.WebhookAttempt) string {
	if a.TraineeID == nil {
		return "-"
	}
	who := "#" + strconv.FormatInt(*a.TraineeID, 10)
	if a.TraineeName != nil && *a.TraineeName != "" {
		who = *a.TraineeName + " " + who
	}
	return who
}

// deref is *s, "" for nil.
func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func runWebhooksDeliveries(ctx context.Context, f *cmdutil.Factory, o *WebhooksDeliveriesOptions) error {
	c, err := f.Client()
	if err != nil {
		return err
	}
	return runList(ctx, f, &o.listFlags, func(ctx context.Context, p client.ListParams, opts ...client.RequestOption) iter.Seq2[*api.WebhookAttempt, error] {
		return c.ListWebhookDeliveries(ctx, o.ID, p, opts...)
	}, o.params(), deliveryRows)
}
