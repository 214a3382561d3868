package commands

import (
	"github.com/spf13/cobra"

	"github.com/traineed/traineed/cmd/traineectl/internal/cmdutil"
)

// `traineectl events list|listen`: the event feed.

func newEventsCmd(f *cmdutil.Factory) *cobra.Command {
	c := &cobra.Command{
		Use:   "events <command>",
		Short: "Read your company's event feed, or follow it and forward events",
		Long: `The event feed holds your company's events (trainee.created,
trainee.updated, trainee.deleted, trainee.restored, trainee.expired) in
order, with the ids and bodies the webhooks deliver, for at least 30 days.
"events list" reads it; "events listen" follows it and can forward each
event, signed, to a local URL, like "stripe listen".`,
	}
	c.AddCommand(newEventsListCmd(f, nil), newEventsListenCmd(f, nil))
	return c
}
