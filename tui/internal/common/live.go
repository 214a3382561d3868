package common

import (
	"context"
	"time"

	"github.com/traineed/traineed/api"
)

// Live mode's timing.
const (
	// FeedWait is the long poll's wait= (seconds): the server answers as
	// soon as an event commits, or empty after this.
	FeedWait = 20
	// RecentKept is how many recent changes are kept for the dashboard.
	RecentKept = 50
)

// FeedBackoff is the pause before the n-th retry of an unreachable feed.
func FeedBackoff(n int) time.Duration {
	d := time.Second << min(max(n-1, 0), 5)
	return min(d, 30*time.Second)
}

// Change is one event of the feed as the recent changes show it.
type Change struct {
	Id      string // the event's id
	At      time.Time
	Kind    string // api.EventTrainee...
	Trainee *api.Trainee
	Fields  []string
	Who     string // the actor (api.Actor.Label), "" when the event has none
}

// liveFeed is the root's follower of the feed.
type liveFeed struct {
	On      bool
	Gen     int // drops the answers of polls started before L
	Started bool
	After   string // the feed's cursor: the last event seen
	Fails   int    // polls failed in a row
	Problem string // why the feed is not followed now ("" when it is)
	Refused bool   // the feed's key was refused (401): the title says so, not offline
	Cancel  context.CancelFunc
	Recent  []Change // newest first
}

// Remember puts c first in the recent changes.
func (f *liveFeed) Remember(c Change) {
	f.Recent = append([]Change{c}, f.Recent...)
	if len(f.Recent) > RecentKept {
		f.Recent = f.Recent[:RecentKept]
	}
}

// LiveBadge is the title bar's word for live mode: "● auto-refresh", not
// "live", the name of the list's tab of trainees not deleted.
func (c *Common) LiveBadge() string {
	f := &c.Live
	switch {
	case !f.On:
		return c.Th.Dim.Render("○ paused")
	case f.Problem != "" && f.Refused:
		return c.Th.ErrText.Render("● key refused")
	case f.Problem != "":
		return c.Th.ErrText.Render("● offline")
	}
	return c.Th.OkText.Render("● auto-refresh")
}
