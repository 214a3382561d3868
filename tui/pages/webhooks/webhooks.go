package webhooks

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
	"github.com/traineed/traineed/tui/components/keymap"
	"github.com/traineed/traineed/tui/components/layout"
	"github.com/traineed/traineed/tui/components/requests"
	"github.com/traineed/traineed/tui/components/statusline"
	"github.com/traineed/traineed/tui/components/table"
	"github.com/traineed/traineed/tui/internal/common"
)

// The Webhooks screen: the company's webhooks, the recent deliveries of the
// selected one (status code, latency, error), t to send a test, r to
// redeliver the selected delivery's event. w opens it from the list, esc
// goes back.

// webhookDeliveriesShown is how many attempts the screen asks for.
const webhookDeliveriesShown = 50

// webhooksModel is the webhooks page.
type Model struct {
	*common.Common

	Hooks      []*api.Webhook
	loaded     bool
	cursor     int // the selected webhook
	Deliveries []*api.WebhookAttempt
	ForHook    int64 // the webhook deliveries belong to
	dcursor    int   // the selected delivery
	focus      int   // 0: webhooks, 1: deliveries
	detail     bool  // the selected delivery's detail is open (enter)
	Back       common.Screen
	failed     error // the webhooks could not be read
}

func (w *Model) selected() *api.Webhook {
	if w.cursor < 0 || w.cursor >= len(w.Hooks) {
		return nil
	}
	return w.Hooks[w.cursor]
}

func (w *Model) selectedDelivery() *api.WebhookAttempt {
	if w.dcursor < 0 || w.dcursor >= len(w.Deliveries) {
		return nil
	}
	return w.Deliveries[w.dcursor]
}

// webhookAction is the answer to a test or a redelivery.
type webhookAction struct {
	test      *api.WebhookTestResult
	eventID   string
	scheduled int
}

// Load reads the webhooks (not for a key limited to its trainer's
// trainees: the page says why).
func (w *Model) Load() tea.Cmd {
	if w.Limited() {
		return nil
	}
	c := w.C
	return w.Call(requests.SlotWebhooks, func(ctx context.Context) (any, error) {
		return client.Collect(c.ListWebhooks(ctx, client.ListParams{}))
	})
}

func (w *Model) loadDeliveries() tea.Cmd {
	s := w.selected()
	if s == nil {
		w.Deliveries, w.ForHook = nil, 0
		return nil
	}
	c, id := w.C, s.ID
	return w.Call(requests.SlotDeliveries, func(ctx context.Context) (any, error) {
		return c.WebhookDeliveries(ctx, id, client.ListParams{Limit: webhookDeliveriesShown})
	})
}

func (w *Model) result(msg requests.ResultMsg) tea.Cmd {
	switch msg.Slot {
	case requests.SlotWebhooks:
		var keep int64
		if s := w.selected(); s != nil {
			keep = s.ID
		}
		w.Hooks, w.loaded = msg.Val.([]*api.Webhook), true
		w.cursor = 0
		for i, h := range w.Hooks {
			if h.ID == keep {
				w.cursor = i
			}
		}
		return w.loadDeliveries()
	case requests.SlotDeliveries:
		page := msg.Val.(*api.WebhookDeliveries)
		if s := w.selected(); s != nil {
			if w.ForHook != s.ID {
				w.dcursor = 0
			}
			w.ForHook = s.ID
		}
		w.Deliveries = page.Deliveries
		w.dcursor = min(w.dcursor, max(len(w.Deliveries)-1, 0))
	case requests.SlotWebhookAction:
		a := msg.Val.(webhookAction)
		if a.test != nil {
			r := a.test
			if r.OK {
				w.SetStatus(statusline.StatusOK, "Test %s: %d in %.1f ms.", r.EventID, *r.StatusCode, r.LatencyMs)
			} else {
				what := "no answer"
				if r.StatusCode != nil {
					what = strconv.Itoa(*r.StatusCode)
				}
				if r.Error != nil {
					what += ": " + *r.Error
				}
				w.SetStatus(statusline.StatusError, "Test %s failed (%s) in %.1f ms.", r.EventID, what, r.LatencyMs)
			}
			return nil
		}
		if a.scheduled == 0 {
			w.SetStatus(statusline.StatusInfo, "No webhook is subscribed to %s any more: nothing scheduled.", a.eventID)
			return nil
		}
		w.SetStatus(statusline.StatusOK, "Redelivery of %s scheduled (%d).", a.eventID, a.scheduled)
		return w.loadDeliveries()
	}
	return nil
}

