package main

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/cmd/internal/textout"
	"github.com/traineed/traineed/store"
)

func newWebhookCmd(e *env) *cobra.Command {
	c := &cobra.Command{Use: "webhook", Short: "Configure outbound webhooks and inspect their deliveries",
		Long: `A webhook sends every change of a company's trainees (trainee.created, trainee.updated,
trainee.deleted, trainee.restored) and the day a trainee's program ends (trainee.expired)
to an http or https URL, signed as Standard Webhooks
specifies with the webhook's secret, which is shown once, when it is added. The server
(traineed serve) delivers the events at least once, retrying after 5 s, 5 min, 30 min,
2 h, 5 h, 10 h and 10 h before it marks a delivery failed.`}
	c.AddCommand(newWebhookAddCmd(e), newWebhookListCmd(e), newWebhookDeliveriesCmd(e), newWebhookRedeliverCmd(e),
		idAction(e, "webhook", "delete", "Delete a webhook with its deliveries' history", func(s *store.Store, id int64) error {
			return s.DeleteWebhook(e.ctx, id)
		}),
		idAction(e, "webhook", "disable", "Pause a webhook: its deliveries wait until it is enabled", func(s *store.Store, id int64) error {
			return s.SetWebhookDisabled(e.ctx, id, true)
		}),
		idAction(e, "webhook", "enable", "Resume a paused webhook", func(s *store.Store, id int64) error {
			return s.SetWebhookDisabled(e.ctx, id, false)
		}))
	return c
}

func newWebhookAddCmd(e *env) *cobra.Command {
	var company int64
	var url, events string
	var ob outboundFlags
	add := &cobra.Command{
		Use:   "add --company ID --url URL [--events LIST]",
		Short: "Add a webhook: prints its id, then its secret (the only time it is shown)",
		Example: `  traineed webhook add --company 1 --url https://crm.example/hooks/traineed
  traineed webhook add --company 1 --url https://audit.example/in --events trainee.deleted,trainee.restored`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			if err := api.ValidateURLFlag("--url", url); err != nil {
				return usageError{err}
			}
			oc, err := ob.client(0)
			if err != nil {
				return err
			}
			if err := oc.CheckURL(url); err != nil {
				return usageError{fmt.Errorf("--url: %w; the server would never send to it (see --webhook-allow) (%d)", err, api.CodeDestinationNotAllowed)}
			}
			list, err := api.ParseWebhookEvents(events)
			if err != nil {
				return usageError{err}
			}
			return e.withStore(func(s *store.Store) error {
				secret := api.GenerateWebhookSecret()
				w, err := s.CreateWebhook(e.ctx, company, url, list, secret)
				if err != nil {
					return err
				}
				fmt.Fprintln(e.out, w.ID)
				fmt.Fprintln(e.out, secret)
				return nil
			})
		},
	}
	add.Flags().Int64Var(&company, "company", 0, "company id (required)")
	add.Flags().StringVar(&url, "url", "", "the http or https URL to POST events to (required)")
	add.Flags().StringVar(&events, "events", "", "comma-separated event types to send, or all (default: every trainee event, "+strings.Join(api.TraineeEventTypes, ",")+"; the others: "+strings.Join(api.AdminEventTypes, ",")+")")
	ob.register(add, false)
	_ = add.MarkFlagRequired("company")
	_ = add.MarkFlagRequired("url")
	return add
}

func newWebhookListCmd(e *env) *cobra.Command {
	var company int64
	list := &cobra.Command{
		Use:   "list --company ID",
		Short: "List a company's webhooks (never their secrets)",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			if err := checkOutput(e); err != nil {
				return err
			}
			return e.withStore(func(s *store.Store) error {
				ws, err := s.Webhooks(e.ctx, company)
				if err != nil {
					return err
				}
				return e.print(adminWebhooks(ws), webhookColumns, func(row func(...any)) {
					for _, w := range ws {
						evs := api.EventsLabel(w.Events)
						reason := ""
						if w.DisabledReason != nil {
							reason = *w.DisabledReason
						}
						row(w.ID, w.URL, evs, w.State, stamp(w.CreatedAt), reason)
					}
				})
			})
		},
	}
	list.Flags().Int64Var(&company, "company", 0, "company id (required)")
	_ = list.MarkFlagRequired("company")
	addOutputFlag(list, e)
	return list
}

// webhookColumns are the columns of `webhook list`.
var webhookColumns = []textout.Column{idColumn, {Header: "URL", Flex: true, MinWidth: 20}, {Header: "EVENTS", Flex: true},
	{Header: "STATE"}, {Header: "CREATED", Drop: 1}, {Header: "REASON", Flex: true}}

