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
	*common
	opt Options // as given, with the defaults (the pages see opt.shared())

	help help.Model

	// Frame caches: lines known to fit the width, and the help line.
	frame    fitter
	helpKey  string
	helpLine string

	screen screen
	pages  [screenCount]page
	modal  modal // over the page; nil: none

	home     homeModel
	list     listModel
	trainee  traineeModel
	form     formModel
	webhooks webhooksModel
	autos    automationsModel
	runs     runsModel
	settings settingsModel
}

// New returns the model over c.
func New(c Client, o Options) *Model {
	o = o.withDefaults()
	cm := &common{
		c:        c,
		opt:      o.shared(),
		width:    defaultWidth,
		height:   defaultHeight,
		isDark:   true,
		keys:     newKeyMap(),
		requests: newRequests(o.Context, o.Timeout),
	}
	m := &Model{common: cm, opt: o, help: help.New()}
	cm.nav = m
	m.home = homeModel{common: cm}
	m.list = newListModel(cm)
	m.trainee = traineeModel{common: cm}
	m.form = formModel{common: cm}
	m.webhooks = webhooksModel{common: cm}
	m.autos = automationsModel{common: cm}
	m.runs = runsModel{common: cm}
	m.settings = settingsModel{common: cm}
	m.pages = [screenCount]page{
		screenHome: &m.home, screenList: &m.list, screenTrainee: &m.trainee, screenForm: &m.form,
		screenWebhooks: &m.webhooks, screenAutomations: &m.autos, screenRuns: &m.runs, screenSettings: &m.settings,
	}
	if id, _, _ := cm.boundTrainer(); id != 0 {
		cm.mine = id // a trainer's key starts on the trainer's trainees
	}
	cm.live.on = !o.liveOff
	m.setTheme(true)
	m.resize(m.width, m.height)
	if o.NoAPIKey {
		m.setStatus(statusError, "No API key: give --api-key, set TRAINEECTL_API_KEY or save a profile.")
	}
	return m
}

// Init asks the terminal for its background colour, loads the first
// page (the home page, or the one Options.Start names) and the list
// behind it, and starts following the event feed.
func (m *Model) Init() tea.Cmd {
	c := m.c
	trainers := m.call(slotTrainers, func(ctx context.Context) (any, error) {
		return c.Trainers(ctx)
	})
	cmds := []tea.Cmd{tea.RequestBackgroundColor, trainers, m.pollFeed()}
	if m.opt.Start != "" {
		cmds = append(cmds, m.runCommand(m.opt.Start))
		if m.screen != screenList {
			cmds = append(cmds, m.list.reload(false))
		}
	} else {
		cmds = append(cmds, m.home.reload(), m.list.reload(false))
	}
	return tea.Batch(cmds...)
}

// trainersResult keeps the company's trainers' names, read once at the
// start; a server without GET /public-api/trainers leaves trainers shown
// by id, silently.
func (m *Model) trainersResult(msg resultMsg) tea.Cmd {
	ts, ok := msg.val.([]api.TrainerSummary)
	if msg.err != nil || !ok {
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
	m.trainers, m.trainerList = names, ts
	clear(m.list.lines) // rows drawn with ids, or former names
}

func (m *Model) setTheme(isDark bool) {
	m.isDark = isDark
	m.th = newTheme(isDark, m.opt.NoColor)
	m.help.Styles = m.th.helpStyles()
	m.helpKey = ""
	m.spin.Style = m.th.accent
	m.list.restyle(m.th)
	m.form.restyle(m.th)
}

func (m *Model) resize(w, h int) {
	m.width, m.height = max(w, 20), max(h, 8)
	m.frame.resize(m.width)
	m.help.SetWidth(m.width)
	m.list.resize(m.width, m.contentHeight())
	m.trainee.invalidate()
	m.form.resize(m.width)
}

// page is the page on screen.
func (m *Model) page() page { return m.pages[m.screen] }

// place is where the status line's message is shown: the page on screen
// and what it shows.
func (m *Model) place() statusPlace {
	t, tab := m.page().shows()
	p := statusPlace{screen: int(m.screen), tab: tab}
	if t != nil {
		p.trainee = t.ID
	}
	return p
}

// Update handles one message.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	cmd := m.update(msg)
	m.settleStatus(m.place())
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
		return m.tick(msg)
	case resultMsg:
		return m.result(msg)
	case debounceMsg:
		return m.list.update(msg)
	case countsDueMsg:
		return m.home.update(msg)
	case feedMsg:
		return m.feedResult(msg)
	case bulkTickMsg, bulkDoneMsg:
		if bm, ok := m.modal.(*bulkModal); ok {
			return bm.progressed(msg)
		}
		return nil
	case feedRetryMsg:
		if msg.gen != m.live.gen {
			return nil
		}
		return m.pollFeed()
	case tea.KeyPressMsg:
		return m.key(msg)
	}
	return m.page().update(msg)
}

// result gives the answer to the latest request of a slot to the page
// that sent it, on screen or not.
func (m *Model) result(msg resultMsg) tea.Cmd {
	if !m.accept(msg) {
		return nil
	}
	switch msg.slot {
	case slotMutate:
		return m.mutateResult(msg)
	case slotTrainers:
		return m.trainersResult(msg)
	case slotList:
		return m.list.update(msg)
	case slotWebhooks, slotDeliveries, slotWebhookAction:
		return m.webhooks.update(msg)
	case slotAutomations:
		return m.autos.update(msg)
	case slotRuns:
		return m.runs.update(msg)
	case slotHome:
		return m.home.update(msg)
	case slotKeys, slotStaff, slotCompany, slotAdmin:
		if ts, ok := msg.val.([]api.TrainerSummary); ok && msg.err == nil {
			m.keepTrainers(ts)
		}
		return m.settings.update(msg)
	case slotForm:
		return m.formReadResult(msg)
	case slotOpen:
		if msg.err != nil {
			m.setError(msg.err) // not found: the screen stays
			return nil
		}
		return m.openTrainee(msg.val.(*api.Trainee))
	}
	return m.trainee.update(msg)
}

