package tui

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/client"
)

// The Webhooks screen: the company's webhooks, the recent deliveries of the
// selected one (status code, latency, error), t to send a test, r to
// redeliver the selected delivery's event. w opens it from the list, esc
// goes back.

// webhookDeliveriesShown is how many attempts the screen asks for.
const webhookDeliveriesShown = 50

// webhooksModel is the webhooks page.
type webhooksModel struct {
	*common

	hooks      []*api.Webhook
	loaded     bool
	cursor     int // the selected webhook
	deliveries []*api.WebhookAttempt
	forHook    int64 // the webhook deliveries belong to
	dcursor    int   // the selected delivery
	focus      int   // 0: webhooks, 1: deliveries
	detail     bool  // the selected delivery's detail is open (enter)
	back       screen
	failed     error // the webhooks could not be read
}

func (w *webhooksModel) selected() *api.Webhook {
	if w.cursor < 0 || w.cursor >= len(w.hooks) {
		return nil
	}
	return w.hooks[w.cursor]
}

func (w *webhooksModel) selectedDelivery() *api.WebhookAttempt {
	if w.dcursor < 0 || w.dcursor >= len(w.deliveries) {
		return nil
	}
	return w.deliveries[w.dcursor]
}

// webhookAction is the answer to a test or a redelivery.
type webhookAction struct {
	test      *api.WebhookTestResult
	eventID   string
	scheduled int
}

// load reads the webhooks (not for a key limited to its trainer's
// trainees: the page says why).
func (w *webhooksModel) load() tea.Cmd {
	if w.limited() {
		return nil
	}
	c := w.c
	return w.call(slotWebhooks, func(ctx context.Context) (any, error) { return c.Webhooks(ctx) })
}

func (w *webhooksModel) loadDeliveries() tea.Cmd {
	s := w.selected()
	if s == nil {
		w.deliveries, w.forHook = nil, 0
		return nil
	}
	c, id := w.c, s.ID
	return w.call(slotDeliveries, func(ctx context.Context) (any, error) {
		return c.WebhookDeliveries(ctx, id, client.ListParams{Limit: webhookDeliveriesShown})
	})
}

func (w *webhooksModel) result(msg resultMsg) tea.Cmd {
	switch msg.slot {
	case slotWebhooks:
		var keep int64
		if s := w.selected(); s != nil {
			keep = s.ID
		}
		w.hooks, w.loaded = msg.val.([]*api.Webhook), true
		w.cursor = 0
		for i, h := range w.hooks {
			if h.ID == keep {
				w.cursor = i
			}
		}
		return w.loadDeliveries()
	case slotDeliveries:
		page := msg.val.(*api.WebhookDeliveries)
		if s := w.selected(); s != nil {
			if w.forHook != s.ID {
				w.dcursor = 0
			}
			w.forHook = s.ID
		}
		w.deliveries = page.Deliveries
		w.dcursor = min(w.dcursor, max(len(w.deliveries)-1, 0))
	case slotWebhookAction:
		a := msg.val.(webhookAction)
		if a.test != nil {
			r := a.test
			if r.OK {
				w.setStatus(statusOK, "Test %s: %d in %.1f ms.", r.EventID, *r.StatusCode, r.LatencyMs)
			} else {
				what := "no answer"
				if r.StatusCode != nil {
					what = strconv.Itoa(*r.StatusCode)
				}
				if r.Error != nil {
					what += ": " + *r.Error
				}
				w.setStatus(statusError, "Test %s failed (%s) in %.1f ms.", r.EventID, what, r.LatencyMs)
			}
			return nil
		}
		if a.scheduled == 0 {
			w.setStatus(statusInfo, "No webhook is subscribed to %s any more: nothing scheduled.", a.eventID)
			return nil
		}
		w.setStatus(statusOK, "Redelivery of %s scheduled (%d).", a.eventID, a.scheduled)
		return w.loadDeliveries()
	}
	return nil
}

