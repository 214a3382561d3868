package commands

import (
	"context"
	"errors"

	"github.com/spf13/cobra"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/cmd/traineectl/internal/cmdutil"
	"github.com/traineed/traineed/tui"
)

// TUIOptions are the inputs of `traineectl tui`: none.
type TUIOptions struct{}

func newTUICmd(f *cmdutil.Factory, runF func(*TUIOptions) error) *cobra.Command {
	return &cobra.Command{
		Use:   "tui",
		Short: "Browse and manage trainees in a full-screen terminal UI",
		Long: `Open the coach's browser of your company's trainees (docs/tui.md).

Home, the first screen, counts what needs attention (active, expiring in 7
and 30 days, expired, inactive for 14+ days, new this week, deleted: enter
opens the list of a count) and shows the recent changes of the event feed,
with who made them. H comes back home from any screen.

Live: the TUI follows the event feed (GET /events?wait=20), so rows, the open
trainee and the counts update within a second or two of any change; changed
rows carry •. L pauses and resumes live mode.

The list: / searches as you type (name, e-mail, phone), tab or 1-5 switch
live, active, expired, deleted and all, s sorts (S reverses), enter opens a
trainee: its profile, weight chart, measurements, nutrition by day and steps.
n creates a trainee, e edits (with If-Match: a colleague's change is shown
and never overwritten), d deletes after a confirmation, u restores.

Marks and bulk actions: space marks a trainee, ctrl+a marks the whole view,
esc unmarks; x acts on the marked ones (extend 30, expire-on DATE, trainer
NAME, disable, enable, delete, restore) after a question, with a progress bar
and a result panel (r retries the failures, each sent exactly once).

: opens the command line on any screen (tab completes): home, list STATUS,
expiring 7|30, inactive, new, search TEXT, open ID, create, webhooks,
automations, settings, live, mine, mark-all, unmark, the bulk actions, help,
quit.

w opens the webhooks (their deliveries; t sends a test, r redelivers) and a
the automations (enter shows an automation's runs). ? lists every key of the
screen; q quits. A read-only key hides what would change data.

The title names the key in use (its company, its name or its trainer's, its
scope). A trainer's key starts the dashboard and the list on the trainer's
own trainees; m shows all of the company's and back. S on the dashboard opens
the Settings page of an admin key: the company's keys (n creates, r rotates,
d revokes; a new secret shows once), its trainers with their trainee counts
(r moves their trainees, d deactivates, u activates, n adds) and its name and
time zone (e edits).

It needs a terminal (stdin and stdout; 80x24 is enough). NO_COLOR turns colour
off. Requests never freeze the screen; errors show in the status line.
--verbose is not allowed here (it would draw over the screen): use --log-file.`,
		Example: `  traineectl tui
  NO_COLOR=1 traineectl tui --profile prod`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			o := &TUIOptions{}
			return runWith(cmd.Context(), f, o, runF, runTUI)
		},
	}
}

// runTUI runs the trainee browser on the terminal until it quits or ctx
// ends.
func runTUI(ctx context.Context, f *cmdutil.Factory, _ *TUIOptions) error {
	ios := f.IOStreams
	if !ios.StdinTTY || !ios.StdoutTTY {
		return cmdutil.Usagef("tui needs a terminal: run it in one, or use search and get in scripts")
	}
	if f.Global.Verbose {
		return cmdutil.Usagef("--verbose would write over the TUI: use --log-file FILE instead")
	}
	s, err := f.Settings()
	if err != nil {
		return err
	}
	c, err := f.Client()
	if err != nil {
		return err
	}
	// The key decides what the TUI offers (its scope), what its title
	// says (whose key it is) and, for a trainer's key, which trainees it
	// starts on. When it cannot be read (a 401, an older server, the
	// network) the TUI starts anyway and its first request reports the
	// problem.
	var key *api.CurrentKey
	if c.HasAPIKey() {
		if k, err := c.CurrentKey(ctx); err == nil {
			key = k
		}
	}
	err = tui.Run(ctx, c, tui.Options{
		Today:    f.Today,
		NoColor:  ios.NoColor,
		Zone:     f.Zone(),
		Server:   s.BaseURL,
		NoAPIKey: !c.HasAPIKey(),
		Key:      key,
	}, ios.In, ios.Out)
	if err != nil && !errors.Is(err, ctx.Err()) {
		return err
	}
	return nil
}
