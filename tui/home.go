package tui

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/traineed/traineed/api"
)

// The home page (the dashboard), the TUI's first screen: what needs the
// coach's attention, as counts that each open the list filtered to them,
// and the recent changes of the event feed. Live mode keeps both current.

// listFilter narrows the list beyond its status tab: what a count of the
// dashboard opens. The zero value is no filter.
type listFilter struct {
	label         string // as the list's second line names it
	expiresWithin int    // days
	inactiveFor   int    // days
	createdWithin int    // days, today included
}

// homeCount is one count of the dashboard and the list it opens.
type homeCount struct {
	label  string
	value  func(s *homeCounts) int
	status string
	filter func(today api.Date) listFilter
}

// homeCounts are the dashboard's numbers (-1: not known).
type homeCounts struct {
	Active, Expiring7, Expiring30, Expired, Inactive14, New7, Deleted int
}

var homeRows = []homeCount{
	{"active", func(s *homeCounts) int { return s.Active }, api.StatusActive, nil},
	{"expiring in 7 days", func(s *homeCounts) int { return s.Expiring7 }, api.StatusActive,
		func(api.Date) listFilter { return listFilter{label: "expiring in 7 days", expiresWithin: 7} }},
	{"expiring in 30 days", func(s *homeCounts) int { return s.Expiring30 }, api.StatusActive,
		func(api.Date) listFilter { return listFilter{label: "expiring in 30 days", expiresWithin: 30} }},
	{"expired", func(s *homeCounts) int { return s.Expired }, api.StatusExpired, nil},
	{"inactive for 14+ days", func(s *homeCounts) int { return s.Inactive14 }, api.StatusLive,
		func(api.Date) listFilter { return listFilter{label: "no data for 14+ days", inactiveFor: 14} }},
	{"new this week", func(s *homeCounts) int { return s.New7 }, api.StatusLive,
		func(api.Date) listFilter { return listFilter{label: "created in the last 7 days", createdWithin: 7} }},
	{"deleted", func(s *homeCounts) int { return s.Deleted }, api.StatusDeleted, nil},
}

// homeModel is the home page.
type homeModel struct {
	*common

	counts  homeCounts
	loaded  bool
	failed  bool // the last read failed (a refused key): the counts show "-"
	cursor  int  // a count (0..len(homeRows)-1), then a recent change
	offset  int  // first recent change shown
	pending bool
}

// countsAnswer is the dashboard's numbers read.
type countsAnswer struct{ c homeCounts }

// reload reads the counts again.
func (h *homeModel) reload() tea.Cmd {
	c, mine := h.c, h.mine
	return h.call(slotHome, func(ctx context.Context) (any, error) {
		s, err := loadCounts(ctx, c, mine)
		return countsAnswer{s}, err
	})
}

// countsChanged reads the counts again after a change the feed reported;
// changes that come together are read once.
func (h *homeModel) countsChanged() tea.Cmd {
	if h.pending {
		return nil
	}
	h.pending = true
	return tea.Tick(300*time.Millisecond, func(time.Time) tea.Msg { return countsDueMsg{} })
}

// countsDueMsg: the counts are read again after changes.
type countsDueMsg struct{}

func (h *homeModel) update(msg tea.Msg) tea.Cmd {
	if _, ok := msg.(countsDueMsg); ok {
		h.pending = false
		return h.reload()
	}
	r, ok := h.answer(msg)
	if !ok {
		if r.err != nil { // said in the status line
			h.failed = true
		}
		return nil
	}
	h.counts, h.loaded, h.failed = r.val.(countsAnswer).c, true, false
	return nil
}

// homeHelp is the dashboard's key map; whose is the trainees it counts
// for a key bound to a trainer (m switches), limited whether the key is
// limited to its trainer's trainees (w and a need a company-wide key),
// admin whether the key may administer the company (S says the Settings
// page is read-only when it may not).
func (k keyMap) homeHelp(whose string, limited, admin bool) helpKeys {
	open, list, cmd, settings := k.Open, k.List, k.Command, k.Settings
	open.SetHelp("enter", "open")
	cmd.SetHelp(":", "cmd")
	if !admin {
		settings.SetHelp("S", "settings (read-only)")
	}
	pages, short := k.companyPages(limited)
	// S settings is the last hint before ? help: the first to give way
	// on a narrow terminal.
	return helpKeys{
		short: slices.Concat([]key.Binding{open, list, cmd}, short, []key.Binding{k.Settings, k.Help, k.Quit}),
		full: [][]key.Binding{
			{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom, open},
			slices.Concat([]key.Binding{list, k.mine(whose, limited)}, pages, []key.Binding{settings, k.Refresh}),
			{k.Help, k.Quit},
		},
	}
}

func (h *homeModel) help() helpKeys {
	admin, known := h.isAdmin()
	return h.keys.homeHelp(h.whose(), h.limited(), admin || !known)
}

func (h *homeModel) takesKeys() bool { return false }

