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

func newTUICmd(f *cmdutil.Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "tui",
		Short: "Browse and manage trainees in a full-screen terminal UI",
		Long: `Open the trainee browser: a searchable, sortable list of your company's
trainees (/ searches as you type, tab switches live, active, expired, deleted
and all, s sorts), and for each trainee the profile, a weight chart, body
measurements, nutrition by day and average steps. n creates a trainee, e
edits, d deletes (after a confirmation) and u restores. ? lists every key;
q quits.

It needs a terminal (stdin and stdout). NO_COLOR turns colour off. Requests
never freeze the screen; errors show in the status line. --verbose is not
allowed here (it would draw over the screen): use --log-file.`,
		Example: `  traineectl tui
  NO_COLOR=1 traineectl tui --profile prod`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runTUI(cmd.Context(), f, &TUIOptions{})
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
	// The key's scope decides which actions the TUI offers. When it cannot
	// be read (a 401, an older server, the network) the TUI starts anyway
	// and its first request reports the problem.
	readOnly := false
	if c.HasAPIKey() {
		if k, err := c.CurrentKey(ctx); err == nil && k != nil {
			readOnly = k.Scope == api.KeyScopeRead
		}
	}
	err = tui.Run(ctx, c, tui.Options{
		Today:    f.Today,
		NoColor:  ios.NoColor,
		Zone:     f.Zone(),
		Server:   s.BaseURL,
		NoAPIKey: !c.HasAPIKey(),
		ReadOnly: readOnly,
	}, ios.In, ios.Out)
	if err != nil && !errors.Is(err, ctx.Err()) {
		return err
	}
	return nil
}
