package tui

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/spinner"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/client"
)

// Minimum size the layout is designed for; smaller terminals still work,
// with columns dropped and lines cut.
const (
	defaultWidth  = 80
	defaultHeight = 24
)

type screen int

const (
	screenList screen = iota
	screenTrainee
	screenForm
	screenWebhooks
	screenAutomations
	screenRuns
)

// slot names a kind of request. Only the latest request of a slot counts:
// an answer to an earlier one is dropped.
type slot int

const (
	slotList slot = iota
	slotTrainee
	slotWeight
	slotMeasurements
	slotNutrition
	slotSteps
	slotMutate
	slotTrainers
	slotWebhooks
	slotDeliveries
	slotWebhookAction
	slotAutomations
	slotRuns
	slotCount
)

// resultMsg is the answer to one request.
type resultMsg struct {
	slot slot
	seq  uint64
	val  any
	err  error
}

// statusKind colours the status line.
type statusKind int

const (
	statusInfo statusKind = iota
	statusOK
	statusError
)

// Model is the TUI's Bubble Tea model. Create it with New.
type Model struct {
	c   Client
	opt Options

	width, height int
	isDark        bool
	th            theme
	keys          keyMap
	help          help.Model
	showHelp      bool

	spin     spinner.Model
	spinning bool

	seq      uint64
	inflight [slotCount]uint64 // the sequence number each slot waits for; 0: none
	cancels  [slotCount]context.CancelFunc
	dropped  int // answers dropped because a newer request replaced them

	status     string
	statusKind statusKind
	// statusFresh: the status was set during the message being handled;
	// statusAt is where it was shown first (the screen and trainee once
	// that message was handled). A message that is not an error goes when
	// the screen or the trainee changes; an error when the screen does.
	statusFresh bool
	statusAt    statusPlace

	// Frame caches: lines known to fit the width, and the help line.
	fits     map[string]bool
	helpKey  string
	helpLine string

	trainers map[int64]string // trainer names by id (nil until read)

	screen   screen
	list     listModel
	trainee  traineeModel
	form     formModel
	confirm  *confirmState
	webhooks webhooksModel
	autos    automationsModel
}

