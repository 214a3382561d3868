package tui

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/client"
)

// Live mode: the root follows the company's event feed (GET /events with
// wait=, a long poll) while the TUI runs. Each trainee event another
// client caused (or this one) updates the list's row, the open trainee
// and the dashboard's counts as it arrives, and goes to the recent
// changes the dashboard shows. L turns it off and on; when the feed
// cannot be read, the status line says so and the poll is tried again
// after a growing pause.

// Live mode's timing.
const (
	// feedWait is the long poll's wait= (seconds): the server answers as
	// soon as an event commits, or empty after this.
	feedWait = 20
	// recentKept is how many recent changes are kept for the dashboard.
	recentKept = 50
)

// feedBackoff is the pause before the n-th retry of an unreachable feed.
func feedBackoff(n int) time.Duration {
	d := time.Second << min(max(n-1, 0), 5)
	return min(d, 30*time.Second)
}

// change is one event of the feed as the recent changes show it.
type change struct {
	id      string // the event's id
	at      time.Time
	kind    string // api.EventTrainee...
	trainee *api.Trainee
	fields  []string
	who     string // the actor (api.Actor.Label), "" when the event has none
}

// feedMsg is the answer of one poll of the feed.
type feedMsg struct {
	gen    int
	first  bool // the newest events, read at the start (newest first)
	page   *api.EventPage
	err    error
	waited time.Duration
}

// feedRetryMsg ends the pause before a poll is tried again.
type feedRetryMsg struct{ gen int }

// liveFeed is the root's follower of the feed.
type liveFeed struct {
	on      bool
	gen     int // drops the answers of polls started before L
	started bool
	after   string // the feed's cursor: the last event seen
	fails   int    // polls failed in a row
	problem string // why the feed is not followed now ("" when it is)
	refused bool   // the feed's key was refused (401): the title says so, not offline
	cancel  context.CancelFunc
	recent  []change // newest first
}

// pollFeed starts one poll: the newest events at the start, then the
// long poll after the cursor.
func (m *Model) pollFeed() tea.Cmd {
	f := &m.live
	if !f.on || m.opt.NoAPIKey {
		return nil
	}
	if f.cancel != nil {
		f.cancel()
	}
	ctx, cancel := context.WithTimeout(m.opt.Context, time.Duration(feedWait)*time.Second+m.opt.Timeout)
	f.cancel = cancel
	gen, c, first := f.gen, m.c, !f.started
	p := client.EventParams{After: f.after, Wait: feedWait, Limit: api.MaxEventLimit}
	if first {
		p = client.EventParams{Desc: true, Limit: recentKept}
	}
	cmd := func() tea.Msg {
		defer cancel()
		start := time.Now()
		pg, err := c.Events(ctx, p)
		return feedMsg{gen: gen, first: first, page: pg, err: err, waited: time.Since(start)}
	}
	if m.opt.background != nil {
		return m.opt.background(cmd)
	}
	return cmd
}

// feedResult takes a poll's events and starts the next poll, or the pause
// before the next try when the feed could not be read.
func (m *Model) feedResult(msg feedMsg) tea.Cmd {
	f := &m.live
	if msg.gen != f.gen || !f.on {
		return nil
	}
	if msg.err != nil {
		f.fails++
		wait := feedBackoff(f.fails)
		cause, _ := describeParts(msg.err)
		f.refused = isAuthRefused(msg.err)
		f.problem = fmt.Sprintf("Live updates paused: the event feed is unreachable (%s); retrying in %s.",
			strings.TrimSuffix(cause, "."), wait)
		if f.refused && m.keyGone != "" {
			f.problem = "Live updates paused. " + m.keyGone
		}
		m.background = f.problem
		gen := f.gen
		return tea.Tick(wait, func(time.Time) tea.Msg { return feedRetryMsg{gen} })
	}
	f.fails, f.problem, m.background = 0, "", ""
	events := msg.page.Events
	if msg.first {
		f.started = true
		if len(events) > 0 {
			f.after = events[0].ID
		}
		slices.Reverse(events) // oldest first, as the long poll's
		for _, e := range events {
			if c, ok := changeOf(e); ok {
				f.remember(c)
			}
		}
		return m.pollFeed()
	}
	if msg.page.Next != "" {
		f.after = msg.page.Next
	}
	var cmds []tea.Cmd
	for _, e := range events {
		if c, ok := changeOf(e); ok {
			f.remember(c)
			cmds = append(cmds, m.applyChange(c))
		}
	}
	cmds = append(cmds, m.pollFeed())
	return tea.Batch(cmds...)
}

// remember puts c first in the recent changes.
func (f *liveFeed) remember(c change) {
	f.recent = append([]change{c}, f.recent...)
	if len(f.recent) > recentKept {
		f.recent = f.recent[:recentKept]
	}
}

// changeOf reads a trainee event of the feed.
func changeOf(e *api.Event) (change, bool) {
	if !strings.HasPrefix(e.Type, "trainee.") {
		return change{}, false
	}
	var we api.WebhookEvent
	if err := json.Unmarshal(e.Payload, &we); err != nil || we.Data.Trainee == nil {
		return change{}, false
	}
	return change{id: e.ID, at: e.CreatedAt, kind: e.Type, trainee: we.Data.Trainee, fields: we.Data.ChangedFields,
		who: e.Actor.Label()}, true
}

// applyChange shows a trainee's new state wherever it is shown: its row
// (marked as changed), the open trainee, the dashboard's counts.
func (m *Model) applyChange(c change) tea.Cmd {
	t := c.trainee
	m.list.liveChange(t, c.kind == api.EventTraineeCreated)
	if m.trainee.t != nil && m.trainee.t.ID == t.ID {
		m.trainee.t = t
	}
	if m.form.open && m.form.orig != nil && m.form.orig.ID == t.ID && !m.form.sending {
		m.form.changedMeanwhile = true
	}
	return m.home.countsChanged()
}

// toggleLive turns live mode off, or on again (it catches up from where
// it stopped).
func (m *Model) toggleLive() tea.Cmd {
	f := &m.live
	f.on = !f.on
	f.gen++
	f.fails, f.problem, m.background = 0, "", ""
	if !f.on {
		if f.cancel != nil {
			f.cancel()
		}
		m.setStatus(statusInfo, "Live updates off: L turns them on again.")
		return nil
	}
	m.setStatus(statusInfo, "Live updates on.")
	return tea.Batch(m.pollFeed(), m.home.countsChanged(), m.list.reload(true))
}

// liveBadge is the title bar's word for live mode: "● auto-refresh", not
// "live", the name of the list's tab of trainees not deleted.
func (c *common) liveBadge() string {
	f := &c.live
	switch {
	case !f.on:
		return c.th.dim.Render("○ paused")
	case f.problem != "" && f.refused:
		return c.th.errText.Render("● key refused")
	case f.problem != "":
		return c.th.errText.Render("● offline")
	}
	return c.th.okText.Render("● auto-refresh")
}
