package common

import (
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/tui/components/keymap"
	"github.com/traineed/traineed/tui/components/layout"
	"github.com/traineed/traineed/tui/components/requests"
	"github.com/traineed/traineed/tui/components/statusline"
	"github.com/traineed/traineed/tui/components/theme"
)

// Screen names a page.
type Screen int

const (
	ScreenHome Screen = iota
	ScreenList
	ScreenTrainee
	ScreenForm
	ScreenWebhooks
	ScreenAutomations
	ScreenRuns
	ScreenSettings
	ScreenCount
)

// Page is one screen of the TUI (soft-serve's ui/pages): the list, a
// trainee, the form, the webhooks, the automations and an automation's
// runs, the Settings page, each a package of its own under tui/pages. The
// root model routes messages to the page on screen and draws the frame
// around what it returns: the two title lines, the body, the status line
// and the help line. The key map (?) and the dialogs are modals over a
// page (Modal).
type Page interface {
	// Key handles a key press the root left to the page: every key but
	// ctrl+c, q and ? (those two as well while the page TakesKeys).
	Key(msg tea.KeyPressMsg) tea.Cmd
	// Update handles the answer to one of the page's requests (requests.ResultMsg,
	// routed by its slot whether or not the page is on screen) and, on
	// screen, what else comes for its text inputs (a paste, a blink).
	Update(msg tea.Msg) tea.Cmd
	// View is the page's title bar, the line under it and its body.
	View() (top, sub, body string)
	// Help is the page's key map: the help line and ? show it, and a test
	// holds every key the page reacts to to it.
	Help() keymap.HelpKeys
	// TakesKeys reports whether every key is the page's (text is typed):
	// q and ? are then text, not quit and help.
	TakesKeys() bool
	// Shows is the trainee the page shows or has selected (nil: none) and
	// its tab: where the status line's message belongs.
	Shows() (t *api.Trainee, tab int)
}

// Router is what a page asks of the root model, the one way a page
// reaches another: to show another page, to open a dialog, or the
// question before a delete; what follows a change of a trainee concerns
// several pages and is the root's too. Pages never import each other.
type Router interface {
	// Show goes back to a page as it was left.
	Show(s Screen)
	OpenTrainee(t *api.Trainee) tea.Cmd
	// OpenForm opens the create form (t nil) or t's edit form; esc goes
	// back to the page back.
	OpenForm(t *api.Trainee, back Screen) tea.Cmd
	OpenWebhooks() tea.Cmd
	OpenAutomations() tea.Cmd
	OpenRuns(a *api.Automation) tea.Cmd
	// OpenList shows the list of a status tab narrowed by f; OpenHome
	// the home page.
	OpenList(status string, f ListFilter) tea.Cmd
	OpenHome() tea.Cmd
	// ToggleMine switches between the key's trainer's trainees and all.
	ToggleMine() tea.Cmd
	// OpenSettings shows the Settings page (admin keys).
	OpenSettings() tea.Cmd
	// Ask opens a dialog over the page (components/dialog,
	// components/form); Dialog is the one open (nil: none), CloseDialog
	// closes d when it is still open.
	Ask(d Modal)
	Dialog() Modal
	CloseDialog(d Modal)
	// OpenActions opens the : line with the bulk actions.
	OpenActions()
	// AskDelete asks whether to delete t; Restore restores t.
	AskDelete(t *api.Trainee)
	Restore(t *api.Trainee) tea.Cmd
	// TraineeRead is a trainee read again: the list follows.
	TraineeRead(t *api.Trainee)
	// TraineesMoved reads the dashboard's counts and the list again after
	// a change of many trainees at once (trainers, the time zone).
	TraineesMoved() tea.Cmd
}

// Common is what the root model and every page share (soft-serve's
// common.Common): the client and options, the theme and the key map, the
// screen's size, the company's trainers, and the two components every page
// writes to: the requests in flight (with the spinner) and the status line.
type Common struct {
	C      Client
	Opt    Options
	Th     theme.Theme
	IsDark bool
	Keys   keymap.KeyMap

	Width, Height int

	Trainers    map[int64]string     // trainer names by id, escaped (nil until read)
	TrainerList []api.TrainerSummary // the company's trainers, as read

	// Mine is the trainer whose trainees the dashboard and the list show
	// (0: all of the company's): a key bound to a trainer starts on its
	// trainer's, m switches (whoami.go, the root's ToggleMine).
	Mine int64

	Nav Router // the root model

	Live liveFeed // live mode: the event feed followed

	requests.Requests
	statusline.StatusLine
}

func (c *Common) Today() api.Date { return c.Opt.Today() }