func (h *homeModel) shows() (*api.Trainee, int) {
	if i := h.cursor - len(homeRows); i >= 0 && i < len(h.live.recent) {
		return h.live.recent[i].trainee, 0
	}
	return nil, h.cursor
}

func (h *homeModel) key(msg tea.KeyPressMsg) tea.Cmd {
	k := h.keys
	switch {
	case key.Matches(msg, k.Open):
		return h.open()
	case key.Matches(msg, k.List):
		return h.nav.openList(api.StatusLive, listFilter{})
	case key.Matches(msg, k.Webhooks):
		return h.nav.openWebhooks()
	case key.Matches(msg, k.Automations):
		return h.nav.openAutomations()
	case key.Matches(msg, k.Settings):
		return h.nav.openSettings()
	case key.Matches(msg, k.Mine) && h.widens():
		return h.nav.toggleMine()
	case key.Matches(msg, k.Refresh):
		return h.reload()
	}
	n := len(homeRows) + len(h.live.recent)
	if d, ok := h.step(msg, 5); ok {
		h.cursor = clamp(h.cursor+d, 0, n-1)
	}
	return nil
}

// open opens the list a count stands for, or the trainee a recent change
// concerns.
func (h *homeModel) open() tea.Cmd {
	if h.cursor < len(homeRows) {
		r := homeRows[h.cursor]
		var f listFilter
		if r.filter != nil {
			f = r.filter(h.today())
		}
		return h.nav.openList(r.status, f)
	}
	if i := h.cursor - len(homeRows); i < len(h.live.recent) {
		return h.nav.openTrainee(h.live.recent[i].trainee)
	}
	return nil
}

func (h *homeModel) view() (top, sub, body string) {
	th := h.th
	title := th.title.Render("Home")
	sub = th.dim.Render("What needs attention · enter opens the list of a count · l all trainees")
	if w := h.whose(); w != "" {
		title += th.dim.Render(" · " + w)
		other := " · m shows all"
		switch {
		case h.limited(): // m cannot show all: not offered
			other = ""
		case h.mine == 0:
			other = " · m shows mine"
		}
		sub = th.dim.Render("What needs attention among " + w + " · enter opens a count" + other)
	}
	top = h.topBar(title, h.spinnerView()+" "+h.liveBadge()+" ")
	var b strings.Builder
	for i, r := range homeRows {
		v := "…"
		if h.failed && !h.loaded {
			v = "-"
		}
		if h.loaded {
			if n := r.value(&h.counts); n >= 0 {
				v = strconv.Itoa(n)
			} else {
				v = "-"
			}
		}
		line := padLeft(v, 7) + "  " + r.label
		if i == h.cursor {
			line = th.selected.Render(padRight(line, 32))
		}
		b.WriteString(line + "\n")
	}
	b.WriteString("\n" + th.accent.Render("Recent changes") + "\n")
	rows := h.contentHeight() - len(homeRows) - 3 // the blank, the title and the header lines
	b.WriteString(h.recentView(max(rows, 1)))
	return top, sub, b.String()
}

// recentView is the recent changes, newest first, in rows lines.
func (h *homeModel) recentView(rows int) string {
	th, recent := h.th, h.live.recent
	if len(recent) == 0 {
		if !h.live.on {
			return "  " + th.dim.Render("Live updates are off: L turns them on.")
		}
		return "  " + th.dim.Render("No change yet: changes show here as they happen.")
	}
	sel := h.cursor - len(homeRows)
	if sel >= 0 {
		h.offset = clamp(h.offset, sel-rows+1, sel)
	}
	h.offset = clamp(h.offset, 0, max(len(recent)-rows, 0))
	t := fitCols(h.width-2, recentCols)
	var b strings.Builder
	b.WriteString("  " + th.header.Render(t.header()) + "\n")
	for i := h.offset; i < min(h.offset+rows, len(recent)); i++ {
		c := recent[i]
		what := ""
		if c.kind == api.EventTraineeUpdated {
			what = strings.Join(c.fields, ", ")
		}
		line := "  " + t.row(h.when(c.at), strings.TrimPrefix(c.kind, "trainee."),
			api.EscapeText(c.trainee.Name), api.EscapeText(c.who), api.EscapeText(what))
		if i == sel {
			line = th.selected.Render(line)
		}
		b.WriteString(line + "\n")
	}
	return b.String()
}

// recentCols are the recent changes' columns: when, what, to whom, by
// whom (the key's name, the automation's, "system"), which fields. On a
// narrow terminal the fields go first, then who made the change.
var recentCols = []colSpec{col("WHEN", 6, 6, 0), col("WHAT", 8, 8, 0), col("TRAINEE", 14, 28, 0), col("WHO", 8, 16, 1), col("FIELDS", 10, 0, 2)}

// when is an instant of today as 15:04, of another day as 02 Jan.
func (h *homeModel) when(t time.Time) string {
	loc := h.opt.Zone
	if loc == nil {
		loc = time.Local
	}
	t = t.In(loc)
	if api.DateOf(t) == h.today() {
		return t.Format("15:04")
	}
	return t.Format("02 Jan")
}
