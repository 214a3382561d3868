package commands

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/cmd/traineectl/internal/cmdutil"
)

// `traineectl events list|listen`: the event feed.

func newEventsCmd(f *cmdutil.Factory) *cobra.Command {
	c := &cobra.Command{
		Use:   "events <command>",
		Short: "Read your company's event feed, or follow it and forward events",
		Long:  eventsLong(),
	}
	c.AddCommand(newEventsListCmd(f, nil), newEventsListenCmd(f, nil))
	return c
}

// eventsLong is events' help, its list of types the server's own
// (api.FeedEventTypes), so that a new type is in it.
func eventsLong() string {
	return wrapWords("The event feed holds your company's events ("+strings.Join(api.FeedEventTypes, ", ")+
		") in order, with the ids and bodies the webhooks deliver, for at least 30 days.", helpWidth) + `
"events list" reads it; "events listen" follows it and can forward each
event, signed, to a local URL, like "stripe listen".`
}
