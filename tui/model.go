package tui

import (
	"context"
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/spinner"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/client"
	"github.com/traineed/traineed/tui/components/commandline"
	"github.com/traineed/traineed/tui/components/dialog"
	"github.com/traineed/traineed/tui/components/keymap"
	"github.com/traineed/traineed/tui/components/layout"
	"github.com/traineed/traineed/tui/components/requests"
	"github.com/traineed/traineed/tui/components/statusline"
	"github.com/traineed/traineed/tui/components/theme"
	"github.com/traineed/traineed/tui/internal/common"
	"github.com/traineed/traineed/tui/pages/automations"
	"github.com/traineed/traineed/tui/pages/form"
	"github.com/traineed/traineed/tui/pages/home"
	"github.com/traineed/traineed/tui/pages/list"
	"github.com/traineed/traineed/tui/pages/runs"
	"github.com/traineed/traineed/tui/pages/settings"
	"github.com/traineed/traineed/tui/pages/trainee"
	"github.com/traineed/traineed/tui/pages/webhooks"
)

// Minimum size the layout is designed for; smaller terminals still work,
// with columns dropped and lines cut.
const (
	defaultWidth  = 80
	defaultHeight = 24
)

// Model is the TUI's Bubble Tea model: the root of its pages. It routes
// each message to the page it concerns, keeps the modal open over the
// page, and draws the frame: the page's two title lines and body, the
// status line and the help line. Create it with New.
type Model struct {
	*common.Common
	opt Options // as given, with the defaults (the pages see opt.shared())

	help help.Model

	// Frame caches: lines known to fit the width, and the help line.
	frame    layout.Fitter
	helpKey  string
	helpLine string

	screen common.Screen
	pages  [common.ScreenCount]common.Page
	modal  common.Modal // over the page; nil: none

	home     home.Model
	list     list.Model
	trainee  trainee.Model
	form     form.Model
	webhooks webhooks.Model
	autos    automations.Model
	runs     runs.Model
	settings settings.Model
}

// New returns the model over c.
func New(c common.Client, o Options) *Model {
	o = o.withDefaults()
	cm := &common.Common{
		C:        c,
		Opt:      o.shared(),
		Width:    defaultWidth,
		Height:   defaultHeight,
		IsDark:   true,
		Keys:     keymap.NewKeyMap(),
		Requests: requests.NewRequests(o.Context, o.Timeout),
	}
	m := &Model{Common: cm, opt: o, help: help.New()}
	cm.Nav = m
	m.home = home.Model{Common: cm}
	m.list = list.New(cm)
	m.trainee = trainee.Model{Common: cm}
	m.form = form.Model{Common: cm}
	m.webhooks = webhooks.Model{Common: cm}
	m.autos = automations.Model{Common: cm}
	m.runs = runs.Model{Common: cm}
	m.settings = settings.Model{Common: cm}
	m.pages = [common.ScreenCount]common.Page{
		common.ScreenHome: &m.home, common.ScreenList: &m.list, common.ScreenTrainee: &m.trainee, common.ScreenForm: &m.form,
		common.ScreenWebhooks: &m.webhooks, common.ScreenAutomations: &m.autos, common.ScreenRuns: &m.runs, common.ScreenSettings: &m.settings,
	}
	if id, _, _ := cm.BoundTrainer(); id != 0 {
		cm.Mine = id // a trainer's key starts on the trainer's trainees
	}
	cm.Live.On = !o.liveOff
	m.setTheme(true)
	m.resize(m.Width, m.Height)
	if o.NoAPIKey {
		m.SetStatus(statusline.StatusError, "No API key: give --api-key, set TRAINEECTL_API_KEY or save a profile.")
	}
	return m
}

// Init asks the terminal for its background colour, loads the first
// page (the home page, or the one Options.Start names) and the list
// behind it, and starts following the event feed.
func (m *Model) Init() tea.Cmd {
	c := m.C
	trainers := m.Call(requests.SlotTrainers, func(ctx context.Context) (any, error) {
		return c.Trainers(ctx, client.TrainerParams{})
	})
	cmds := []tea.Cmd{tea.RequestBackgroundColor, trainers, m.pollFeed()}
	if m.opt.Start != "" {
		cmds = append(cmds, m.runCommand(m.opt.Start))
		if m.screen != common.ScreenList {
			cmds = append(cmds, m.list.Reload(false))
		}
	} else {
		cmds = append(cmds, m.home.Reload(), m.list.Reload(false))
	}
	return tea.Batch(cmds...)
}

// trainersResult keeps the company's trainers' names, read once at the
// start; a server without GET /public-api/trainers leaves trainers shown
// by id, silently.
func (m *Model) trainersResult(msg requests.ResultMsg) tea.Cmd {
	ts, ok := msg.Val.([]api.TrainerSummary)
	if msg.Err != nil || !ok {
		return nil
	}
	m.keepTrainers(ts)
	return nil
}