// adminWebhook is a row of `webhook list -o json`: the documented members,
// and disabledReason only when the server disabled the endpoint, so that
// the members of an active endpoint are exactly those docs/server.md lists.
type adminWebhook struct {
	ID             int64     `json:"id"`
	CompanyID      int64     `json:"companyId"`
	URL            string    `json:"url"`
	Events         []string  `json:"events"`
	State          string    `json:"state"`
	DisabledReason *string   `json:"disabledReason,omitempty"`
	CreatedAt      time.Time `json:"createdAt"`
}

func adminWebhooks(ws []*api.Webhook) []adminWebhook {
	out := make([]adminWebhook, len(ws))
	for i, w := range ws {
		out[i] = adminWebhook{ID: w.ID, CompanyID: w.CompanyID, URL: w.URL, Events: w.Events, State: w.State, DisabledReason: w.DisabledReason, CreatedAt: w.CreatedAt}
	}
	return out
}

func newWebhookDeliveriesCmd(e *env) *cobra.Command {
	var limit int
	deliveries := &cobra.Command{
		Use:   "deliveries ID",
		Short: "Show a webhook's recent delivery attempts, newest first",
		Long: `Shows the most recent attempts of a webhook's deliveries, newest first: the event id
(the webhook-id header the receiver saw), the event type, the attempt number, the
receiver's status code, the latency, the error, when the attempt started, and the
delivery's state (pending, succeeded, failed). A delivery not attempted yet shows as
attempt 0. -o json adds the first KiB of each response body and the next attempt's time.`,
		Args: cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			if err := checkOutput(e); err != nil {
				return err
			}
			id, err := positiveID("webhook", args[0])
			if err != nil {
				return err
			}
			if limit < 1 {
				return usageError{fmt.Errorf("--limit must be at least 1")}
			}
			return e.withStore(func(s *store.Store) error {
				as, err := s.WebhookAttempts(e.ctx, id, limit)
				if err != nil {
					return err
				}
				return e.print(as, attemptColumns, attemptRows(as))
			})
		},
	}
	deliveries.Flags().IntVar(&limit, "limit", 50, "show at most this many attempts")
	addOutputFlag(deliveries, e)
	return deliveries
}

// attemptColumns are the columns of `webhook deliveries`: on a narrow
// terminal the latency and the attempt number go first, then the error
// is shortened.
var attemptColumns = []textout.Column{{Header: "EVENT"}, {Header: "TYPE"}, {Header: "ATTEMPT", Right: true, Drop: 2},
	{Header: "STATUS", Right: true}, {Header: "LATENCY", Right: true, Drop: 1}, {Header: "ERROR", Flex: true},
	{Header: "TIME"}, {Header: "STATE"}}

// attemptRows are the table rows of `webhook deliveries`.
func attemptRows(as []*api.WebhookAttempt) func(row func(...any)) {
	return func(row func(...any)) {
		for _, a := range as {
			status, latency, msg := "-", "-", ""
			if a.StatusCode != nil {
				status = strconv.Itoa(*a.StatusCode)
			}
			if a.LatencyMs != nil {
				latency = strconv.FormatFloat(*a.LatencyMs, 'f', 1, 64) + " ms"
			}
			if a.Error != nil {
				msg = *a.Error
			}
			row(a.EventID, a.Type, a.Attempt, status, latency, msg, a.Time.UTC().Format("2006-01-02 15:04:05Z"), a.State)
		}
	}
}

func newWebhookRedeliverCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "redeliver EVENT-ID",
		Short: "Send an event again to its company's webhooks subscribed to it; prints the new delivery ids",
		Long: `Schedules a new delivery of an event (its id is the webhook-id a receiver saw, evt_...)
to every current webhook of its company subscribed to its type, due at once; the running
server sends it. The event is sent as it was recorded, with the same webhook-id, so a
receiver that deduplicates on webhook-id ignores it when it has processed it already.
Prints the new deliveries' ids, one a line.`,
		Args: cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			if !strings.HasPrefix(args[0], api.WebhookEventIDPrefix) {
				return usageError{fmt.Errorf("an event id starts with %s, not %q", api.WebhookEventIDPrefix, args[0])}
			}
			return e.withStore(func(s *store.Store) error {
				ids, err := s.Redeliver(e.ctx, args[0])
				if err != nil {
					return err
				}
				for _, id := range ids {
					fmt.Fprintln(e.out, id)
				}
				return nil
			})
		},
	}
}

// idAction is a subcommand "USE ID" that runs fn with the open store and
// the id of a what (a webhook, a key): a positive integer, else a usage
// error.
func idAction(e *env, what, use, short string, fn func(s *store.Store, id int64) error) *cobra.Command {
	return &cobra.Command{
		Use: use + " ID", Short: short, Args: cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			id, err := positiveID(what, args[0])
			if err != nil {
				return err
			}
			return e.withStore(func(s *store.Store) error { return fn(s, id) })
		},
	}
}

func positiveID(what, s string) (int64, error) {
	id, ok := api.ParseID(s)
	if !ok {
		return 0, usageError{fmt.Errorf("%s id must be a positive integer, not %q", what, s)}
	}
	return id, nil
}
