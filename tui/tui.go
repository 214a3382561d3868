// Package tui is traineectl's full-screen trainee browser: a searchable,
// sortable, paged list of the company's trainees, and a trainee screen with
// the profile and the tracked data (weight chart, measurements, nutrition,
// steps), from which trainees are created, edited, deleted and restored;
// for an admin key, the Settings page administers the company's keys,
// trainers and time zone.
//
// It is a Bubble Tea v2 program. Every network call runs as a tea.Cmd, so
// the screen never freezes; each call is tagged with a sequence number and
// an answer that is no longer the latest of its kind (the user typed on,
// left the trainee, changed the range) is dropped. Errors are shown in the
// status line.
//
// It is laid out as soft-serve's pkg/ui: pages under tui/pages (home,
// list, trainee, form, webhooks, automations, runs, settings; one package
// each, behind internal/common's Page interface) and components under
// tui/components (theme, keymap, layout, table, chart, requests with the
// spinner, statusline, commandline, dialog and form). What the root and
// the pages share is internal/common.Common (the client, the options the
// pages read, the theme and key map, the requests in flight, the status
// line); a page reaches the root, and through it another page, only by
// common.Router. This root package holds the root Model (routing every
// message to its page, drawing the frame: title lines, body, status line,
// help line), the Router's implementation (router.go), what concerns
// several pages (the live feed, a change's answer, the bulk actions, an
// edit's conflict, the : line's commands) and the public entry points,
// New and Run.
//
// The package talks to the service through Client, a subset of
// *client.Client, so tests pass the real client pointed at an in-process
// server.
package tui

import (
	"context"
	"errors"
	"io"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/client"
	"github.com/traineed/traineed/tui/internal/common"
)

// Client is what the TUI needs of the API (common.Client: the pages call
// it); *client.Client implements it.
type Client = common.Client

var _ Client = (*client.Client)(nil)

// Defaults of Options.
const (
	DefaultPageSize = 50
	DefaultDebounce = 250 * time.Millisecond
	DefaultTimeout  = 60 * time.Second
)

// Options configure the model. The zero value works.
type Options struct {
	// Context bounds every request; cancelling it cancels those in flight.
	Context context.Context
	// Today is the calendar day the screens start from (nutrition, ranges,
	// expired badges). Default: the local date.
	Today func() api.Date
	// PageSize is the number of trainees fetched per page (1..100).
	PageSize int
	// Debounce is how long the search waits after the last keystroke before
	// it asks the server. Negative: no wait.
	Debounce time.Duration
	// Timeout bounds one call, its retries included.
	Timeout time.Duration
	// NoColor drops every colour (NO_COLOR); bold, reverse and underline stay.
	NoColor bool
	// Zone is where instants are shown (api.ShownTimeLayout); nil: local.
	Zone *time.Location
	// Server is shown in the title bar (the base URL).
	Server string
	// NoAPIKey says that no key is configured: the status line says so.
	NoAPIKey bool
	// ReadOnly says the key may only read (scope read, from
	// GET /public-api/keys/current at start): changes are hidden from the
	// help and refused with a message instead of a 403. A Key of scope
	// read sets it.
	ReadOnly bool
	// Key is the key in use as GET /public-api/keys/current answered at
	// start (nil: not known, an older server or a refused key): the title
	// bars name it, its scope decides whether the Settings page shows its
	// tables, and a key bound to a trainer starts the dashboard and the
	// list on that trainer's trainees.
	Key *api.CurrentKey
	// Start is a command of the : line run at the start (list, webhooks,
	// automations...); empty: the home page.
	Start string

	// liveOff starts with live mode off (tests: a long poll would keep
	// their driver waiting).
	liveOff bool
	// background runs the event feed's polls (tests: out of their
	// driver's settling); nil: as every command.
	background func(tea.Cmd) tea.Cmd
}

// shared is what of o the pages and components read.
func (o Options) shared() common.Options {
	return common.Options{Today: o.Today, PageSize: o.PageSize, Debounce: o.Debounce, NoColor: o.NoColor,
		Zone: o.Zone, Server: o.Server, ReadOnly: o.ReadOnly, Key: o.Key}
}

func (o Options) withDefaults() Options {
	if o.Context == nil {
		o.Context = context.Background()
	}
	if o.Today == nil {
		o.Today = func() api.Date { return api.DateOf(time.Now()) }
	}
	if o.PageSize <= 0 || o.PageSize > 100 {
		o.PageSize = DefaultPageSize
	}
	if o.Debounce == 0 {
		o.Debounce = DefaultDebounce
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.Key != nil && o.Key.Scope == api.KeyScopeRead {
		o.ReadOnly = true
	}
	return o
}

// Run runs the TUI on in and out (a terminal) until the user quits or ctx
// ends.
func Run(ctx context.Context, c common.Client, o Options, in io.Reader, out io.Writer) error {
	o.Context = ctx
	popts := []tea.ProgramOption{tea.WithContext(ctx), tea.WithInput(in), tea.WithOutput(out)}
	if o.NoColor {
		popts = append(popts, tea.WithColorProfile(colorprofile.Ascii))
	}
	_, err := tea.NewProgram(New(c, o), popts...).Run()
	if errors.Is(err, tea.ErrInterrupted) || (errors.Is(err, tea.ErrProgramKilled) && ctx.Err() != nil) {
		return nil // interrupted: a normal way out
	}
	return err
}