func (w *Model) Key(msg tea.KeyPressMsg) tea.Cmd {
	k := w.Keys
	if w.detail && (key.Matches(msg, k.Back) || key.Matches(msg, k.Open)) {
		w.detail = false
		return nil
	}
	if cmd, ok := w.BackOrReload(msg, w.Back, w.Load, requests.SlotWebhooks, requests.SlotDeliveries); ok {
		return cmd
	}
	cmd, _ := keymap.Route(msg, []keymap.KeyRoute{
		keymap.On(keymap.Done(w.open), k.Open),
		keymap.On(keymap.Done(func() { w.focus, w.detail = 1-w.focus, false }), k.NextTab, k.PrevTab),
		keymap.On(func(tea.KeyPressMsg) tea.Cmd { return w.moveBy(-1) }, k.Up),
		keymap.On(func(tea.KeyPressMsg) tea.Cmd { return w.moveBy(1) }, k.Down),
		keymap.OnIf(w.Limited, keymap.Done(func() {}), k.Test, k.Redeliver), // no webhook to act on
		keymap.On(keymap.Then(w.test), k.Test),
		keymap.On(keymap.Then(w.redeliver), k.Redeliver),
	})
	return cmd
}

// open is enter: from the webhooks to their deliveries, then a delivery
// in full.
func (w *Model) open() {
	if w.focus == 0 {
		w.focus = 1
		return
	}
	w.detail = w.selectedDelivery() != nil
}

// moveBy moves the cursor of the table in focus; another webhook reads
// its deliveries.
func (w *Model) moveBy(d int) tea.Cmd {
	if w.focus == 1 {
		w.dcursor = layout.Clamp(w.dcursor+d, 0, len(w.Deliveries)-1)
		return nil
	}
	before := w.cursor
	w.cursor = layout.Clamp(w.cursor+d, 0, len(w.Hooks)-1)
	if w.cursor != before {
		w.Deliveries, w.dcursor, w.detail = nil, 0, false
		return w.loadDeliveries()
	}
	return nil
}

// test is t: a test event to the selected webhook.
func (w *Model) test() tea.Cmd {
	s := w.selected()
	if s == nil || w.ReadOnlyRefusal("sending a test") {
		return nil
	}
	w.SetStatus(statusline.StatusInfo, "Sending a test to webhook %d…", s.ID)
	c, id := w.C, s.ID
	return w.Call(requests.SlotWebhookAction, func(ctx context.Context) (any, error) {
		r, err := c.TestWebhook(ctx, id)
		return webhookAction{test: r}, err
	})
}

// redeliver is r: the selected delivery's event sent again.
func (w *Model) redeliver() tea.Cmd {
	d := w.selectedDelivery()
	if d == nil {
		w.SetStatus(statusline.StatusInfo, "No delivery selected: tab moves to the deliveries.")
		return nil
	}
	if w.ReadOnlyRefusal("redelivering an event") {
		return nil
	}
	w.SetStatus(statusline.StatusInfo, "Redelivering %s…", d.EventID)
	c, ev := w.C, d.EventID
	return w.Call(requests.SlotWebhookAction, func(ctx context.Context) (any, error) {
		n, err := c.Redeliver(ctx, ev)
		return webhookAction{eventID: ev, scheduled: n}, err
	})
}

func (w *Model) View() (top, sub, body string) {
	th := w.Th
	count := ""
	if w.loaded {
		count = layout.Plural(len(w.Hooks), "webhook")
	}
	top = w.TopBar(th.Title.Render("Webhooks"), w.SpinnerView()+" "+count+" ")
	sub = th.Dim.Render("tab switches between webhooks and deliveries • enter shows a delivery in full")
	if w.Opt.ReadOnly {
		sub = th.WarnText.Render("read-only key: t and r are off")
	}
	if body, ok := w.UnreadBody(w.failed, "webhooks"); ok && !w.loaded && !w.Loading(requests.SlotWebhooks) {
		return top, th.Dim.Render("esc goes back"), body
	}
	if body, ok := w.EmptyBody(w.loaded, len(w.Hooks), "webhooks", "No webhooks: add one with `traineectl webhooks add --url URL`."); ok {
		return top, sub, body
	}
	var b strings.Builder
	b.WriteString(w.hooksTable())
	sel := w.selected()
	if sel.DisabledReason != nil {
		b.WriteString(th.WarnText.Render("  Disabled by the server: "+api.EscapeText(*sel.DisabledReason)+" (enable it to resume)") + "\n")
	}
	b.WriteString(th.Accent.Render(fmt.Sprintf("Recent deliveries of webhook %d", sel.ID)) + "\n")
	b.WriteString(w.deliveriesPart(sel))
	return top, sub, b.String()
}

