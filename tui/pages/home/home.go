package home

import (
	"context"
	"strconv"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/tui/components/keymap"
	"github.com/traineed/traineed/tui/components/layout"
	"github.com/traineed/traineed/tui/components/requests"
	"github.com/traineed/traineed/tui/components/table"
	"github.com/traineed/traineed/tui/internal/common"
)

// homeCount is one count of the dashboard and the list it opens.
type homeCount struct {
	Label  string
	Value  func(s *homeCounts) int
	Status string
	Filter func(today api.Date) common.ListFilter
}

// homeCounts are the dashboard's numbers (-1: not known).
type homeCounts struct {
	Active, Expiring7, Expiring30, Expired, Inactive14, New7, Deleted int
}

var Rows = []homeCount{
	{"active", func(s *homeCounts) int { return s.Active }, api.StatusActive, nil},
	{"expiring in 7 days", func(s *homeCounts) int { return s.Expiring7 }, api.StatusActive,
		func(api.Date) common.ListFilter {
			return common.ListFilter{Label: "expiring in 7 days", ExpiresWithin: 7}
		}},
	{"expiring in 30 days", func(s *homeCounts) int { return s.Expiring30 }, api.StatusActive,
		func(api.Date) common.ListFilter {
			return common.ListFilter{Label: "expiring in 30 days", ExpiresWithin: 30}
		}},
	{"expired", func(s *homeCounts) int { return s.Expired }, api.StatusExpired, nil},
	{"inactive for 14+ days", func(s *homeCounts) int { return s.Inactive14 }, api.StatusLive,
		func(api.Date) common.ListFilter {
			return common.ListFilter{Label: "inactive for 14+ days", InactiveFor: 14}
		}},
	{"new this week", func(s *homeCounts) int { return s.New7 }, api.StatusLive,
		func(api.Date) common.ListFilter {
			return common.ListFilter{Label: "created in the last 7 days", CreatedWithin: 7}
		}},
	{"deleted", func(s *homeCounts) int { return s.Deleted }, api.StatusDeleted, nil},
}

// homeModel is the home page.
type Model struct {
	*common.Common

	Counts  homeCounts
	loaded  bool
	failed  bool // the last read failed (a refused key): the counts show "-"
	Cursor  int  // a count (0..len(homeRows)-1), then a recent change
	offset  int  // first recent change shown
	pending bool
}

// countsAnswer is the dashboard's numbers read.
type countsAnswer struct{ c homeCounts }

// Reload reads the counts again.
func (h *Model) Reload() tea.Cmd {
	c, mine := h.C, h.Mine
	return h.Call(requests.SlotHome, func(ctx context.Context) (any, error) {
		s, err := loadCounts(ctx, c, mine)
		return countsAnswer{s}, err
	})
}

// CountsChanged reads the counts again after a change the feed reported;
// changes that come together are read once.
func (h *Model) CountsChanged() tea.Cmd {
	if h.pending {
		return nil
	}
	h.pending = true
	return tea.Tick(300*time.Millisecond, func(time.Time) tea.Msg { return CountsDueMsg{} })
}

// CountsDueMsg: the counts are read again after changes.
type CountsDueMsg struct{}

func (h *Model) Update(msg tea.Msg) tea.Cmd {
	if _, ok := msg.(CountsDueMsg); ok {
		h.pending = false
		return h.Reload()
	}
	r, ok := h.Answer(msg)
	if !ok {
		if r.Err != nil { // said in the status line
			h.failed = true
		}
		return nil
	}
	h.Counts, h.loaded, h.failed = r.Val.(countsAnswer).c, true, false
	return nil
}

func (h *Model) Help() keymap.HelpKeys {
	admin, known := h.IsAdmin()
	return h.Keys.HomeHelp(h.Whose(), h.Limited(), admin || !known)
}

func (h *Model) TakesKeys() bool { return false }

func (h *Model) Shows() (*api.Trainee, int) {
	if i := h.Cursor - len(Rows); i >= 0 && i < len(h.Live.Recent) {
		return h.Live.Recent[i].Trainee, 0
	}
	return nil, h.Cursor
}

func (h *Model) Key(msg tea.KeyPressMsg) tea.Cmd {
	k := h.Keys
	switch {
	case key.Matches(msg, k.Open):
		return h.open()
	case key.Matches(msg, k.List):
		return h.Nav.OpenList(api.StatusLive, common.ListFilter{})
	case key.Matches(msg, k.Webhooks):
		return h.Nav.OpenWebhooks()
	case key.Matches(msg, k.Automations):
		return h.Nav.OpenAutomations()
	case key.Matches(msg, k.Mine) && h.Widens():
		return h.Nav.ToggleMine()
	case key.Matches(msg, k.Refresh):
		return h.Reload()
	}
	n := len(Rows) + len(h.Live.Recent)
	if d, ok := h.Step(msg, 5); ok {
		h.Cursor = layout.Clamp(h.Cursor+d, 0, n-1)
	}
	return nil
}

