package tui

import (
	"fmt"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/traineed/traineed/api"
)

// screen names a page.
type screen int

const (
	screenList screen = iota
	screenTrainee
	screenForm
	screenWebhooks
	screenAutomations
	screenRuns
)

// common is what the root model and every page share (soft-serve's
// common.Common): the client and options, the theme and the key map, the
// screen's size, the company's trainers, and the two components every page
// writes to: the requests in flight (with the spinner) and the status line.
type common struct {
	c      Client
	opt    Options
	th     theme
	isDark bool
	keys   keyMap

	width, height int

	trainers map[int64]string // trainer names by id, escaped (nil until read)

	requests
	statusLine
}

func (c *common) today() api.Date { return c.opt.Today() }

// contentHeight is the number of lines between the two title lines and the
// status and help lines.
func (c *common) contentHeight() int { return max(c.height-3-len(c.statusLines(c.width)), 1) }

// titleBar lays out left and right on one line of the screen's width.
func (c *common) titleBar(left, right string) string { return titleBar(c.width, left, right) }

// readOnlyRefusal refuses a change on a read-only key, saying why.
func (c *common) readOnlyRefusal(what string) bool {
	if !c.opt.ReadOnly {
		return false
	}
	c.setStatus(statusError, "This API key is read-only: %s needs a full key.", what)
	return true
}

// stamp is an instant as the screens show it: api.ShownTimeLayout in the
// zone of Options (local by default), as traineectl's tables.
func (c *common) stamp(t time.Time) string {
	loc := c.opt.Zone
	if loc == nil {
		loc = time.Local
	}
	return t.In(loc).Format(api.ShownTimeLayout)
}

// step reads a navigation key as a move of n rows (page is a page's rows).
func (c *common) step(msg tea.KeyPressMsg, page int) (int, bool) {
	k := c.keys
	switch {
	case key.Matches(msg, k.Up):
		return -1, true
	case key.Matches(msg, k.Down):
		return 1, true
	case key.Matches(msg, k.PageUp):
		return -page, true
	case key.Matches(msg, k.PageDown):
		return page, true
	case key.Matches(msg, k.Top):
		return -1 << 30, true
	case key.Matches(msg, k.Bottom):
		return 1 << 30, true
	}
	return 0, false
}

// trainerName is how a trainer shows: the name when known, else "#id".
func trainerName(names map[int64]string, id *int64) string {
	switch {
	case id == nil:
		return "-"
	case names[*id] != "":
		return names[*id]
	}
	return fmt.Sprintf("#%d", *id)
}