// ContentHeight is the number of lines between the two title lines and the
// status and help lines.
func (c *Common) ContentHeight() int { return max(c.Height-3-len(c.StatusLines(c.Width)), 1) }

// TitleBar lays out left and right on one line of the screen's width.
func (c *Common) TitleBar(left, right string) string { return layout.TitleBar(c.Width, left, right) }

// ReadOnlyRefusal refuses a change on a read-only key, saying why.
func (c *Common) ReadOnlyRefusal(what string) bool {
	if !c.Opt.ReadOnly {
		return false
	}
	c.SetStatus(statusline.StatusError, "This API key is read-only: %s needs a full key.", what)
	return true
}

// Stamp is an instant as the screens show it: api.ShownTimeLayout in the
// zone of Options (local by default), as traineectl's tables.
func (c *Common) Stamp(t time.Time) string {
	loc := c.Opt.Zone
	if loc == nil {
		loc = time.Local
	}
	return t.In(loc).Format(api.ShownTimeLayout)
}

// Step reads a navigation key as a move of n rows (page is a page's rows).
func (c *Common) Step(msg tea.KeyPressMsg, page int) (int, bool) {
	k := c.Keys
	switch {
	case key.Matches(msg, k.Up):
		return -1, true
	case key.Matches(msg, k.Down):
		return 1, true
	case key.Matches(msg, k.PageUp):
		return -page, true
	case key.Matches(msg, k.PageDown):
		return page, true
	case key.Matches(msg, k.Top):
		return -1 << 30, true
	case key.Matches(msg, k.Bottom):
		return 1 << 30, true
	}
	return 0, false
}

// Answer is msg when it is the answer to a request that did not fail; a
// failure goes to the status line.
func (c *Common) Answer(msg tea.Msg) (requests.ResultMsg, bool) {
	r, ok := msg.(requests.ResultMsg)
	if ok && r.Err != nil {
		c.SetError(r.Err)
		return r, false
	}
	return r, ok
}

// BackOrReload handles esc, back to the page back (what slots wait for is
// dropped), and ctrl+r, reload; it reports false for other keys.
func (c *Common) BackOrReload(msg tea.KeyPressMsg, back Screen, reload func() tea.Cmd, slots ...requests.Slot) (tea.Cmd, bool) {
	switch {
	case key.Matches(msg, c.Keys.Back):
		c.Nav.Show(back)
		c.Forget(slots...)
		return nil, true
	case key.Matches(msg, c.Keys.Refresh):
		return reload(), true
	}
	return nil, false
}

// LoadingLine is a page's body while what it shows is read.
func (c *Common) LoadingLine(what string) string {
	return "\n  " + c.Spin.View() + " Loading " + what + "…"
}

// NoteLine is a page's body when there is nothing to show: why.
func (c *Common) NoteLine(text string) string { return "\n  " + c.Th.Dim.Render(text) }

// EmptyBody is the body of a page of n rows of what while it has none to
// show: the loading line until the rows are loaded, then none. It reports
// false when there are rows.
func (c *Common) EmptyBody(loaded bool, n int, what, none string) (string, bool) {
	switch {
	case !loaded:
		return c.LoadingLine(what), true
	case n == 0:
		return c.NoteLine(none), true
	}
	return "", false
}

// UnreadBody is the body of a page of the company's (the webhooks, the
// automations) whose rows were not read: for a key limited to its
// trainer's trainees (known at the start, or refused with 403 1030), why,
// on the page; after another failure (said in the status line), that
// ctrl+r reads again. It reports false while the rows are still to come.
func (c *Common) UnreadBody(err error, what string) (string, bool) {
	switch {
	case c.Limited() || ErrorCode(err) == api.CodeOwnTrainees:
		whose := "its trainer's"
		if _, name, _ := c.BoundTrainer(); name != "" {
			whose = name + "'s"
		}
		text := fmt.Sprintf("This key acts for %s trainees only (own trainees only), and the %s are the company's: "+
			"a key of the company that is not limited to one trainer's trainees sees them, here or with traineectl %s.", whose, what, what)
		var b strings.Builder
		b.WriteString("\n  " + c.Th.Accent.Render(Capitalized(what)+" need a company-wide key.") + "\n\n")
		for _, l := range layout.WrapWords(text, max(c.Width-4, 20)) {
			b.WriteString("  " + l + "\n")
		}
		return b.String(), true
	case err != nil:
		return c.NoteLine(fmt.Sprintf("The %s could not be read: ctrl+r reads them again.", what)), true
	}
	return "", false
}

// TrainerName is how a trainer shows: the name when known, else "#id".
func TrainerName(names map[int64]string, id *int64) string {
	switch {
	case id == nil:
		return "-"
	case names[*id] != "":
		return names[*id]
	}
	return fmt.Sprintf("#%d", *id)
}
