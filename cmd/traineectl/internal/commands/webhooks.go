package commands

import (
	"context"
	"fmt"
	"io"
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
	c.AddCommand(newWebhooksListCmd(f), newWebhooksGetCmd(f), newWebhooksAddCmd(f), newWebhooksUpdateCmd(f),
		newWebhooksDeleteCmd(f), newWebhooksDeliveriesCmd(f), newWebhooksRedeliverCmd(f), newWebhooksTestCmd(f),
		newWebhooksRotateCmd(f))
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

func eventsCell(evs []string) string {
	if len(evs) == len(api.WebhookEventTypes) {
		return "all"
	}
	return strings.Join(evs, ",")
}

func stamp(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05Z") }

// webhooksView prints webhooks; single prints the object rather than an
// array under -o json and yaml.
func webhooksView(ws []*api.Webhook, single bool) output.View {
	cols := []output.Column{{Header: "ID", Right: true}, {Header: "URL", Flex: true, MinWidth: 20}, {Header: "EVENTS", Flex: true},
		{Header: "STATE"}, {Header: "CREATED"}}
	var rows, csv [][]string
	for _, w := range ws {
		rows = append(rows, []string{id(w.ID), w.URL, eventsCell(w.Events), w.State, stamp(w.CreatedAt)})
		csv = append(csv, []string{id(w.ID), w.URL, strings.Join(w.Events, " "), w.State, w.CreatedAt.UTC().Format(time.RFC3339)})
	}
	var value any = ws
	if single && len(ws) == 1 {
		value = ws[0]
	}
	return output.View{Value: value, CSVHeader: []string{"id", "url", "events", "state", "createdAt"}, CSVRows: csv,
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
		CSVRows:   [][]string{{id(w.ID), w.URL, strings.Join(w.Events, " "), w.State, w.CreatedAt.UTC().Format(time.RFC3339), env.Secret}},
		Text: func(out io.Writer) error {
			fmt.Fprintf(out, "%s webhook %d (%s)\n", verb, w.ID, w.URL)
			fmt.Fprintf(out, "secret: %s\n", env.Secret)
			if env.PreviousSecretExpiresAt != nil {
				fmt.Fprintf(out, "the previous secret keeps signing until %s\n", stamp(*env.PreviousSecretExpiresAt))
			}
			if ios.StdoutTTY {
				fmt.Fprintln(ios.ErrOut, "Copy the secret now: it is never shown again.")
			}
			return nil
		}}
}

// WebhooksListOptions are the inputs of `webhooks list` (none).
type WebhooksListOptions struct{}

func newWebhooksListCmd(f *cmdutil.Factory) *cobra.Command {
	return &cobra.Command{
		Use: "list", Short: "List your company's webhooks (never their secrets)", Args: cmdutil.ExactArgs(0, "none"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runWebhooksList(cmd.Context(), f, &WebhooksListOptions{})
		},
	}
}

func runWebhooksList(ctx context.Context, f *cmdutil.Factory, _ *WebhooksListOptions) error {
	c, err := f.Client()
	if err != nil {
		return err
	}
	ws, err := c.Webhooks(ctx)
	if err != nil {
		return err
	}
	return f.Print(webhooksView(ws, false))
}

// WebhooksGetOptions are the inputs of `webhooks get`.
type WebhooksGetOptions struct{ ID int64 }

func newWebhooksGetCmd(f *cmdutil.Factory) *cobra.Command {
	return &cobra.Command{
		Use: "get ID", Short: "Show a webhook", Args: cmdutil.ExactArgs(1, "a webhook id"),
		ValidArgsFunction: completeWebhookIDs(f),
		RunE: func(cmd *cobra.Command, args []string) (err error) {
			var o WebhooksGetOptions
			if o.ID, err = webhookArg(args); err != nil {
				return err
			}
			return runWebhooksGet(cmd.Context(), f, &o)
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

// WebhooksAddOptions are the inputs of `webhooks add`.
type WebhooksAddOptions struct {
	URL      string
	Events   []string // nil: every type
	Disabled bool
}

func newWebhooksAddCmd(f *cmdutil.Factory) *cobra.Command {
	var o WebhooksAddOptions
	var events string
	cmd := &cobra.Command{
		Use:   "add --url URL [--events LIST] [--disabled]",
		Short: "Add a webhook and print its secret (the only time it is shown)",
		Example: `  traineectl webhooks add --url https://crm.example/hooks/traineed
  traineectl webhooks add --url https://audit.example/in --events trainee.deleted,trainee.restored`,
		Args: cmdutil.ExactArgs(0, "none"),
		RunE: func(cmd *cobra.Command, args []string) (err error) {
			if o.Events, err = parseEventsFlag(events); err != nil {
				return err
			}
			if err := api.ValidateWebhookURL(o.URL); err != nil {
				return cmdutil.Usagef("--url: %v", err)
			}
			return runWebhooksAdd(cmd.Context(), f, &o)
		},
	}
	cmd.Flags().StringVar(&o.URL, "url", "", "the http or https URL to POST events to (required)")
	cmd.Flags().StringVar(&events, "events", "", "comma-separated event types (default all: "+strings.Join(api.WebhookEventTypes, ",")+")")
	cmd.Flags().BoolVar(&o.Disabled, "disabled", false, "add it paused: its deliveries wait until it is enabled")
	_ = cmd.MarkFlagRequired("url")
	_ = cmd.RegisterFlagCompletionFunc("events", fixedValues(api.WebhookEventTypes...))
	_ = cmd.RegisterFlagCompletionFunc("url", cobra.NoFileCompletions)
	return cmd
}

// parseEventsFlag reads --events; "" is nil (every type, or unchanged).
func parseEventsFlag(s string) ([]string, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	evs, err := api.ParseWebhookEvents(s)
	if err != nil {
		return nil, cmdutil.Usagef("--events: %v", err)
	}
	return evs, nil
}

func runWebhooksAdd(ctx context.Context, f *cmdutil.Factory, o *WebhooksAddOptions) error {
	if err := f.RequireFullKey(ctx, "traineectl webhooks add"); err != nil {
		return err
	}
	c, err := f.Client()
	if err != nil {
		return err
	}
	in := client.WebhookInput{URL: &o.URL, Events: o.Events}
	if o.Disabled {
		no := false
		in.Enabled = &no
	}
	env, err := c.CreateWebhook(ctx, in)
	if err != nil {
		return err
	}
	return f.Print(secretView(f, env, "Added"))
}

// WebhooksUpdateOptions are the inputs of `webhooks update`.
type WebhooksUpdateOptions struct {
	ID      int64
	URL     *string
	Events  []string
	Enabled *bool
}

func newWebhooksUpdateCmd(f *cmdutil.Factory) *cobra.Command {
	var url, events string
	var enable, disable bool
	cmd := &cobra.Command{
		Use:   "update ID [--url URL] [--events LIST] [--enable|--disable]",
		Short: "Change a webhook's URL or events, or pause or resume it",
		Example: `  traineectl webhooks update 3 --disable
  traineectl webhooks update 3 --events trainee.created --url https://crm.example/v2/hooks`,
		Args:              cmdutil.ExactArgs(1, "a webhook id"),
		ValidArgsFunction: completeWebhookIDs(f),
		RunE: func(cmd *cobra.Command, args []string) (err error) {
			var o WebhooksUpdateOptions
			if o.ID, err = webhookArg(args); err != nil {
				return err
			}
			if cmd.Flags().Changed("url") {
				if err := api.ValidateWebhookURL(url); err != nil {
					return cmdutil.Usagef("--url: %v", err)
				}
				o.URL = &url
			}
			if o.Events, err = parseEventsFlag(events); err != nil {
				return err
			}
			if enable && disable {
				return cmdutil.Usagef("--enable and --disable contradict each other")
			}
			if enable || disable {
				v := enable
				o.Enabled = &v
			}
			if o.URL == nil && o.Events == nil && o.Enabled == nil {
				return cmdutil.Usagef("nothing to change: give --url, --events, --enable or --disable")
			}
			return runWebhooksUpdate(cmd.Context(), f, &o)
		},
	}
	cmd.Flags().StringVar(&url, "url", "", "the new URL")
	cmd.Flags().StringVar(&events, "events", "", "the new comma-separated event types")
	cmd.Flags().BoolVar(&enable, "enable", false, "resume a paused webhook (its waiting deliveries go at once)")
	cmd.Flags().BoolVar(&disable, "disable", false, "pause the webhook: its deliveries wait")
	_ = cmd.RegisterFlagCompletionFunc("events", fixedValues(api.WebhookEventTypes...))
	return cmd
}

func runWebhooksUpdate(ctx context.Context, f *cmdutil.Factory, o *WebhooksUpdateOptions) error {
	if err := f.RequireFullKey(ctx, "traineectl webhooks update"); err != nil {
		return err
	}
	c, err := f.Client()
	if err != nil {
		return err
	}
	w, err := c.UpdateWebhook(ctx, o.ID, client.WebhookInput{URL: o.URL, Events: o.Events, Enabled: o.Enabled})
	if err != nil {
		return err
	}
	return f.Print(webhooksView([]*api.Webhook{w}, true))
}

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
	if err := f.RequireFullKey(ctx, "traineectl webhooks delete"); err != nil {
		return err
	}
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
		fmt.Fprintf(f.IOStreams.ErrOut, "Deleted webhook %d (%s)\n", w.ID, w.URL)
	}
	return f.Print(webhooksView([]*api.Webhook{w}, true))
}

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
	page, err := c.WebhookDeliveries(ctx, o.ID, o.Page, o.Size)
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
		fmt.Fprintf(f.IOStreams.ErrOut, "More: --page %d\n", page.Page+1)
	}
	return err
}

// WebhooksRedeliverOptions are the inputs of `webhooks redeliver`.
type WebhooksRedeliverOptions struct{ EventID string }

func newWebhooksRedeliverCmd(f *cmdutil.Factory) *cobra.Command {
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
			return runWebhooksRedeliver(cmd.Context(), f, &WebhooksRedeliverOptions{EventID: args[0]})
		},
	}
}