// statusPlace is what the status line speaks about: a screen and the
// trainee selected or shown there (0: none).
type statusPlace struct {
	screen  screen
	trainee int64
	tab     int // of the trainee screen
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

// settleStatus runs after each message: a fresh status belongs to where
// the message left the screen; an older one is cleared once the screen
// changes, or, unless it is an error, once the trainee or the tab does:
// "Cancelled" never follows the user around.
func (m *Model) settleStatus() {
	now := m.place()
	switch {
	case m.statusFresh:
		m.statusFresh, m.statusAt = false, now
	case m.status == "":
	case now.screen != m.statusAt.screen,
		m.statusKind != statusError && (now.trainee != m.statusAt.trainee || now.tab != m.statusAt.tab):
		m.status, m.statusKind = "", statusInfo
	}
}

// confirmState is an open "delete this trainee?" question.
type confirmState struct {
	t *api.Trainee
}

// New returns the model over c.
func New(c Client, o Options) *Model {
	o = o.withDefaults()
	m := &Model{
		c:      c,
		opt:    o,
		width:  defaultWidth,
		height: defaultHeight,
		isDark: true,
		keys:   newKeyMap(),
		help:   help.New(),
		spin:   spinner.New(spinner.WithSpinner(spinner.MiniDot)),
	}
	m.list = newListModel(o.Today)
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
	return tea.Batch(tea.RequestBackgroundColor, m.reloadList(false), trainers)
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
	m.trainers, m.list.trainers = names, names
	clear(m.list.lines) // rows drawn with ids
	return nil
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
	m.fits = map[string]bool{}
	m.help.SetWidth(m.width)
	m.list.resize(m.width, m.contentHeight())
	m.trainee.invalidate()
	m.form.resize(m.width)
}

// contentHeight is the number of lines between the two title lines and the
// status and help lines.
func (m *Model) contentHeight() int { return max(m.height-3-len(m.statusLines()), 1) }

// statusLines is the status line, on two lines of the screen's width when
// it is longer (an error's cause on the first, its URL on the second); what
// two lines cannot hold is cut with "…".
func (m *Model) statusLines() []string {
	if m.status == "" || m.width <= 0 {
		return []string{""}
	}
	prefix := ""
	switch m.statusKind {
	case statusError:
		prefix = "✗ "
	case statusOK:
		prefix = "✓ "
	}
	text := prefix + m.status
	if one := strings.ReplaceAll(text, "\n", " "); ansi.StringWidth(one) <= m.width {
		return []string{one}
	}
	// A status of two parts (cause, then URL) breaks between them;
	// another wraps at spaces.
	var lines []string
	if before, after, ok := strings.Cut(text, "\n"); ok {
		lines = []string{before, after}
	} else {
		lines = strings.Split(ansi.Wordwrap(text, m.width, ""), "\n")
	}
	if len(lines) > 2 {
		lines = []string{lines[0], strings.Join(lines[1:], " ")}
	}
	for i := range lines {
		lines[i] = ansi.Truncate(lines[i], m.width, "…")
	}
	return lines
}

func (m *Model) today() api.Date { return m.opt.Today() }

// setStatus sets the status line; its string arguments are data (names,
// ids, errors the server wrote) and are shown escaped (api.EscapeText).
func (m *Model) setStatus(k statusKind, format string, args ...any) {
	for i, a := range args {
		if s, ok := a.(string); ok {
			args[i] = api.EscapeText(s)
		}
	}
	m.showStatus(k, fmt.Sprintf(format, args...))
}

func (m *Model) showStatus(k statusKind, text string) {
	m.statusKind, m.status = k, text
	m.statusFresh = true
}

func (m *Model) setError(err error) { m.showStatus(statusError, describe(err)) }

// describe turns an error into the status line's words, what the server
// or the network said escaped (api.EscapeText); a network failure's
// request goes on a second line.
func describe(err error) string {
	cause, request := describeParts(err)
	if request != "" {
		return api.EscapeText(cause) + "\n" + api.EscapeText(request)
	}
	return api.EscapeText(cause)
}

// describeParts is an error's words and, for a network failure, the
// request that failed.
func describeParts(err error) (cause, request string) {
	var auth *client.AuthRefusedError
	var rej *client.RejectedError
	var nf *client.TraineeNotFoundError
	switch {
	case errors.As(err, &auth):
		return "The API key was refused (401): check --api-key, TRAINEECTL_API_KEY or the profile.", ""
	case errors.As(err, &nf):
		return fmt.Sprintf("Trainee %d was not found in your company.", nf.ID), ""
	case errors.As(err, &rej):
		if rej.Status == http.StatusNotFound {
			return "The server has no such endpoint (404): it may be older than this traineectl.", ""
		}
		if rej.ErrorCode == 0 {
			return rej.Error(), ""
		}
		s := fmt.Sprintf("Rejected: %d", rej.ErrorCode)
		if rej.Field != "" {
			s += " " + rej.Field
		}
		return s + ": " + rej.Message, ""
	case errors.Is(err, context.DeadlineExceeded):
		return "The server did not answer in time.", ""
	case errors.Is(err, context.Canceled):
		return "Cancelled.", ""
	}
	var ne *client.NetworkError
	if errors.As(err, &ne) {
		// The cause first and the URL last: a narrow status line keeps
		// what matters.
		s := "Cannot reach the server: " + networkCause(ne.Err)
		if ne.Attempts > 1 {
			s += fmt.Sprintf(" (after %d attempts)", ne.Attempts)
		}
		return s + ".", ne.Method + " " + ne.URL
	}
	return err.Error(), ""
}

// networkCause is the innermost words of a connection failure:
// "connect: connection refused", not "dial tcp 127.0.0.1:1: ...".
func networkCause(err error) string {
	var oe *net.OpError
	if errors.As(err, &oe) && oe.Err != nil {
		return oe.Err.Error()
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err.Error()
	}
	return err.Error()
}

// call starts a request of slot s; a previous request of the slot is
// cancelled (reads) and its answer will be dropped.
func (m *Model) call(s slot, fn func(ctx context.Context) (any, error)) tea.Cmd {
	if s != slotMutate && s != slotWebhookAction && m.cancels[s] != nil {
		m.cancels[s]()
	}
	m.seq++
	seq := m.seq
	ctx, cancel := context.WithTimeout(m.opt.Context, m.opt.Timeout)
	m.inflight[s], m.cancels[s] = seq, cancel
	run := func() tea.Msg {
		defer cancel()
		v, err := fn(ctx)
		return resultMsg{slot: s, seq: seq, val: v, err: err}
	}
	return tea.Batch(run, m.startSpinner())
}

// forget drops whatever the slots wait for: their answers will be dropped.
func (m *Model) forget(slots ...slot) {
	for _, s := range slots {
		if m.cancels[s] != nil {
			m.cancels[s]()
			m.cancels[s] = nil
		}
		m.inflight[s] = 0
	}
}

func (m *Model) loading(s slot) bool { return m.inflight[s] != 0 }

func (m *Model) busy() bool {
	for _, seq := range m.inflight {
		if seq != 0 {
			return true
		}
	}
	return false
}

func (m *Model) startSpinner() tea.Cmd {
	if m.spinning {
		return nil
	}
	m.spinning = true
	return m.spin.Tick
}

// Update handles one message.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	model, cmd := m.update(msg)
	m.settleStatus()
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
		if !m.busy() {
			m.spinning = false
			return m, nil
		}
		var cmd tea.Cmd
		m.spin, cmd = m.spin.Update(msg)
		return m, cmd
	case resultMsg:
		return m, m.result(msg)
	case debounceMsg:
		return m, m.debounced(msg)
	case tea.KeyPressMsg:
		return m, m.key(msg)
	}
	if m.screen == screenForm {
		return m, m.form.update(msg)
	}
	if m.screen == screenList && m.list.searching {
		var cmd tea.Cmd
		m.list.input, cmd = m.list.input.Update(msg)
		return m, cmd
	}
	return m, nil
}