// keepTrainers keeps the company's trainers as read (at the start, and
// by the Settings page).
func (m *Model) keepTrainers(ts []api.TrainerSummary) {
	names := make(map[int64]string, len(ts)) // as shown: escaped
	for _, t := range ts {
		names[t.ID] = api.EscapeText(t.Name)
	}
	m.Trainers, m.TrainerList = names, ts
	clear(m.list.Lines) // rows drawn with ids, or former names
}

func (m *Model) setTheme(isDark bool) {
	m.IsDark = isDark
	m.Th = theme.NewTheme(isDark, m.opt.NoColor)
	m.help.Styles = m.Th.HelpStyles()
	m.helpKey = ""
	m.Spin.Style = m.Th.Accent
	m.list.Restyle(m.Th)
	m.form.Restyle(m.Th)
}

func (m *Model) resize(w, h int) {
	m.Width, m.Height = max(w, 20), max(h, 8)
	m.frame.Resize(m.Width)
	m.help.SetWidth(m.Width)
	m.list.Resize(m.Width, m.ContentHeight())
	m.trainee.Invalidate()
	m.form.Resize(m.Width)
}

// page is the page on screen.
func (m *Model) page() common.Page { return m.pages[m.screen] }

// place is where the status line's message is shown: the page on screen
// and what it shows.
func (m *Model) place() statusline.StatusPlace {
	t, tab := m.page().Shows()
	p := statusline.StatusPlace{Screen: int(m.screen), Tab: tab}
	if t != nil {
		p.Trainee = t.ID
	}
	return p
}

// Update handles one message.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	cmd := m.update(msg)
	m.SettleStatus(m.place())
	return m, cmd
}

func (m *Model) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.resize(msg.Width, msg.Height)
		return nil
	case tea.BackgroundColorMsg:
		m.setTheme(msg.IsDark())
		return nil
	case spinner.TickMsg:
		return m.Tick(msg)
	case requests.ResultMsg:
		return m.result(msg)
	case list.DebounceMsg:
		return m.list.Update(msg)
	case home.CountsDueMsg:
		return m.home.Update(msg)
	case feedMsg:
		return m.feedResult(msg)
	case bulkTickMsg, bulkDoneMsg:
		if bm, ok := m.modal.(*bulkModal); ok {
			return bm.progressed(msg)
		}
		return nil
	case feedRetryMsg:
		if msg.gen != m.Live.Gen {
			return nil
		}
		return m.pollFeed()
	case tea.KeyPressMsg:
		return m.key(msg)
	}
	return m.page().Update(msg)
}

// result gives the answer to the latest request of a slot to the page
// that sent it, on screen or not.
func (m *Model) result(msg requests.ResultMsg) tea.Cmd {
	if !m.Accept(msg) {
		return nil
	}
	if msg.Err == nil {
		m.ServerAnswered()
	}
	switch msg.Slot {
	case requests.SlotMutate:
		return m.mutateResult(msg)
	case requests.SlotTrainers:
		return m.trainersResult(msg)
	case requests.SlotList:
		return m.list.Update(msg)
	case requests.SlotWebhooks, requests.SlotDeliveries, requests.SlotWebhookAction:
		return m.webhooks.Update(msg)
	case requests.SlotAutomations:
		return m.autos.Update(msg)
	case requests.SlotRuns:
		return m.runs.Update(msg)
	case requests.SlotHome:
		return m.home.Update(msg)
	case requests.SlotKeys, requests.SlotStaff, requests.SlotCompany, requests.SlotAdmin:
		return m.settingsResult(msg)
	case requests.SlotForm:
		return m.formReadResult(msg)
	case requests.SlotOpen:
		return m.openResult(msg)
	}
	return m.trainee.Update(msg)
}

// settingsResult gives a settings request's answer to the settings page,
// keeping the trainers it read for the other pages' names.
func (m *Model) settingsResult(msg requests.ResultMsg) tea.Cmd {
	if ts, ok := msg.Val.([]api.TrainerSummary); ok && msg.Err == nil {
		m.keepTrainers(ts)
	}
	return m.settings.Update(msg)
}

// openResult opens the trainee a :open read found; not found leaves the
// screen as it is, with the error.
func (m *Model) openResult(msg requests.ResultMsg) tea.Cmd {
	if msg.Err != nil {
		m.SetError(msg.Err)
		return nil
	}
	return m.OpenTrainee(msg.Val.(*api.Trainee))
}

