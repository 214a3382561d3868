package commands

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/client"
	"github.com/traineed/traineed/cmd/traineectl/internal/cmdutil"
	"github.com/traineed/traineed/cmd/traineectl/internal/output"
)

// EventsListOptions are the inputs of `events list`.
type EventsListOptions struct {
	After string
	Types []string
	Limit int
}

func newEventsListCmd(f *cmdutil.Factory) *cobra.Command {
	var o EventsListOptions
	var types string
	cmd := &cobra.Command{
		Use:   "list [--after EVENT-ID] [--type LIST] [--limit N]",
		Short: "List events after a cursor, oldest first",
		Long: `List the company's events after --after (from the oldest kept without it),
oldest first. The last line on a terminal says how to continue; -o json prints
the events (id, type, createdAt, payload).`,
		Example: `  traineectl events list --limit 20
  traineectl events list --after evt_... --type trainee.deleted -o json`,
		Args: cmdutil.ExactArgs(0, "none"),
		RunE: func(cmd *cobra.Command, args []string) (err error) {
			if o.Types, err = parseTypesFlag(types); err != nil {
				return err
			}
			if o.Limit < 1 || o.Limit > api.MaxEventLimit {
				return cmdutil.Usagef("--limit must be 1 to %d", api.MaxEventLimit)
			}
			if o.After != "" && !strings.HasPrefix(o.After, api.WebhookEventIDPrefix) {
				return cmdutil.Usagef("--after takes an event id (evt_...), not %q", o.After)
			}
			return runEventsList(cmd.Context(), f, &o)
		},
	}
	cmd.Flags().StringVar(&o.After, "after", "", "list the events after this one (evt_...)")
	cmd.Flags().StringVar(&types, "type", "", "only these comma-separated event types")
	cmd.Flags().IntVar(&o.Limit, "limit", 100, "at most this many events (1 to 500)")
	_ = cmd.RegisterFlagCompletionFunc("type", fixedValues(api.FeedEventTypes...))
	return cmd
}

func parseTypesFlag(s string) ([]string, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	evs, err := api.ParseFeedEvents(s)
	if err != nil {
		return nil, cmdutil.Usagef("%v", err)
	}
	return evs, nil
}

func runEventsList(ctx context.Context, f *cmdutil.Factory, o *EventsListOptions) error {
	c, err := f.Client()
	if err != nil {
		return err
	}
	page, err := c.Events(ctx, client.EventParams{After: o.After, Types: o.Types, Limit: o.Limit})
	if err != nil {
		return err
	}
	var rows, csv [][]string
	for _, e := range page.Events {
		trainee := eventTrainee(e)
		rows = append(rows, []string{e.ID, e.Type, trainee, stamp(e.CreatedAt)})
		csv = append(csv, []string{e.ID, e.Type, trainee, e.CreatedAt.UTC().Format(time.RFC3339Nano)})
	}
	err = f.Print(output.View{Value: page.Events,
		CSVHeader: []string{"id", "type", "traineeId", "createdAt"}, CSVRows: csv,
		Columns: []output.Column{{Header: "EVENT"}, {Header: "TYPE"}, {Header: "TRAINEE", Right: true}, {Header: "CREATED"}}, Rows: rows})
	if err == nil && f.IOStreams.StdoutTTY && page.HasMore && f.OutputFormat() == output.Table {
		fmt.Fprintf(f.IOStreams.ErrOut, "More: --after %s\n", api.EscapeText(page.Next))
	}
	return err
}

// eventTrainee is the trainee id of an event's payload, "" when it has none.
func eventTrainee(e *api.Event) string {
	var p api.WebhookEvent
	if json.Unmarshal(e.Payload, &p) != nil || p.Data.Trainee == nil {
		return ""
	}
	return id(p.Data.Trainee.ID)
}