func (w *webhooksModel) key(msg tea.KeyPressMsg) tea.Cmd {
	k := w.keys
	if w.detail && (key.Matches(msg, k.Back) || key.Matches(msg, k.Open)) {
		w.detail = false
		return nil
	}
	if cmd, ok := w.backOrReload(msg, w.back, w.load, slotWebhooks, slotDeliveries); ok {
		return cmd
	}
	cmd, _ := route(msg, []keyRoute{
		on(done(w.open), k.Open),
		on(done(func() { w.focus, w.detail = 1-w.focus, false }), k.NextTab, k.PrevTab),
		on(func(tea.KeyPressMsg) tea.Cmd { return w.moveBy(-1) }, k.Up),
		on(func(tea.KeyPressMsg) tea.Cmd { return w.moveBy(1) }, k.Down),
		onIf(w.limited, done(func() {}), k.Test, k.Redeliver), // no webhook to act on
		on(then(w.test), k.Test),
		on(then(w.redeliver), k.Redeliver),
	})
	return cmd
}

// open is enter: from the webhooks to their deliveries, then a delivery
// in full.
func (w *webhooksModel) open() {
	if w.focus == 0 {
		w.focus = 1
		return
	}
	w.detail = w.selectedDelivery() != nil
}

// moveBy moves the cursor of the table in focus; another webhook reads
// its deliveries.
func (w *webhooksModel) moveBy(d int) tea.Cmd {
	if w.focus == 1 {
		w.dcursor = clamp(w.dcursor+d, 0, len(w.deliveries)-1)
		return nil
	}
	before := w.cursor
	w.cursor = clamp(w.cursor+d, 0, len(w.hooks)-1)
	if w.cursor != before {
		w.deliveries, w.dcursor, w.detail = nil, 0, false
		return w.loadDeliveries()
	}
	return nil
}

// test is t: a test event to the selected webhook.
func (w *webhooksModel) test() tea.Cmd {
	s := w.selected()
	if s == nil || w.readOnlyRefusal("sending a test") {
		return nil
	}
	w.setStatus(statusInfo, "Sending a test to webhook %d…", s.ID)
	c, id := w.c, s.ID
	return w.call(slotWebhookAction, func(ctx context.Context) (any, error) {
		r, err := c.TestWebhook(ctx, id)
		return webhookAction{test: r}, err
	})
}

// redeliver is r: the selected delivery's event sent again.
func (w *webhooksModel) redeliver() tea.Cmd {
	d := w.selectedDelivery()
	if d == nil {
		w.setStatus(statusInfo, "No delivery selected: tab moves to the deliveries.")
		return nil
	}
	if w.readOnlyRefusal("redelivering an event") {
		return nil
	}
	w.setStatus(statusInfo, "Redelivering %s…", d.EventID)
	c, ev := w.c, d.EventID
	return w.call(slotWebhookAction, func(ctx context.Context) (any, error) {
		n, err := c.Redeliver(ctx, ev)
		return webhookAction{eventID: ev, scheduled: n}, err
	})
}

func (w *webhooksModel) view() (top, sub, body string) {
	th := w.th
	count := ""
	if w.loaded {
		count = plural(len(w.hooks), "webhook")
	}
	top = w.topBar(th.title.Render("Webhooks"), w.spinnerView()+" "+count+" ")
	sub = th.dim.Render("tab switches between webhooks and deliveries • enter shows a delivery in full")
	if w.opt.ReadOnly {
		sub = th.warnText.Render("read-only key: t and r are off")
	}
	if body, ok := w.unreadBody(w.failed, "webhooks"); ok && !w.loaded && !w.loading(slotWebhooks) {
		return top, th.dim.Render("esc goes back"), body
	}
	if body, ok := w.emptyBody(w.loaded, len(w.hooks), "webhooks", "No webhooks: add one with `traineectl webhooks add --url URL`."); ok {
		return top, sub, body
	}
	var b strings.Builder
	b.WriteString(w.hooksTable())
	sel := w.selected()
	if sel.DisabledReason != nil {
		b.WriteString(th.warnText.Render("  Disabled by the server: "+api.EscapeText(*sel.DisabledReason)+" (enable it to resume)") + "\n")
	}
	b.WriteString(th.accent.Render(fmt.Sprintf("Recent deliveries of webhook %d", sel.ID)) + "\n")
	b.WriteString(w.deliveriesPart(sel))
	return top, sub, b.String()
}