// key gives a key press to the modal, else to the page: q quits and ?
// opens the key map unless the page takes every key.
func (m *Model) key(msg tea.KeyPressMsg) tea.Cmd {
	if msg.String() == "ctrl+c" {
		return tea.Quit
	}
	if open := m.modal; open != nil {
		cmd, closed := open.key(msg)
		if closed && m.modal == open { // a command may open another
			m.modal = nil
		}
		return cmd
	}
	p := m.page()
	if !p.takesKeys() {
		switch {
		case key.Matches(msg, m.keys.Quit):
			return tea.Quit
		case key.Matches(msg, m.keys.Help):
			m.modal = &keysModal{common: m.common, hv: &m.help}
			return nil
		case key.Matches(msg, m.keys.Command):
			m.modal = newCommandLine(m)
			return nil
		case key.Matches(msg, m.keys.Live):
			return m.toggleLive()
		case key.Matches(msg, m.keys.Home):
			return m.openHome()
		}
	}
	return p.key(msg)
}

// View renders the screen.
func (m *Model) View() tea.View {
	v := tea.NewView(m.render())
	v.AltScreen = true
	v.WindowTitle = "traineectl"
	if id := m.identity(200); id != "" {
		v.WindowTitle += " · " + id
	}
	return v
}

// currentHelp is the key map of what is on the screen: the help line and
// `?` show it, and a test holds every key the screen reacts to to it.
func (m *Model) currentHelp() helpKeys {
	hk := m.pageHelp()
	if m.modal != nil {
		return m.modal.help(hk)
	}
	return hk
}

// pageHelp is the page's key map with the keys of every page.
func (m *Model) pageHelp() helpKeys {
	p := m.page()
	return m.keys.withGlobal(p.help(), p.takesKeys())
}

func (m *Model) render() string {
	p := m.page()
	top, sub, body := p.view()
	hk := m.pageHelp()
	if m.modal != nil {
		body, hk = m.modal.body(hk), m.modal.help(hk)
	}
	// The short help changes with the page's state only: drawn once per
	// state.
	note := ""
	if n, ok := p.(interface{ FooterNote() string }); ok && m.modal == nil {
		note = n.FooterNote()
	}
	if id := note + "\x02" + helpLineID(hk, m.width); id != m.helpKey {
		m.helpKey, m.helpLine = id, m.footer(note, hk)
	}
	helpLine := m.helpLine
	if cl, ok := m.modal.(*commandLine); ok {
		helpLine = cl.line(m.width)
	}
	var b strings.Builder
	b.WriteString(m.frame.fit(top) + "\n")
	b.WriteString(m.frame.fit(sub) + "\n")
	lines := strings.Split(strings.TrimRight(body, "\n"), "\n")
	h := m.contentHeight()
	if len(lines) > h && h > 0 {
		// A body taller than the screen (a long error or response in a
		// detail panel) says that it goes on.
		lines[h-1] = "  " + m.th.dim.Render("… (more than fits: a taller terminal shows the rest)")
	}
	for i := range h {
		if i < len(lines) {
			b.WriteString(m.frame.fit(lines[i]))
		}
		b.WriteString("\n")
	}
	for _, l := range m.statusLines(m.width) {
		b.WriteString(m.frame.fit(m.paintStatus(m.th, l)) + "\n")
	}
	b.WriteString(m.frame.fit(helpLine))
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
func (m *Model) footer(note string, hk helpKeys) string {
	if note != "" {
		note = m.th.accent.Render(note) + m.th.dim.Render(" • ")
	}
	h := m.help
	h.SetWidth(0) // no cut with "…": the hints are dropped instead
	short := fitHints(hk.ShortHelp(), max(m.width-ansi.StringWidth(note), 1), func(ks []key.Binding) int {
		return ansi.StringWidth(h.ShortHelpView(ks))
	})
	h.SetWidth(max(m.width-ansi.StringWidth(note), 1))
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

// show goes back to page s as it was left (the list when s is a trainee's
// page and no trainee was opened).
func (m *Model) show(s screen) {
	if s == screenTrainee && m.trainee.t == nil {
		s = screenList
	}
	m.screen = s
}

// openTrainee shows t's page at its profile and reads t again.
func (m *Model) openTrainee(t *api.Trainee) tea.Cmd {
	if t == nil {
		return nil
	}
	m.screen = screenTrainee
	return m.trainee.open(t)
}

// openHome shows the home page and reads its counts again.
func (m *Model) openHome() tea.Cmd {
	m.screen = screenHome
	return m.home.reload()
}

// openList shows the list of a status tab narrowed by f (the search is
// cleared: the list shows what the dashboard counted).
func (m *Model) openList(status string, f listFilter) tea.Cmd {
	m.screen = screenList
	return m.list.show(status, f)
}

// openWebhooks shows the webhooks page and loads the webhooks.
func (m *Model) openWebhooks() tea.Cmd {
	m.webhooks.back = m.screen
	m.screen = screenWebhooks
	return m.webhooks.load()
}

// openAutomations shows the automations page and loads it.
func (m *Model) openAutomations() tea.Cmd {
	m.screen = screenAutomations
	return m.autos.reload()
}

// openRuns shows a's runs.
func (m *Model) openRuns(a *api.Automation) tea.Cmd {
	if a == nil {
		return nil
	}
	m.screen = screenRuns
	return m.runs.open(a)
}
