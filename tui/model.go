package tui

import (
	"context"
	"fmt"
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/spinner"
	tea "charm.land/bubbletea/v2"

	"github.com/traineed/traineed/api"
)

// Minimum size the layout is designed for; smaller terminals still work,
// with columns dropped and lines cut.
const (
	defaultWidth  = 80
	defaultHeight = 24
)

// Model is the TUI's Bubble Tea model, the root of its pages. Create it
// with New.
type Model struct {
	*common

	help     help.Model
	showHelp bool

	// Frame caches: lines known to fit the width, and the help line.
	frame    fitter
	helpKey  string
	helpLine string

	screen   screen
	list     listModel
	trainee  traineeModel
	form     formModel
	confirm  *confirmState
	webhooks webhooksModel
	autos    automationsModel
	runs     runsModel
}

// place is the current statusPlace.
func (m *Model) place() statusPlace {
	p := statusPlace{screen: m.screen}
	var t *api.Trainee
	switch m.screen {
	case screenList:
		t = m.list.selected()
	case screenTrainee:
		t = m.trainee.t
		p.tab = m.trainee.tab
	case screenForm:
		t = m.form.orig
	}
	if t != nil {
		p.trainee = t.ID
	}
	return p
}

// confirmState is an open "delete this trainee?" question.
type confirmState struct {
	t *api.Trainee
}

// New returns the model over c.
func New(c Client, o Options) *Model {
	o = o.withDefaults()
	m := &Model{
		common: &common{
			c:        c,
			opt:      o,
			width:    defaultWidth,
			height:   defaultHeight,
			isDark:   true,
			keys:     newKeyMap(),
			requests: newRequests(o.Context, o.Timeout),
		},
		help: help.New(),
	}
	m.nav = m
	m.list = newListModel(m.common)
	m.trainee = traineeModel{common: m.common}
	m.form = formModel{common: m.common}
	m.webhooks = webhooksModel{common: m.common}
	m.autos = automationsModel{common: m.common}
	m.runs = runsModel{common: m.common}
	m.setTheme(true)
	m.resize(m.width, m.height)
	if o.NoAPIKey {
		m.setStatus(statusError, "No API key: give --api-key, set TRAINEECTL_API_KEY or save a profile.")
	}
	return m
}

// Init asks the terminal for its background colour and loads the first page.
func (m *Model) Init() tea.Cmd {
	c := m.c
	trainers := m.call(slotTrainers, func(ctx context.Context) (any, error) {
		return c.Trainers(ctx)
	})
	return tea.Batch(tea.RequestBackgroundColor, m.list.reload(false), trainers)
}

// trainersResult keeps the company's trainers' names, read once at the
// start; a server without GET /public-api/trainers leaves trainers shown
// by id, silently.
func (m *Model) trainersResult(msg resultMsg) tea.Cmd {
	ts, ok := msg.val.([]api.TrainerSummary)
	if msg.err != nil || !ok {
		return nil
	}
	names := make(map[int64]string, len(ts)) // as shown: escaped
	for _, t := range ts {
		names[t.ID] = api.EscapeText(t.Name)
	}
	m.trainers = names
	clear(m.list.lines) // rows drawn with ids
	return nil
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

// Update handles one message.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	model, cmd := m.update(msg)
	m.settleStatus(m.place())
	return model, cmd
}

func (m *Model) update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.resize(msg.Width, msg.Height)
		return m, nil
	case tea.BackgroundColorMsg:
		m.setTheme(msg.IsDark())
		return m, nil
	case spinner.TickMsg:
		return m, m.tick(msg)
	case resultMsg:
		return m, m.result(msg)
	case debounceMsg:
		return m, m.list.update(msg)
	case tea.KeyPressMsg:
		return m, m.key(msg)
	}
	if m.screen == screenForm {
		return m, m.form.update(msg)
	}
	if m.screen == screenList {
		return m, m.list.update(msg)
	}
	return m, nil
}

func (m *Model) result(msg resultMsg) tea.Cmd {
	if !m.accept(msg) {
		return nil
	}
	switch msg.slot {
	case slotList:
		return m.list.update(msg)
	case slotMutate:
		return m.mutateResult(msg)
	case slotTrainers:
		return m.trainersResult(msg)
	case slotWebhooks, slotDeliveries, slotWebhookAction:
		return m.webhooks.update(msg)
	case slotAutomations:
		return m.autos.update(msg)
	case slotRuns:
		return m.runs.update(msg)
	default:
		return m.trainee.update(msg)
	}
}