// hooksTable is the webhooks' table with its cursor, and a blank line.
func (w *webhooksModel) hooksTable() string {
	th := w.th
	var b strings.Builder
	rows := w.hookRows()
	hooks := fitCols(w.width-2, w.hookCols(rows))
	b.WriteString(th.header.Render("  "+hooks.header()) + "\n")
	for i, r := range rows {
		line := "  " + hooks.row(r...)
		if i == w.cursor {
			st := th.selected
			if w.focus != 0 {
				st = th.accent
			}
			line = st.Render(line)
		}
		b.WriteString(line + "\n")
	}
	b.WriteString("\n")
	return b.String()
}

// deliveriesPart is what shows under the selected webhook: its
// deliveries, one in full, or why there are none.
func (w *webhooksModel) deliveriesPart(sel *api.Webhook) string {
	switch {
	case len(w.deliveries) == 0 || w.forHook != sel.ID:
		if w.loading(slotDeliveries) {
			return "  " + w.spin.View() + " Loading…\n"
		}
		return "  " + w.th.dim.Render("No deliveries yet.") + "\n"
	case w.detail && w.selectedDelivery() != nil:
		return w.deliveryDetail(w.selectedDelivery())
	}
	return w.deliveriesView()
}

// Columns of the webhooks and of their deliveries: at 80 columns every
// one shows (the event id and the error cut with "…"); narrower, the
// latency goes first, then the attempt.
var (
	webhookCols  = []colSpec{col("ID", 3, 5, 0), col("STATE", 8, 8, 0), col("EVENTS", 6, 32, 1), col("URL", 10, 0, 0)}
	deliveryCols = []colSpec{col("EVENT", 10, 28, 0), col("TYPE", 16, 17, 0), col("#", 2, 3, 2), col("STATUS", 6, 6, 0),
		col("LATENCY", 9, 10, 3), col("STATE", 9, 9, 0), col("ERROR", 8, 0, 1)}
)

// hookRows are the cells of the webhooks' table.
func (w *webhooksModel) hookRows() [][]string {
	rows := make([][]string, len(w.hooks))
	for i, h := range w.hooks {
		evs := api.EventsLabel(h.Events)
		rows[i] = []string{strconv.FormatInt(h.ID, 10), api.EscapeText(h.State), api.EscapeText(evs), api.EscapeText(h.URL)}
	}
	return rows
}

// hookCols sizes the webhooks' columns by their content, the URL first:
// the events are cut before the URL is.
func (w *webhooksModel) hookCols(rows [][]string) []colSpec {
	specs := contentCols(webhookCols, rows)
	url := len(specs) - 1
	urlW, others := 0, 0
	for _, r := range rows {
		urlW = max(urlW, ansi.StringWidth(r[url]))
	}
	for _, s := range specs[:url] {
		others += s.min + 1
	}
	specs[url].min = max(specs[url].min, min(urlW, w.width-2-others-1))
	return specs
}

