package common

import (
	"time"
)

// zone is where the TUI shows instants (Options.Zone, else local).
func (c *Common) Zone() *time.Location {
	if c.Opt.Zone != nil {
		return c.Opt.Zone
	}
	return time.Local
}
