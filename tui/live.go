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
	"github.com/traineed/traineed/tui/components/statusline"
	"github.com/traineed/traineed/tui/internal/common"
)

// Live mode: the root follows the company's event feed (GET /events with
// wait=, a long poll) while the TUI runs. Each trainee event another
// client caused (or this one) updates the list's row, the open trainee
// and the dashboard's counts as it arrives, and goes to the recent
// changes the dashboard shows. L turns it off and on; when the feed
// cannot be read, the status line says so and the poll is tried again
// after a growing pause.

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

// pollFeed starts one poll: the newest events at the start, then the
// long poll after the cursor.
func (m *Model) pollFeed() tea.Cmd {
	f := &m.Live
	if !f.On || m.opt.NoAPIKey {
		return nil
	}
	if f.Cancel != nil {
		f.Cancel()
	}
	ctx, cancel := context.WithTimeout(m.opt.Context, time.Duration(common.FeedWait)*time.Second+m.opt.Timeout)
	f.Cancel = cancel
	gen, c, first := f.Gen, m.C, !f.Started
	p := client.EventParams{After: f.After, Wait: common.FeedWait, Limit: api.MaxEventLimit}
	if first {
		p = client.EventParams{Desc: true, Limit: common.RecentKept}
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
	f := &m.Live
	if msg.gen != f.Gen || !f.On {
		return nil
	}
	if msg.err != nil {
		f.Fails++
		wait := common.FeedBackoff(f.Fails)
		cause, _ := statusline.DescribeParts(msg.err)
		f.Refused = statusline.IsAuthRefused(msg.err)
		f.Problem = fmt.Sprintf("Live updates paused: the event feed is unreachable (%s); retrying in %s.",
			strings.TrimSuffix(cause, "."), wait)
		if f.Refused && m.KeyGone != "" {
			f.Problem = "Live updates paused. " + m.KeyGone
		}
		m.Background = f.Problem
		gen := f.Gen
		return tea.Tick(wait, func(time.Time) tea.Msg { return feedRetryMsg{gen} })
	}
	f.Fails, f.Problem, m.Background = 0, "", ""
	m.ServerAnswered()
	events := msg.page.Events
	if msg.first {
		f.Started = true
		if len(events) > 0 {
			f.After = events[0].ID
		}
		slices.Reverse(events) // oldest first, as the long poll's
		for _, e := range events {
			if c, ok := changeOf(e); ok {
				f.Remember(c)
			}
		}
		return m.pollFeed()
	}
	if msg.page.Next != "" {
		f.After = msg.page.Next
	}
	var cmds []tea.Cmd
	for _, e := range events {
		if c, ok := changeOf(e); ok {
			f.Remember(c)
			cmds = append(cmds, m.applyChange(c))
		}
	}
	cmds = append(cmds, m.pollFeed())
	return tea.Batch(cmds...)
}

// changeOf reads a trainee event of the feed.
func changeOf(e *api.Event) (common.Change, bool) {
	if !strings.HasPrefix(e.Type, "trainee.") {
		return common.Change{}, false
	}
	var we api.WebhookEvent
	if err := json.Unmarshal(e.Payload, &we); err != nil || we.Data.Trainee == nil {
		return common.Change{}, false
	}
	return common.Change{Id: e.ID, At: e.CreatedAt, Kind: e.Type, Trainee: we.Data.Trainee, Fields: we.Data.ChangedFields,
		Who: e.Actor.Label()}, true
}

// applyChange shows a trainee's new state wherever it is shown: its row
// (marked as changed), the open trainee, the dashboard's counts.
func (m *Model) applyChange(c common.Change) tea.Cmd {
	t := c.Trainee
	m.list.LiveChange(t, c.Kind == api.EventTraineeCreated)
	if m.trainee.T != nil && m.trainee.T.ID == t.ID {
		m.trainee.T = t
	}
	if m.form.Open && m.form.Orig != nil && m.form.Orig.ID == t.ID && !m.form.Sending {
		m.form.ChangedMeanwhile = true
	}
	return m.home.CountsChanged()
}

// toggleLive turns live mode off, or on again (it catches up from where
// it stopped).
func (m *Model) toggleLive() tea.Cmd {
	f := &m.Live
	f.On = !f.On
	f.Gen++
	f.Fails, f.Problem, m.Background = 0, "", ""
	if !f.On {
		if f.Cancel != nil {
			f.Cancel()
		}
		m.SetStatus(statusline.StatusInfo, "Live updates off: L turns them on again.")
		return nil
	}
	m.SetStatus(statusline.StatusInfo, "Live updates on.")
	return tea.Batch(m.pollFeed(), m.home.CountsChanged(), m.list.Reload(true))
}
