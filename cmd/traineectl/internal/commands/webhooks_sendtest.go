package commands

import (
	"context"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/traineed/traineed/cmd/traineectl/internal/cmdutil"
	"github.com/traineed/traineed/cmd/traineectl/internal/output"
)

// WebhooksTestOptions are the inputs of `webhooks test`.
type WebhooksTestOptions struct{ ID int64 }

func newWebhooksTestCmd(f *cmdutil.Factory, runF func(*WebhooksTestOptions) error) *cobra.Command {
	return &cobra.Command{
		Use:   "test ID",
		Short: "Send a signed webhook.test event now and show the receiver's answer",
		Long: `Send one webhook.test event to the webhook at once (enabled or not), signed
like every delivery, and show what came back: the status code, the latency and
the error. The test is not retried and not recorded. Exit status 1 when the
receiver did not answer 2xx within 10 seconds.`,
		Args:              cmdutil.ExactArgs(1, "a webhook id"),
		ValidArgsFunction: completeWebhookIDs(f),
		RunE: func(cmd *cobra.Command, args []string) (err error) {
			var o WebhooksTestOptions
			if o.ID, err = webhookArg(args); err != nil {
				return err
			}
			return runWith(cmd.Context(), f, &o, runF, runWebhooksTest)
		},
	}
}

func runWebhooksTest(ctx context.Context, f *cmdutil.Factory, o *WebhooksTestOptions) error {
	c, err := f.Client()
	if err != nil {
		return err
	}
	r, err := c.TestWebhook(ctx, o.ID)
	if err != nil {
		return err
	}
	status, msg := "-", ""
	if r.StatusCode != nil {
		status = strconv.Itoa(*r.StatusCode)
	}
	if r.Error != nil {
		msg = *r.Error
	}
	latency := strconv.FormatFloat(r.LatencyMs, 'f', 1, 64) + " ms"
	out := output.Omit(r, "timestamp")
	err = f.Print(output.View{Value: out,
		CSVHeader: []string{"eventId", "ok", "statusCode", "latencyMs", "error"},
		CSVRows:   [][]string{{r.EventID, strconv.FormatBool(r.OK), strings.TrimPrefix(status, "-"), num(r.LatencyMs), msg}},
		Columns:   []output.Column{{Header: "EVENT"}, {Header: "OK"}, {Header: "STATUS", Right: true}, {Header: "LATENCY", Right: true}, {Header: "ERROR", Flex: true}},
		Rows:      [][]string{{r.EventID, strconv.FormatBool(r.OK), status, latency, msg}}})
	if err != nil {
		return err
	}
	if !r.OK {
		return &cmdutil.ReportedError{Code: cmdutil.ExitFailure}
	}
	return nil
}
