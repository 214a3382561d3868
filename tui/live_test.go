package tui

import (
	"context"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/client"
	"github.com/traineed/traineed/tui/internal/common"
	"github.com/traineed/traineed/tui/pages/list"
)

// liveDriver is a driver whose event feed is followed for real: the
// feed's polls run outside the driver's settling and their answers are
// delivered by pump.
type liveDriver struct {
	*driver
	feed chan tea.Msg
}

func newLiveDriver(t *testing.T, c common.Client, o Options) *liveDriver {
	t.Helper()
	feed := make(chan tea.Msg, 16)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel) // before the server closes: no long poll stays open
	o.Context = ctx
	o.background = func(cmd tea.Cmd) tea.Cmd {
		return func() tea.Msg {
			go func() { feed <- cmd() }()
			return nil
		}
	}
	return &liveDriver{driver: newDriver(t, c, o), feed: feed}
}

// pumpUntil delivers the feed's answers until ok holds, or fails after
// within.
func (d *liveDriver) pumpUntil(t *testing.T, within time.Duration, what string, ok func() bool) time.Duration {
	t.Helper()
	start := time.Now()
	deadline := time.After(within)
	for !ok() {
		select {
		case msg := <-d.feed:
			d.send(msg)
			d.settle()
		case <-deadline:
			t.Fatalf("%s: not within %s; screen:\n%s", what, within, d.screen())
		}
	}
	return time.Since(start)
}

// firstFeedRead waits for the feed's first answer (the newest events):
// from then on the TUI follows the feed.
func (d *liveDriver) firstFeedRead(t *testing.T) {
	t.Helper()
	d.pumpUntil(t, 5*time.Second, "the feed's first read", func() bool { return d.m.Live.Started })
}

// Two clients: while the TUI is open on the list, another client changes
// a trainee through the API; the row shows the change, with its marker,
// within 2 seconds and without a key; the open trainee and a new trainee
// follow too, and so do the dashboard's counts.
func TestAChangeThroughTheAPIShowsWithinTwoSeconds(t *testing.T) {
	s := newServer(t)
	d := newLiveDriver(t, s.client(s.Key), Options{NoColor: true})
	d.send(tea.WindowSizeMsg{Width: 120, Height: 35})
	d.firstFeedRead(t)
	d.expect(t, "Ada Park", "● auto-refresh")
	other := s.direct()
	ctx := context.Background()
	if _, err := other.UpdateTrainee(ctx, 1, api.TraineePatch{Name: api.Val("Ada Parker-Live")}); err != nil {
		t.Fatal(err)
	}
	took := d.pumpUntil(t, 2*time.Second, "the renamed row", func() bool { return strings.Contains(d.screen(), "Ada Parker-Live") })
	t.Logf("the change showed after %s", took)
	row := lineWith(d.screen(), "Ada Parker-Live")
	if !strings.HasPrefix(row, list.MarkChanged) && !strings.Contains(row, list.MarkChanged) {
		t.Errorf("the changed row has no marker %q: %q", list.MarkChanged, row)
	}

	// The open trainee follows.
	d.press("enter")
	d.expect(t, "Ada Parker-Live", "[Profile]")
	if _, err := other.UpdateTrainee(ctx, 1, api.TraineePatch{Name: api.Val("Ada Park")}); err != nil {
		t.Fatal(err)
	}
	d.pumpUntil(t, 2*time.Second, "the open trainee", func() bool {
		return strings.Contains(d.screen(), "Ada Park ") && !strings.Contains(d.screen(), "Parker-Live")
	})

	// The home page's counts and recent changes follow a new trainee.
	d.press("esc", "H")
	before := d.m.home.Counts.Active
	created, err := other.CreateTrainee(ctx, api.CreateRequest{Name: "Live Newcomer", Email: "live.newcomer@example.com", Password: "long enough"})
	if err != nil {
		t.Fatal(err)
	}
	d.pumpUntil(t, 2*time.Second, "the home page", func() bool {
		return d.m.home.Counts.Active == before+1 && strings.Contains(d.screen(), "Live Newcomer")
	})
	d.expect(t, "created", "updated")

	// The list, at the sort's place (by id: the end, every page read).
	d.press("l", "G")
	d.expect(t, created.Name)
}

// L turns live mode off and on; a feed that cannot be read shows in the
// status line, and is tried again after a pause.
func TestLiveModeToggleAndUnreachableFeed(t *testing.T) {
	s := newServer(t)
	d := newLiveDriver(t, s.client(s.Key), Options{NoColor: true})
	d.send(tea.WindowSizeMsg{Width: 80, Height: 24})
	d.firstFeedRead(t)
	d.press("L")
	d.expect(t, "○ paused", "Live updates off")
	if d.m.Live.On {
		t.Fatal("L did not turn live mode off")
	}
	d.press("L")
	d.expect(t, "● auto-refresh")

	// A server that is gone: the badge and the status line say so.
	dead := client.New("http://127.0.0.1:1", s.Key, client.WithRetryDelays())
	d2 := newLiveDriver(t, dead, Options{NoColor: true})
	d2.send(tea.WindowSizeMsg{Width: 80, Height: 24})
	d2.pumpUntil(t, 5*time.Second, "the feed's failure", func() bool { return d2.m.Live.Fails > 0 })
	d2.expect(t, "● offline")
	if !strings.Contains(d2.m.Background, "Live updates paused: the event feed is unreachable") ||
		!strings.Contains(d2.m.Background, "retrying in 1s") {
		t.Errorf("status line's background: %q", d2.m.Background)
	}
	d2.m.Status = "" // the request's error gone, the feed's state stays
	d2.expect(t, "⚠ Live updates paused")
	if common.FeedBackoff(1) != time.Second || common.FeedBackoff(3) != 4*time.Second || common.FeedBackoff(20) != 30*time.Second {
		t.Errorf("backoff %v %v %v", common.FeedBackoff(1), common.FeedBackoff(3), common.FeedBackoff(20))
	}
}

// lineWith is the line of screen that holds s.
func lineWith(screen, s string) string {
	for _, l := range strings.Split(screen, "\n") {
		if strings.Contains(l, s) {
			return l
		}
	}
	return ""
}