// key gives a key press to the modal, else to the page: q quits and ?
// opens the key map unless the page takes every key.
func (m *Model) key(msg tea.KeyPressMsg) tea.Cmd {
	if msg.String() == "ctrl+c" {
		return tea.Quit
	}
	if open := m.modal; open != nil {
		cmd, closed := open.Key(msg)
		if closed && m.modal == open { // a command may open another
			m.modal = nil
		}
		return cmd
	}
	p := m.page()
	if !p.TakesKeys() {
		switch {
		case key.Matches(msg, m.Keys.Quit):
			return tea.Quit
		case key.Matches(msg, m.Keys.Help):
			m.modal = dialog.NewKeys(m.Common, &m.help)
			return nil
		case key.Matches(msg, m.Keys.Command):
			m.modal = m.commandLine()
			return nil
		case key.Matches(msg, m.Keys.Live):
			return m.toggleLive()
		case key.Matches(msg, m.Keys.Home):
			return m.OpenHome()
		case key.Matches(msg, m.Keys.Settings):
			return m.OpenSettings()
		}
	}
	return p.Key(msg)
}

// View renders the screen.
func (m *Model) View() tea.View {
	v := tea.NewView(m.render())
	v.AltScreen = true
	v.WindowTitle = "traineectl"
	if id := m.Identity(200); id != "" {
		v.WindowTitle += " · " + id
	}
	return v
}

// currentHelp is the key map of what is on the screen: the help line and
// `?` show it, and a test holds every key the screen reacts to to it.
func (m *Model) currentHelp() keymap.HelpKeys {
	hk := m.pageHelp()
	if m.modal != nil {
		return m.modal.Help(hk)
	}
	return hk
}

// pageHelp is the page's key map with the keys of every page.
func (m *Model) pageHelp() keymap.HelpKeys {
	p := m.page()
	return m.Keys.WithGlobal(p.Help(), p.TakesKeys())
}

func (m *Model) render() string {
	p := m.page()
	top, sub, body := p.View()
	hk := m.pageHelp()
	if m.modal != nil {
		body, hk = m.modal.Body(hk), m.modal.Help(hk)
	}
	// The short help changes with the page's state only: drawn once per
	// state.
	note := ""
	if n, ok := p.(interface{ FooterNote() string }); ok && m.modal == nil {
		note = n.FooterNote()
	}
	if id := note + "\x02" + keymap.HelpLineID(hk, m.Width); id != m.helpKey {
		m.helpKey, m.helpLine = id, m.footer(note, hk)
	}
	helpLine := m.helpLine
	if cl, ok := m.modal.(*commandline.Line); ok {
		helpLine = cl.View(m.Width)
	}
	var b strings.Builder
	b.WriteString(m.frame.Fit(top) + "\n")
	b.WriteString(m.frame.Fit(sub) + "\n")
	lines := strings.Split(strings.TrimRight(body, "\n"), "\n")
	h := m.ContentHeight()
	if len(lines) > h && h > 0 {
		// A body taller than the screen (a long error or response in a
		// detail panel) says that it goes on.
		lines[h-1] = "  " + m.Th.Dim.Render("… (more than fits: a taller terminal shows the rest)")
	}
	for i := range h {
		if i < len(lines) {
			b.WriteString(m.frame.Fit(lines[i]))
		}
		b.WriteString("\n")
	}
	for _, l := range m.StatusLines(m.Width) {
		b.WriteString(m.frame.Fit(m.PaintStatus(m.Th, l)) + "\n")
	}
	b.WriteString(m.frame.Fit(helpLine))
	// Every page escapes the data it shows (api.EscapeText); this is the
	// backstop for what the pages do not draw themselves (a pasted
	// bidirectional override in a text input): no C1 control or
	// bidirectional formatting character ever reaches the terminal. The
	// pages' own ESC sequences are C0, and stay.
	return api.EscapeFramed(b.String())
}

// footer is the help line: the page's note first (the count of marked
// rows), then its short key map, fitted whole to the width: the hints
// that do not fit are dropped, the last ones first, "? help" late and
// "q quit" and "esc" never.
func (m *Model) footer(note string, hk keymap.HelpKeys) string {
	if note != "" {
		note = m.Th.Accent.Render(note) + m.Th.Dim.Render(" • ")
	}
	h := m.help
	h.SetWidth(0) // no cut with "…": the hints are dropped instead
	short := fitHints(hk.ShortHelp(), max(m.Width-ansi.StringWidth(note), 1), func(ks []key.Binding) int {
		return ansi.StringWidth(h.ShortHelpView(ks))
	})
	h.SetWidth(max(m.Width-ansi.StringWidth(note), 1))
	return note + h.ShortHelpView(short)
}

// fitHints drops hints from ks until width(ks) fits w: the enabled hints
// that are neither "q" nor "esc" nor "?", from the last, then "?".
func fitHints(ks []key.Binding, w int, width func([]key.Binding) int) []key.Binding {
	ks = append([]key.Binding(nil), ks...)
	for width(ks) > w {
		drop, helpAt := -1, -1
		for i, k := range ks {
			switch k.Help().Key {
			case "q", "esc":
			case "?":
				helpAt = i
			default:
				if k.Enabled() {
					drop = i
				}
			}
		}
		if drop < 0 {
			drop = helpAt
		}
		if drop < 0 {
			return ks
		}
		ks = append(ks[:drop], ks[drop+1:]...)
	}
	return ks
}
