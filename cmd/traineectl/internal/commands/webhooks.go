package commands

import (
	"context"
	"fmt"
	"io"
	"iter"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/client"
	"github.com/traineed/traineed/cmd/traineectl/internal/cmdutil"
	"github.com/traineed/traineed/cmd/traineectl/internal/output"
)

// `traineectl webhooks ...`: the company's webhooks over the API (a full
// key changes them; a read key lists them).

func newWebhooksCmd(f *cmdutil.Factory) *cobra.Command {
	c := &cobra.Command{
		Use:   "webhooks <command>",
		Short: "Manage your company's webhooks",
		Long: `A webhook sends your company's trainee events (trainee.created, trainee.updated,
trainee.deleted, trainee.restored, trainee.expired) to an http or https URL, signed as Standard
Webhooks specifies with the webhook's secret. The secret is shown when the
webhook is added and when it is rotated, never again.

Listing needs any key; changes need a full key (a read-only key exits 7).`,
		Example: `  traineectl webhooks add --url https://crm.example/hooks/traineed
  traineectl webhooks list
  traineectl webhooks test 3
  traineectl webhooks deliveries 3`,
	}
	c.AddCommand(newWebhooksListCmd(f, nil), newWebhooksGetCmd(f, nil), newWebhooksAddCmd(f, nil), newWebhooksUpdateCmd(f, nil),
		newWebhooksDeleteCmd(f, nil), newWebhooksDeliveriesCmd(f, nil), newWebhooksRedeliverCmd(f, nil), newWebhooksTestCmd(f, nil),
		newWebhooksRotateCmd(f, nil), newWebhooksEnableCmd(f, true, nil), newWebhooksEnableCmd(f, false, nil))
	return c
}

// webhookArg is the one webhook id of a subcommand.
func webhookArg(args []string) (int64, error) {
	v, err := strconv.ParseInt(args[0], 10, 64)
	if err != nil || v <= 0 {
		return 0, cmdutil.Usagef("invalid webhook id %q: ids are positive integers", args[0])
	}
	return v, nil
}

func eventsCell(evs []string) string { return api.EventsLabel(evs) }

func stamp(t time.Time) string { return output.Stamp(t) }

// webhooksView prints webhooks; single prints the object rather than an
// array under -o json and yaml.
func webhooksView(ws []*api.Webhook, single bool) output.View {
	cols := []output.Column{{Header: "ID", Right: true}, {Header: "URL", Flex: true, MinWidth: 20}, {Header: "EVENTS", Flex: true},
		{Header: "STATE"}, {Header: "CREATED"}}
	// REASON, why the server disabled an endpoint (410 Gone, a refused
	// address), when one of them has one.
	reasons := slices.ContainsFunc(ws, func(w *api.Webhook) bool { return w.DisabledReason != nil })
	if reasons {
		cols = append(cols, output.Column{Header: "REASON", Flex: true})
	}
	var rows, csv [][]string
	for _, w := range ws {
		reason := ""
		if w.DisabledReason != nil {
			reason = *w.DisabledReason
		}
		row := []string{id(w.ID), w.URL, eventsCell(w.Events), w.State, stamp(w.CreatedAt)}
		if reasons {
			row = append(row, reason)
		}
		rows = append(rows, row)
		csv = append(csv, []string{id(w.ID), w.URL, strings.Join(w.Events, " "), w.State, output.Instant(w.CreatedAt), reason})
	}
	var value any = ws
	if single && len(ws) == 1 {
		value = ws[0]
	}
	return output.View{Value: value, CSVHeader: []string{"id", "url", "events", "state", "createdAt", "disabledReason"}, CSVRows: csv,
		Columns: cols, Rows: rows}
}

// secretView prints a webhook with its secret (add, rotate-secret): the
// secret goes to stdout in every format, with a warning on a terminal.
func secretView(f *cmdutil.Factory, env *api.WebhookEnvelope, verb string) output.View {
	type withSecret struct {
		*api.Webhook
		Secret                  string     `json:"secret"`
		PreviousSecretExpiresAt *time.Time `json:"previousSecretExpiresAt,omitempty"`
	}
	v := withSecret{env.Webhook, env.Secret, env.PreviousSecretExpiresAt}
	w := env.Webhook
	ios := f.IOStreams
	return output.View{Value: v,
		CSVHeader: []string{"id", "url", "events", "state", "createdAt", "secret"},
		CSVRows:   [][]string{{id(w.ID), w.URL, strings.Join(w.Events, " "), w.State, output.Instant(w.CreatedAt), env.Secret}},
		Text: func(out io.Writer) error {
			fmt.Fprintf(out, "%s webhook %d (%s)\n", verb, w.ID, api.EscapeText(w.URL))
			fmt.Fprintf(out, "secret: %s\n", api.EscapeText(env.Secret))
			if env.PreviousSecretExpiresAt != nil {
				fmt.Fprintf(out, "the previous secret keeps signing until %s\n", stamp(*env.PreviousSecretExpiresAt))
			}
			if ios.StdoutTTY {
				fmt.Fprintln(ios.ErrOut, "Copy the secret now: it is never shown again.")
			}
			return nil
		}}
}

// completeWebhookIDs offers the company's webhook ids, with their URLs.
func completeWebhookIDs(f *cmdutil.Factory) cobra.CompletionFunc {
	return completeListIDs(f, false,
		func(ctx context.Context, c *client.Client) iter.Seq2[*api.Webhook, error] {
			return c.ListWebhooks(ctx, client.ListParams{})
		},
		func(w *api.Webhook) idCandidate { return idCandidate{w.ID, w.URL} })
}
