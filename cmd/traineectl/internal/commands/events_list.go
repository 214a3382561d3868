package commands

import (
	"context"
	"encoding/json"
	"iter"
	"strings"

	"github.com/spf13/cobra"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/client"
	"github.com/traineed/traineed/cmd/traineectl/internal/cmdutil"
	"github.com/traineed/traineed/cmd/traineectl/internal/output"
)

// EventsListOptions are the inputs of `events list`.
type EventsListOptions struct {
	After       string
	Types       []string
	OldestFirst bool // the feed's order; newest first without it
	listFlags
}

func newEventsListCmd(f *cmdutil.Factory, runF func(*EventsListOptions) error) *cobra.Command {
	var o EventsListOptions
	var types string
	cmd := &cobra.Command{
		Use:   "list [--after CURSOR] [--type LIST] [--limit N | --all] [--oldest-first]",
		Short: "List events, newest first",
		Long: `List the company's events, newest first (--oldest-first: in the feed's order,
oldest first), as "stripe events list" does. Without --limit or --all, one
page is printed (100 events); --limit N fetches up to N events across pages,
--all all of them. When more events follow than were printed, a line on
stderr says so (-q leaves it out). --after starts after an event (evt_..., in the listing's order) or a
page's cursor. BY is who made the change: the API key's name, an automation's
after ⚙, or system. -o json prints the events (id, type, createdAt, payload,
actor).`,
		Example: `  traineectl events list --limit 20
  traineectl events list --all --oldest-first -o json
  traineectl events list --after evt_... --type trainee.deleted -o json`,
		Args: cmdutil.ExactArgs(0, "none"),
		RunE: func(cmd *cobra.Command, args []string) (err error) {
			if o.Types, err = parseTypesFlag(types); err != nil {
				return err
			}
			if err := recordGiven(cmd, &o); err != nil {
				return err
			}
			if o.After != "" && !strings.HasPrefix(o.After, api.WebhookEventIDPrefix) {
				if _, err := api.DecodeListCursor(o.After, 1); err != nil {
					return cmdutil.Usagef("--after takes an event id (evt_...) or a cursor a listing gave, not %q", o.After)
				}
			}
			return runWith(cmd.Context(), f, &o, runF, runEventsList)
		},
	}
	cmd.Flags().StringVar(&o.After, "after", "", "list the events after this one (evt_...) or this cursor")
	cmd.Flags().StringVar(&types, "type", "", "only these comma-separated event types")
	cmd.Flags().BoolVar(&o.OldestFirst, "oldest-first", false, "in the feed's order, oldest first")
	o.register(cmd, "event")
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

// eventRows is how a list of events prints: who and what changed too, as
// the TUI's recent changes show it (the trainee's name, and the fields an
// update changed).
var eventRows = output.Rows[*api.Event]{
	CSVHeader: []string{"id", "type", "traineeId", "createdAt", "actorType", "actorId", "actorName", "traineeName", "changedFields"},
	CSVRow: func(e *api.Event) []string {
		d := eventData(e)
		row := []string{e.ID, e.Type, eventTrainee(d), output.Instant(e.CreatedAt), "", "", "", eventName(d), strings.Join(d.ChangedFields, " ")}
		if a := e.Actor; a != nil {
			row[4], row[6] = a.Type, a.Name
			if a.ID != 0 {
				row[5] = id(a.ID)
			}
		}
		return row
	},
	Columns: []output.Column{{Header: "EVENT"}, {Header: "TYPE"}, {Header: "TRAINEE", Right: true}, {Header: "NAME", Field: "traineeName", Flex: true},
		{Header: "BY", Flex: true}, {Header: "CREATED"}, {Header: "FIELDS", Field: "changedFields", Flex: true}},
	Row: func(e *api.Event) []string {
		d := eventData(e)
		fields := ""
		if e.Type == api.EventTraineeUpdated {
			fields = strings.Join(d.ChangedFields, ", ")
		}
		return []string{e.ID, e.Type, eventTrainee(d), eventName(d), e.Actor.Label(), stamp(e.CreatedAt), fields}
	},
}

func runEventsList(ctx context.Context, f *cmdutil.Factory, o *EventsListOptions) error {
	c, err := f.Client()
	if err != nil {
		return err
	}
	list := func(ctx context.Context, p client.ListParams, opts ...client.RequestOption) iter.Seq2[*api.Event, error] {
		return c.ListEvents(ctx, client.EventParams{Types: o.Types, Desc: !o.OldestFirst,
			After: p.After, Limit: p.Limit, Max: p.Max, Pages: p.Pages}, opts...)
	}
	return runList(ctx, f, &o.listFlags, list, client.ListParams{After: o.After}, eventRows)
}

// eventData is an event's payload's data (empty when it has none).
func eventData(e *api.Event) api.WebhookData {
	var p api.WebhookEvent
	_ = json.Unmarshal(e.Payload, &p)
	return p.Data
}

// eventTrainee is the trainee id of an event's data, "" when it has none.
func eventTrainee(d api.WebhookData) string {
	if d.Trainee == nil {
		return ""
	}
	return id(d.Trainee.ID)
}

// eventName is the trainee's name in an event's data, "" when it has none.
func eventName(d api.WebhookData) string {
	if d.Trainee == nil {
		return ""
	}
	return d.Trainee.Name
}