func runWebhooksRedeliver(ctx context.Context, f *cmdutil.Factory, o *WebhooksRedeliverOptions) error {
	if err := f.RequireFullKey(ctx, "traineectl webhooks redeliver"); err != nil {
		return err
	}
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
			_, err := fmt.Fprintf(out, "Scheduled %d deliveries of %s\n", n, o.EventID)
			return err
		}})
}

// WebhooksTestOptions are the inputs of `webhooks test`.
type WebhooksTestOptions struct{ ID int64 }

func newWebhooksTestCmd(f *cmdutil.Factory) *cobra.Command {
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
			return runWebhooksTest(cmd.Context(), f, &o)
		},
	}
}

func runWebhooksTest(ctx context.Context, f *cmdutil.Factory, o *WebhooksTestOptions) error {
	if err := f.RequireFullKey(ctx, "traineectl webhooks test"); err != nil {
		return err
	}
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

// WebhooksRotateOptions are the inputs of `webhooks rotate-secret`.
type WebhooksRotateOptions struct{ ID int64 }

func newWebhooksRotateCmd(f *cmdutil.Factory) *cobra.Command {
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
			return runWebhooksRotate(cmd.Context(), f, &o)
		},
	}
}

func runWebhooksRotate(ctx context.Context, f *cmdutil.Factory, o *WebhooksRotateOptions) error {
	if err := f.RequireFullKey(ctx, "traineectl webhooks rotate-secret"); err != nil {
		return err
	}
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
func completeWebhookIDs(f *cmdutil.Factory) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		const noFiles = cobra.ShellCompDirectiveNoFileComp
		if len(args) > 0 || !isDigits(toComplete) {
			return nil, noFiles
		}
		if err := bindGlobal(f, cmd); err != nil {
			return nil, noFiles
		}
		ctx := cmd.Context()
		if ctx == nil {
			ctx = context.Background()
		}
		ctx, cancel := context.WithTimeout(ctx, f.CompletionDeadline())
		defer cancel()
		c, err := f.CompletionClient()
		if err != nil {
			return nil, noFiles
		}
		ws, err := c.Webhooks(ctx)
		if err != nil {
			return nil, noFiles
		}
		var out []cobra.Completion
		for _, w := range ws {
			if s := id(w.ID); strings.HasPrefix(s, toComplete) {
				out = append(out, cobra.CompletionWithDesc(s, w.URL))
			}
		}
		return out, noFiles
	}
}