func (m *Model) key(msg tea.KeyPressMsg) tea.Cmd {
	k := m.keys
	if msg.String() == "ctrl+c" {
		return tea.Quit
	}
	if m.confirm != nil {
		return m.confirmKey(msg)
	}
	if m.showHelp {
		switch {
		case key.Matches(msg, k.Help, k.Back):
			m.showHelp = false
		case key.Matches(msg, k.Quit):
			return tea.Quit
		}
		return nil
	}
	switch m.screen {
	case screenForm:
		return m.form.key(msg)
	case screenList:
		if m.list.searching {
			return m.list.key(msg)
		}
	}
	switch {
	case key.Matches(msg, k.Quit):
		return tea.Quit
	case key.Matches(msg, k.Help):
		m.showHelp = true
		return nil
	}
	switch m.screen {
	case screenTrainee:
		return m.trainee.key(msg)
	case screenWebhooks:
		return m.webhooks.key(msg)
	case screenAutomations:
		return m.autos.key(msg)
	case screenRuns:
		return m.runs.key(msg)
	}
	return m.list.key(msg)
}

func (m *Model) confirmKey(msg tea.KeyPressMsg) tea.Cmd {
	switch {
	case key.Matches(msg, m.keys.Yes):
		t, c := m.confirm.t, m.c
		m.confirm = nil
		m.setStatus(statusInfo, "Deleting %s…", t.Name)
		return m.call(slotMutate, func(ctx context.Context) (any, error) {
			r, err := c.DeleteTrainee(ctx, t.ID)
			return mutation{kind: "deleted", t: r}, err
		})
	case key.Matches(msg, m.keys.No):
		m.confirm = nil
		m.setStatus(statusInfo, "Not deleted.")
	}
	return nil
}

// askDelete opens the confirmation for t.
func (m *Model) askDelete(t *api.Trainee) {
	if t == nil {
		return
	}
	if !t.Enabled {
		m.setStatus(statusInfo, "%s is already deleted: u restores.", t.Name)
		return
	}
	m.confirm = &confirmState{t: t}
}

// restore restores t when it is deleted.
func (m *Model) restore(t *api.Trainee) tea.Cmd {
	if t == nil {
		return nil
	}
	if t.Enabled {
		m.setStatus(statusInfo, "%s is not deleted.", t.Name)
		return nil
	}
	m.setStatus(statusInfo, "Restoring %s…", t.Name)
	c := m.c
	return m.call(slotMutate, func(ctx context.Context) (any, error) {
		r, err := c.RestoreTrainee(ctx, t.ID)
		return mutation{kind: "restored", t: r}, err
	})
}

// mutation is the answer to a create, update, delete or restore.
type mutation struct {
	kind    string // created, updated, deleted, restored
	t       *api.Trainee
	changed []string // updated: the fields sent
}

func (m *Model) mutateResult(msg resultMsg) tea.Cmd {
	mu, _ := msg.val.(mutation)
	if msg.err != nil {
		if m.screen == screenForm {
			m.form.sending = false
			m.form.serverErrors(msg.err)
		}
		m.setError(msg.err)
		return nil
	}
	t := mu.t
	switch mu.kind {
	case "created":
		m.setStatus(statusOK, "Created %s (#%d).", t.Name, t.ID)
		m.form.leave()
		cmd := m.list.reload(false)
		return tea.Batch(cmd, m.openTrainee(t))
	case "updated":
		m.setStatus(statusOK, "Saved %s: %s.", t.Name, strings.Join(mu.changed, ", "))
		m.form.leave()
	case "deleted":
		m.setStatus(statusOK, "Deleted %s (#%d): u restores.", t.Name, t.ID)
	case "restored":
		m.setStatus(statusOK, "Restored %s (#%d).", t.Name, t.ID)
	}
	m.list.replace(t)
	if m.trainee.t != nil && m.trainee.t.ID == t.ID {
		m.trainee.t = t
	}
	return m.list.maybeLoadMore()
}