// deliveriesView is the table of the selected webhook's deliveries.
func (w *webhooksModel) deliveriesView() string {
	th := w.th
	t := fitCols(w.width-2, deliveryCols)
	var b strings.Builder
	b.WriteString(th.header.Render("  "+t.header()) + "\n")
	for i, a := range w.deliveries {
		status, latency := attemptAnswer(a)
		errText := ""
		if a.Error != nil {
			errText = api.EscapeText(*a.Error)
		}
		line := "  " + t.row(api.EscapeText(a.EventID), api.EscapeText(a.Type), strconv.Itoa(a.Attempt), status,
			padLeft(latency, 9), deliveryState(a), errText)
		switch {
		case i == w.dcursor && w.focus == 1:
			line = th.selected.Render(line)
		case a.State == api.DeliveryFailed:
			line = th.errText.Render(line)
		}
		b.WriteString(line + "\n")
	}
	return b.String()
}

// attemptAnswer is an attempt's response status and latency: "-" for both
// when nothing answered (no status: a refused connection, a timeout).
func attemptAnswer(a *api.WebhookAttempt) (status, latency string) {
	if a.StatusCode == nil {
		return "-", "-"
	}
	status = strconv.Itoa(*a.StatusCode)
	latency = "-"
	if a.LatencyMs != nil {
		latency = strconv.FormatFloat(*a.LatencyMs, 'f', 1, 64) + " ms"
	}
	return status, latency
}

// deliveryState is the state a row shows: a pending delivery that was
// attempted already (and failed, or it would have succeeded) is waiting
// for its retry: "retrying"; one not attempted yet stays "pending".
func deliveryState(a *api.WebhookAttempt) string {
	if a.State == api.DeliveryPending && a.Attempt > 0 {
		return "retrying"
	}
	return api.EscapeText(a.State)
}

// deliveryDetail is the selected delivery attempt in full (enter): the
// whole error, the response, when the next attempt is due.
func (w *webhooksModel) deliveryDetail(a *api.WebhookAttempt) string {
	th := w.th
	status, latency := attemptAnswer(a)
	if a.StatusCode == nil && a.Attempt > 0 {
		status = "- (no answer)"
	}
	next := "-"
	if a.NextAttemptAt != nil {
		next = a.NextAttemptAt.Local().Format("2006-01-02 15:04:05")
	}
	when := "Attempted"
	if a.Attempt == 0 {
		when = "Scheduled"
	}
	rows := [][2]string{
		{"Event", api.EscapeText(a.EventID) + " (" + api.EscapeText(a.Type) + ")"},
		{"State", deliveryState(a)},
		{"Attempt", strconv.Itoa(a.Attempt)},
		{when, a.Time.Local().Format("2006-01-02 15:04:05")},
		{"Status", status},
		{"Latency", latency},
		{"Next attempt", next},
	}
	var b strings.Builder
	b.WriteString(th.accent.Render(fmt.Sprintf("Delivery %d, attempt %d", a.DeliveryID, a.Attempt)) + "  " +
		th.dim.Render("enter or esc closes") + "\n")
	for _, r := range rows {
		b.WriteString("  " + th.dim.Render(padRight(r[0], 13)) + r[1] + "\n")
	}
	long := func(title string, text *string) {
		if text == nil || *text == "" {
			return
		}
		b.WriteString("  " + th.dim.Render(title) + "\n")
		for _, l := range wrapWords(api.EscapeText(*text), max(w.width-4, 10)) {
			b.WriteString("    " + l + "\n")
		}
	}
	long("Error", a.Error)
	long("Response", a.Response)
	return b.String()
}

// update takes the answers of the webhooks, their deliveries, a test and
// a redelivery.
func (w *webhooksModel) update(msg tea.Msg) tea.Cmd {
	r, ok := w.answer(msg)
	if r.slot == slotWebhooks {
		w.failed = r.err
	}
	if ok {
		return w.result(r)
	}
	return nil
}

// help is the page's key map: t and r are off for a read-only key, and for
// a key limited to its trainer's trainees (it sees no webhook).
func (w *webhooksModel) help() helpKeys { return w.keys.webhooksHelp(w.opt.ReadOnly || w.limited()) }

func (w *webhooksModel) takesKeys() bool { return false }

func (w *webhooksModel) shows() (*api.Trainee, int) { return nil, 0 }
