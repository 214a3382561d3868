package common

import ()

// The home page (the dashboard), the TUI's first screen: what needs the
// coach's attention, as counts that each open the list filtered to them,
// and the recent changes of the event feed. Live mode keeps both current.

// listFilter narrows the list beyond its status tab: what a count of the
// dashboard opens. The zero value is no filter.
type ListFilter struct {
	Label         string // as the list's second line names it
	ExpiresWithin int    // days
	InactiveFor   int    // days
	CreatedWithin int    // days, today included
}