// View renders the screen.
func (m *Model) View() tea.View {
	v := tea.NewView(m.render())
	v.AltScreen = true
	v.WindowTitle = "traineectl"
	return v
}

// currentHelp is the key map of what is on the screen: the help line and
// `?` show it, and a test holds every key the screen reacts to to it.
func (m *Model) currentHelp() helpKeys {
	switch {
	case m.confirm != nil, m.screen == screenForm && m.form.discarding:
		return m.keys.confirmHelp()
	case m.screen == screenForm:
		return m.keys.formHelp()
	case m.screen == screenTrainee:
		return m.keys.traineeHelp(m.trainee.tab, m.opt.ReadOnly)
	case m.screen == screenWebhooks:
		return m.keys.webhooksHelp(m.opt.ReadOnly)
	case m.screen == screenAutomations:
		return m.keys.automationsHelp()
	case m.screen == screenRuns:
		return m.keys.runsHelp()
	case m.list.searching:
		return m.keys.searchHelp()
	}
	return m.keys.listHelp(m.opt.ReadOnly)
}

func (m *Model) render() string {
	var top, sub, body string
	hk := m.currentHelp()
	switch m.screen {
	case screenList:
		top, sub, body = m.list.view()
	case screenTrainee:
		top, sub, body = m.trainee.view()
	case screenForm:
		top, sub, body = m.form.view()
	case screenWebhooks:
		top, sub, body = m.webhooks.view()
	case screenAutomations:
		top, sub, body = m.autos.view()
	case screenRuns:
		top, sub, body = m.runs.view()
	}
	if m.confirm != nil {
		body = m.confirmView()
	}
	if m.showHelp {
		h := m.help
		h.ShowAll = true
		body = m.th.accent.Render("Keys") + "\n\n" + h.View(hk)
		if m.opt.Server != "" {
			body += "\n\n" + m.th.dim.Render("Server: "+m.opt.Server)
		}
	}
	// The short help changes with the screen only: drawn once per screen.
	hkey := fmt.Sprint(m.screen, m.trainee.tab, m.list.searching, m.confirm != nil, m.form.discarding, m.width, m.opt.ReadOnly)
	if hkey != m.helpKey {
		m.helpKey, m.helpLine = hkey, m.help.ShortHelpView(hk.ShortHelp())
	}
	var b strings.Builder
	b.WriteString(m.frame.fit(top) + "\n")
	b.WriteString(m.frame.fit(sub) + "\n")
	lines := strings.Split(strings.TrimRight(body, "\n"), "\n")
	h := m.contentHeight()
	for i := range h {
		if i < len(lines) {
			b.WriteString(m.frame.fit(lines[i]))
		}
		b.WriteString("\n")
	}
	for _, l := range m.statusLines(m.width) {
		b.WriteString(m.frame.fit(m.paintStatus(m.th, l)) + "\n")
	}
	b.WriteString(m.frame.fit(m.helpLine))
	// Every screen escapes the data it shows (api.EscapeText); this is the
	// backstop for what the screens do not draw themselves (a pasted
	// bidirectional override in a text input): no C1 control or
	// bidirectional formatting character ever reaches the terminal. The
	// screen's own ESC sequences are C0, and stay.
	return api.EscapeFramed(b.String())
}

func (m *Model) confirmView() string {
	t := m.confirm.t
	q := fmt.Sprintf("Delete %s (#%d)?\n\n%s\n\n%s",
		api.EscapeText(t.Name), t.ID,
		m.th.dim.Render("The trainee is soft-deleted: u restores it later."),
		m.th.accent.Render("y")+" delete   "+m.th.accent.Render("n")+" keep")
	box := m.th.dialog.Render(q)
	return placeCenter(box, m.width, m.contentHeight())
}

// show goes back to page s as it was left (the list when s is a trainee's
// page and no trainee was opened).
func (m *Model) show(s screen) {
	if s == screenTrainee && m.trainee.t == nil {
		s = screenList
	}
	m.screen = s
}

// traineeRead puts a trainee read again in the list.
func (m *Model) traineeRead(t *api.Trainee) { m.list.replace(t) }

// openTrainee shows t's page at its profile and reads t again.
func (m *Model) openTrainee(t *api.Trainee) tea.Cmd {
	if t == nil {
		return nil
	}
	m.screen = screenTrainee
	return m.trainee.open(t)
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