func (m *Model) result(msg resultMsg) tea.Cmd {
	if m.inflight[msg.slot] != msg.seq {
		m.dropped++
		return nil
	}
	m.inflight[msg.slot], m.cancels[msg.slot] = 0, nil
	switch msg.slot {
	case slotList:
		return m.listResult(msg)
	case slotMutate:
		return m.mutateResult(msg)
	case slotTrainers:
		return m.trainersResult(msg)
	case slotWebhooks, slotDeliveries, slotWebhookAction:
		return m.webhooksResult(msg)
	case slotAutomations, slotRuns:
		return m.automationsResult(msg)
	default:
		return m.traineeResult(msg)
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
		return m.formKey(msg)
	case screenList:
		if m.list.searching {
			return m.searchKey(msg)
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
		return m.traineeKey(msg)
	case screenWebhooks:
		return m.webhooksKey(msg)
	case screenAutomations:
		return m.automationsKey(msg)
	case screenRuns:
		return m.runsKey(msg)
	}
	return m.listKey(msg)
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
		m.form = formModel{}
		cmd := m.reloadList(false)
		return tea.Batch(cmd, m.openTrainee(t))
	case "updated":
		m.setStatus(statusOK, "Saved %s: %s.", t.Name, strings.Join(mu.changed, ", "))
		back := m.form.back
		m.form = formModel{}
		m.screen = back
	case "deleted":
		m.setStatus(statusOK, "Deleted %s (#%d): u restores.", t.Name, t.ID)
	case "restored":
		m.setStatus(statusOK, "Restored %s (#%d).", t.Name, t.ID)
	}
	m.list.replace(t)
	if m.trainee.t != nil && m.trainee.t.ID == t.ID {
		m.trainee.t = t
	}
	return m.maybeLoadMore()
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
		top, sub, body = m.listView()
	case screenTrainee:
		top, sub, body = m.traineeView()
	case screenForm:
		top, sub, body = m.formView()
	case screenWebhooks:
		top, sub, body = m.webhooksView()
	case screenAutomations:
		top, sub, body = m.automationsView()
	case screenRuns:
		top, sub, body = m.runsView()
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
	b.WriteString(m.fit(top) + "\n")
	b.WriteString(m.fit(sub) + "\n")
	lines := strings.Split(strings.TrimRight(body, "\n"), "\n")
	h := m.contentHeight()
	for i := range h {
		if i < len(lines) {
			b.WriteString(m.fit(lines[i]))
		}
		b.WriteString("\n")
	}
	for _, l := range m.statusLines() {
		b.WriteString(m.fit(m.paintStatus(l)) + "\n")
	}
	b.WriteString(m.fit(m.helpLine))
	// Every screen escapes the data it shows (api.EscapeText); this is the
	// backstop for what the screens do not draw themselves (a pasted
	// bidirectional override in a text input): no C1 control or
	// bidirectional formatting character ever reaches the terminal. The
	// screen's own ESC sequences are C0, and stay.
	return api.EscapeFramed(b.String())
}

// fit cuts a line to the screen's width. Measuring a line costs more than
// drawing it, so lines seen to fit are remembered (until a resize).
func (m *Model) fit(s string) string {
	if len(s) <= m.width || m.fits[s] {
		return s
	}
	if ansi.StringWidth(s) <= m.width {
		if len(m.fits) > 4096 {
			clear(m.fits)
		}
		m.fits[s] = true
		return s
	}
	return ansi.Truncate(s, m.width, "…")
}

// paintStatus colours one line of the status (see statusLines).
func (m *Model) paintStatus(line string) string {
	switch m.statusKind {
	case statusError:
		return m.th.errText.Render(line)
	case statusOK:
		return m.th.okText.Render(line)
	}
	return m.th.dim.Render(line)
}

// spinnerView is the spinner while anything is loading, else blank.
func (m *Model) spinnerView() string {
	if !m.busy() {
		return " "
	}
	return m.spin.View()
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

// titleBar lays out left and right on one line of the screen's width.
func (m *Model) titleBar(left, right string) string {
	gap := m.width - ansi.StringWidth(left) - ansi.StringWidth(right)
	if gap < 1 {
		return left + " " + right
	}
	return left + strings.Repeat(" ", gap) + right
}

// placeCenter centres block in a w×h area.
func placeCenter(block string, w, h int) string {
	lines := strings.Split(block, "\n")
	bw := 0
	for _, l := range lines {
		bw = max(bw, ansi.StringWidth(l))
	}
	pad := strings.Repeat(" ", max((w-bw)/2, 0))
	top := max((h-len(lines))/2, 0)
	var b strings.Builder
	b.WriteString(strings.Repeat("\n", top))
	for i, l := range lines {
		if i > 0 {
			b.WriteString("\n")
		}
		b.WriteString(pad + l)
	}
	return b.String()
}