// hooksTable is the webhooks' table with its cursor, and a blank line.
func (w *Model) hooksTable() string {
	th := w.Th
	var b strings.Builder
	rows := w.HookRows()
	hooks := table.FitCols(w.Width-2, w.HookCols(rows))
	b.WriteString(th.Header.Render("  "+hooks.Header()) + "\n")
	for i, r := range rows {
		line := "  " + hooks.Row(r...)
		if i == w.cursor {
			st := th.Selected
			if w.focus != 0 {
				st = th.Accent
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
func (w *Model) deliveriesPart(sel *api.Webhook) string {
	switch {
	case len(w.Deliveries) == 0 || w.ForHook != sel.ID:
		if w.Loading(requests.SlotDeliveries) {
			return "  " + w.Spin.View() + " Loading…\n"
		}
		return "  " + w.Th.Dim.Render("No deliveries yet.") + "\n"
	case w.detail && w.selectedDelivery() != nil:
		return w.deliveryDetail(w.selectedDelivery())
	}
	return w.deliveriesView()
}

// Columns of the webhooks and of their deliveries: at 80 columns every
// one shows (the event id, the trainee's name and the error cut with
// "…"); narrower, the latency goes first, then the attempt.
var (
	webhookCols  = []table.ColSpec{table.Col("ID", 3, 5, 0), table.Col("STATE", 8, 8, 0), table.Col("EVENTS", 6, 32, 1), table.Col("URL", 10, 0, 0)}
	deliveryCols = []table.ColSpec{table.Col("EVENT", 10, 28, 0), table.Col("TYPE", 16, 17, 0), table.Col("TRAINEE", 7, 24, 0), table.Col("#", 2, 3, 2), table.Col("STATUS", 6, 6, 0),
		table.Col("LATENCY", 9, 10, 3), table.Col("STATE", 9, 9, 0), table.Col("ERROR", 8, 0, 1)}
)

// HookRows are the cells of the webhooks' table.
func (w *Model) HookRows() [][]string {
	rows := make([][]string, len(w.Hooks))
	for i, h := range w.Hooks {
		evs := api.EventsLabel(h.Events)
		rows[i] = []string{strconv.FormatInt(h.ID, 10), api.EscapeText(h.State), api.EscapeText(evs), api.EscapeText(h.URL)}
	}
	return rows
}

// HookCols sizes the webhooks' columns by their content, the URL first:
// the events are cut before the URL is.
func (w *Model) HookCols(rows [][]string) []table.ColSpec {
	specs := table.ContentCols(webhookCols, rows)
	url := len(specs) - 1
	urlW, others := 0, 0
	for _, r := range rows {
		urlW = max(urlW, ansi.StringWidth(r[url]))
	}
	for _, s := range specs[:url] {
		others += s.Min + 1
	}
	specs[url].Min = max(specs[url].Min, min(urlW, w.Width-2-others-1))
	return specs
}

// DeliveryRows are the cells of the deliveries' table.
func (w *Model) DeliveryRows() [][]string {
	rows := make([][]string, len(w.Deliveries))
	for i, a := range w.Deliveries {
		status, latency := attemptAnswer(a)
		errText := ""
		if a.Error != nil {
			errText = api.EscapeText(*a.Error)
		}
		rows[i] = []string{api.EscapeText(a.EventID), api.EscapeText(a.Type), DeliveryTrainee(a), strconv.Itoa(a.Attempt), status,
			layout.PadLeft(latency, 9), deliveryState(a), errText}
	}
	return rows
}

// deliveryTraineeCol is the trainee's column of deliveryCols.
const deliveryTraineeCol = 2

// DeliveryCols sizes the deliveries' columns by their content, the
// trainee's name before the event id: people read the name, the id is
// for copying from the detail (enter). The name gets up to 20 cells of
// what the other columns leave at their minimums: at 80 columns, 15 at
// least.
func (w *Model) DeliveryCols(rows [][]string) []table.ColSpec {
	specs := table.ContentCols(deliveryCols, rows)
	name := 0
	for _, r := range rows {
		name = max(name, ansi.StringWidth(r[deliveryTraineeCol]))
	}
	// The error takes what is left, down to its title: the detail (enter)
	// shows it whole.
	specs[len(specs)-1].Min = ansi.StringWidth("ERROR")
	others := 0
	for i, s := range specs {
		if i != deliveryTraineeCol {
			others += s.Min + 1
		}
	}
	tr := &specs[deliveryTraineeCol]
	tr.Min = max(tr.Min, min(name, 20, w.Width-2-others-1))
	return specs
}

// deliveriesView is the table of the selected webhook's deliveries.
func (w *Model) deliveriesView() string {
	th := w.Th
	rows := w.DeliveryRows()
	t := table.FitCols(w.Width-2, w.DeliveryCols(rows))
	var b strings.Builder
	b.WriteString(th.Header.Render("  "+t.Header()) + "\n")
	for i, a := range w.Deliveries {
		line := "  " + t.Row(rows[i]...)
		switch {
		case i == w.dcursor && w.focus == 1:
			line = th.Selected.Render(line)
		case a.State == api.DeliveryFailed:
			line = th.ErrText.Render(line)
		}
		b.WriteString(line + "\n")
	}
	return b.String()
}

// DeliveryTrainee is the trainee a delivery's event was about, as people
// read it: their name as it is now, else "#id" (an erased trainee), else
// "-" (an event about no trainee).
func DeliveryTrainee(a *api.WebhookAttempt) string {
	switch {
	case a.TraineeName != nil:
		return api.EscapeText(*a.TraineeName)
	case a.TraineeID != nil:
		return "#" + strconv.FormatInt(*a.TraineeID, 10)
	}
	return "-"
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
	return api.EscapeText(a.ShownState())
}

// deliveryTraineeDetail is the detail's trainee: "Ada Park (#12)".
func deliveryTraineeDetail(a *api.WebhookAttempt) string {
	if a.TraineeName != nil && a.TraineeID != nil {
		return api.EscapeText(*a.TraineeName) + " (#" + strconv.FormatInt(*a.TraineeID, 10) + ")"
	}
	return DeliveryTrainee(a)
}

// deliveryDetail is the selected delivery attempt in full (enter): the
// whole error, the response, when the next attempt is due.
func (w *Model) deliveryDetail(a *api.WebhookAttempt) string {
	th := w.Th
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
		{"Trainee", deliveryTraineeDetail(a)},
		{"State", deliveryState(a)},
		{"Attempt", strconv.Itoa(a.Attempt)},
		{when, a.Time.Local().Format("2006-01-02 15:04:05")},
		{"Status", status},
		{"Latency", latency},
		{"Next attempt", next},
	}
	var b strings.Builder
	b.WriteString(th.Accent.Render(fmt.Sprintf("Delivery %d, attempt %d", a.DeliveryID, a.Attempt)) + "  " +
		th.Dim.Render("enter or esc closes") + "\n")
	for _, r := range rows {
		b.WriteString("  " + th.Dim.Render(layout.PadRight(r[0], 13)) + r[1] + "\n")
	}
	long := func(title string, text *string) {
		if text == nil || *text == "" {
			return
		}
		b.WriteString("  " + th.Dim.Render(title) + "\n")
		for _, l := range layout.WrapWords(api.EscapeText(*text), max(w.Width-4, 10)) {
			b.WriteString("    " + l + "\n")
		}
	}
	long("Error", a.Error)
	long("Response", a.Response)
	return b.String()
}

// Update takes the answers of the webhooks, their deliveries, a test and
// a redelivery.
func (w *Model) Update(msg tea.Msg) tea.Cmd {
	r, ok := w.Answer(msg)
	if r.Slot == requests.SlotWebhooks {
		w.failed = r.Err
	}
	if ok {
		return w.result(r)
	}
	return nil
}

// Help is the page's key map: t and r are off for a read-only key, and for
// a key limited to its trainer's trainees (it sees no webhook).
func (w *Model) Help() keymap.HelpKeys { return w.Keys.WebhooksHelp(w.Opt.ReadOnly || w.Limited()) }

func (w *Model) TakesKeys() bool { return false }

func (w *Model) Shows() (*api.Trainee, int) { return nil, 0 }