// open opens the list a count stands for, or the trainee a recent change
// concerns.
func (h *Model) open() tea.Cmd {
	if h.Cursor < len(Rows) {
		r := Rows[h.Cursor]
		var f common.ListFilter
		if r.Filter != nil {
			f = r.Filter(h.Today())
		}
		return h.Nav.OpenList(r.Status, f)
	}
	if i := h.Cursor - len(Rows); i < len(h.Live.Recent) {
		return h.Nav.OpenTrainee(h.Live.Recent[i].Trainee)
	}
	return nil
}

func (h *Model) View() (top, sub, body string) {
	th := h.Th
	title := th.Title.Render("Home")
	sub = th.Dim.Render("What needs attention · enter opens the list of a count · l all trainees")
	if w := h.Whose(); w != "" {
		title += th.Dim.Render(" · " + w)
		other := " · m shows all"
		switch {
		case h.Limited(): // m cannot show all: not offered
			other = ""
		case h.Mine == 0:
			other = " · m shows mine"
		}
		sub = th.Dim.Render("What needs attention among " + w + " · enter opens a count" + other)
	}
	top = h.TopBar(title, h.SpinnerView()+" "+h.LiveBadge()+" ")
	var b strings.Builder
	for i, r := range Rows {
		v := "…"
		if h.failed && !h.loaded {
			v = "-"
		}
		if h.loaded {
			if n := r.Value(&h.Counts); n >= 0 {
				v = strconv.Itoa(n)
			} else {
				v = "-"
			}
		}
		line := layout.PadLeft(v, 7) + "  " + r.Label
		if i == h.Cursor {
			line = th.Selected.Render(layout.PadRight(line, 32))
		}
		b.WriteString(line + "\n")
	}
	b.WriteString("\n" + th.Accent.Render("Recent changes") + "\n")
	rows := h.ContentHeight() - len(Rows) - 3 // the blank, the title and the header lines
	b.WriteString(h.recentView(max(rows, 1)))
	return top, sub, b.String()
}

// recentView is the recent changes, newest first, in rows lines.
func (h *Model) recentView(rows int) string {
	th, recent := h.Th, h.Live.Recent
	if len(recent) == 0 {
		if !h.Live.On {
			return "  " + th.Dim.Render("Live updates are off: L turns them on.")
		}
		return "  " + th.Dim.Render("No change yet: changes show here as they happen.")
	}
	sel := h.Cursor - len(Rows)
	if sel >= 0 {
		h.offset = layout.Clamp(h.offset, sel-rows+1, sel)
	}
	h.offset = layout.Clamp(h.offset, 0, max(len(recent)-rows, 0))
	t := table.FitCols(h.Width-2, recentCols)
	var b strings.Builder
	b.WriteString("  " + th.Header.Render(t.Header()) + "\n")
	for i := h.offset; i < min(h.offset+rows, len(recent)); i++ {
		c := recent[i]
		what := ""
		if c.Kind == api.EventTraineeUpdated {
			what = strings.Join(c.Fields, ", ")
		}
		line := "  " + t.Row(h.when(c.At), strings.TrimPrefix(c.Kind, "trainee."),
			api.EscapeText(c.Trainee.Name), api.EscapeText(c.Who), api.EscapeText(what))
		if i == sel {
			line = th.Selected.Render(line)
		}
		b.WriteString(line + "\n")
	}
	return b.String()
}

// recentCols are the recent changes' columns: when, what, to whom, by
// whom (the key's name, the automation's, "system"), which fields. On a
// narrow terminal the fields go first, then who made the change.
var recentCols = []table.ColSpec{table.Col("WHEN", 6, 6, 0), table.Col("WHAT", 8, 8, 0), table.Col("TRAINEE", 14, 28, 0), table.Col("WHO", 8, 16, 1), table.Col("FIELDS", 10, 0, 2)}

// when is an instant of today as 15:04, of another day as 02 Jan.
func (h *Model) when(t time.Time) string {
	loc := h.Opt.Zone
	if loc == nil {
		loc = time.Local
	}
	t = t.In(loc)
	if api.DateOf(t) == h.Today() {
		return t.Format("15:04")
	}
	return t.Format("02 Jan")
}

// loadCounts reads the dashboard's numbers (GET /trainees/stats), of one
// trainer's trainees (trainerId; 0: the company's).
func loadCounts(ctx context.Context, c common.Client, trainerID int64) (homeCounts, error) {
	s, err := c.TraineeStats(ctx, trainerID)
	if err != nil {
		return homeCounts{-1, -1, -1, -1, -1, -1, -1}, err
	}
	return homeCounts{s.Active, s.Expiring7, s.Expiring30, s.Expired, s.Inactive14, s.New7, s.Deleted}, nil
}
