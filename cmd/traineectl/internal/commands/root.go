// Package commands is the cobra tree of traineectl, one file per verb.
package commands

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"slices"

	"github.com/spf13/cobra"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/client"
	"github.com/traineed/traineed/cmd/traineectl/internal/cmdutil"
	"github.com/traineed/traineed/cmd/traineectl/internal/output"
)

// Run runs traineectl with args and returns the exit status.
func Run(args []string, f *cmdutil.Factory) int {
	parent := f.Context
	if parent == nil {
		parent = context.Background()
	}
	ctx, stop := signal.NotifyContext(parent, os.Interrupt)
	defer stop()
	defer f.Close()
	root := NewRoot(f)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return cmdutil.ExitOK
	}
	var re *runError
	if errors.As(err, &re) {
		err = re.err
	} else if !errors.As(err, new(*cmdutil.UsageError)) {
		// cobra's own errors: unknown command or flag, bad flag value.
		err = &cmdutil.UsageError{Err: err}
	}
	cmdutil.PrintError(f.IOStreams, err, f.JSONErrors())
	addressHint(f, err)
	return cmdutil.ExitCode(err)
}

// addressHint says, when the server could not be reached, which address
// was used and where it came from: the default is a common surprise.
func addressHint(f *cmdutil.Factory, err error) {
	var ne *client.NetworkError
	s := f.UsedSettings()
	if !errors.As(err, &ne) || s == nil || f.JSONErrors() {
		return
	}
	if s.BaseURLFrom == "default" {
		fmt.Fprintf(f.IOStreams.ErrOut, "hint: %s is the default address: no --base-url, %s or profile gives one; set it with `traineectl config set-profile NAME --base-url URL`\n",
			s.BaseURL, cmdutil.EnvBaseURL)
		return
	}
	fmt.Fprintf(f.IOStreams.ErrOut, "hint: the address %s comes from %s\n", s.BaseURL, s.BaseURLFrom)
}

// runError marks an error that a command's RunE returned, as opposed to
// one of cobra's usage errors.
type runError struct{ err error }

func (e *runError) Error() string { return e.err.Error() }
func (e *runError) Unwrap() error { return e.err }

const rootLong = `traineectl manages the trainees of your company through the trainee API:
create, find, change, delete and restore trainees, and read their tracked
weight, measurements, nutrition and steps. With an admin key it also runs
the company: its API keys, its trainers and its settings.

Every command needs the server's address and an API key (pk_...). Give them
with --base-url and --api-key, the environment variables TRAINEECTL_BASE_URL
and TRAINEECTL_API_KEY, or a saved profile (see "traineectl config"). A
setting comes from the flag, else the environment, else the profile, else
the default (http://127.0.0.1:8080 for the address).

Dates may be written dd-MM-yyyy, yyyy-MM-dd, today or yesterday.

Exit status: 0 success, 1 failure, 2 usage error, 3 authentication refused,
4 not found (trainee, webhook, event, automation, key or trainer), 5 request
rejected (400, or a 409 conflict), 6 server error after retries, 7 forbidden
(403: a change with a read-only key, administration without an admin key),
130 interrupted (Ctrl-C).`

const rootExample = `  # Save your server and key once
  traineectl config set-profile prod --base-url https://trainees.example.com   # then type the key

  # Find trainees and show one
  traineectl search ada
  traineectl get 41

  # Create a trainee whose program ends at the end of the year
  traineectl create --name "Ada Park" --email ada@example.com --password 'S3cret-pass' --expires 31-12-2026

  # Machine-readable output
  traineectl search --all -o json`

// NewRoot builds the command tree over f.
func NewRoot(f *cmdutil.Factory) *cobra.Command {
	root := &cobra.Command{
		Version:       f.Version,
		Use:           "traineectl <command>",
		Short:         "Manage your company's trainees from the command line",
		Long:          rootLong,
		Example:       rootExample,
		SilenceErrors: true,
		SilenceUsage:  true,
		CompletionOptions: cobra.CompletionOptions{
			DisableDefaultCmd: true,
		},
		PersistentPreRunE: func(cmd *cobra.Command, args []string) error {
			return bindGlobal(f, cmd)
		},
	}
	root.SetVersionTemplate(f.VersionLine() + "\n")
	root.SetIn(f.IOStreams.In)
	root.SetOut(f.IOStreams.Out)
	root.SetErr(f.IOStreams.ErrOut)
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return &cmdutil.UsageError{Err: err}
	})

	g := &f.Global
	pf := root.PersistentFlags()
	pf.StringVar(&g.BaseURL, "base-url", "", "address of the trainee API (env TRAINEECTL_BASE_URL; default "+cmdutil.DefaultBaseURL+")")
	pf.StringVar(&g.APIKey, "api-key", "", "API key, pk_... (env TRAINEECTL_API_KEY)")
	pf.StringVar(&g.Profile, "profile", "", "use this saved profile instead of the current one")
	pf.StringVarP(&g.Output, "output", "o", string(output.Table), "output format: table, json, yaml or csv")
	pf.StringVar(&g.JQ, "jq", "", "print what this jq expression selects from the JSON result (strings raw, other values as compact JSON)")
	pf.StringVarP(&g.Template, "template", "t", "", "format the JSON result with this Go template, like '{{range .}}{{.id}}{{tab}}{{.email}}{{\"\\n\"}}{{end}}'")
	pf.StringSliceVar(&g.Fields, "fields", nil, "print only these table or csv columns, like id,name,email")
	pf.BoolVarP(&g.Verbose, "verbose", "v", false, "print each request and response on stderr")
	pf.StringVar(&g.LogFile, "log-file", "", "append a support log line for each request to this file")
	pf.BoolVar(&g.UTC, "utc", false, "show times in UTC in tables, notes and the TUI (default: your local time; JSON, YAML and CSV are always UTC)")
	pf.DurationVar(&g.Timeout, "timeout", cmdutil.DefaultTimeout, "give up on one attempt of a request after this long, like 30s or 2m (env TRAINEECTL_TIMEOUT)")
	_ = root.RegisterFlagCompletionFunc("timeout", cobra.NoFileCompletions)
	_ = root.RegisterFlagCompletionFunc("output", fixedValues(output.Formats...))
	_ = root.RegisterFlagCompletionFunc("jq", cobra.NoFileCompletions)
	_ = root.RegisterFlagCompletionFunc("template", cobra.NoFileCompletions)
	_ = root.RegisterFlagCompletionFunc("fields", cobra.NoFileCompletions)
	_ = root.RegisterFlagCompletionFunc("profile", completeProfiles(f, false))

	addCommands(root, f)
	root.SetHelpCommandGroupID("setup")
	refuseUnknownSubcommands(root)
	wrapRunE(root)
	return root
}

// addCommands adds the commands to root, in their groups of the help.
func addCommands(root *cobra.Command, f *cmdutil.Factory) {
	for _, g := range []struct {
		id, title string
		cmds      []*cobra.Command
	}{
		{"trainees", "Trainees:", []*cobra.Command{newCreateCmd(f, nil), newApplyCmd(f, nil), newGetCmd(f, nil), newSearchCmd(f, nil), newUpdateCmd(f, nil),
			newEditCmd(f, nil), newDeleteCmd(f, nil), newRestoreCmd(f, nil), newEraseCmd(f, nil), newExportCmd(f, nil), newTUICmd(f, nil)}},
		{"tracked", "Tracked data:", []*cobra.Command{newWeightCmd(f, nil), newMeasurementsCmd(f, nil), newNutritionCmd(f, nil), newStepsCmd(f, nil)}},
		{"automations", "Automations:", []*cobra.Command{newAutomationsCmd(f)}},
		{"integrations", "Webhooks and events:", []*cobra.Command{newWebhooksCmd(f), newEventsCmd(f)}},
		{"admin", "Company administration:", []*cobra.Command{newTrainersCmd(f, nil), newKeysCmd(f), newCompanyCmd(f)}},
		{"setup", "Setup:", []*cobra.Command{newConfigCmd(f), newWhoamiCmd(f, nil), newCompletionCmd(f, nil), newVersionCmd(f, nil)}},
	} {
		root.AddGroup(&cobra.Group{ID: g.id, Title: g.title})
		for _, c := range g.cmds {
			c.GroupID = g.id
			root.AddCommand(c)
		}
	}
}

// bindGlobal records which global flags were given and checks -o.
func bindGlobal(f *cmdutil.Factory, cmd *cobra.Command) error {
	fl := cmd.Flags()
	changed := func(name string) bool {
		fg := fl.Lookup(name)
		return fg != nil && fg.Changed
	}
	f.Global.BaseURLSet = changed("base-url") && isGlobal(cmd, "base-url")
	f.Global.APIKeySet = changed("api-key") && isGlobal(cmd, "api-key")
	f.Global.ProfileSet = changed("profile")
	f.Global.TimeoutSet = changed("timeout")
	of, err := output.ParseFormat(f.Global.Output)
	if err != nil {
		f.Global.Output = string(output.Table)
		return &cmdutil.UsageError{Err: err}
	}
	f.Global.Output = string(of)
	output.SetZone(f.Zone())
	f.IOStreams.SetColumns(f.Getenv("COLUMNS"))
	if err := f.OutputOptions().Check(); err != nil {
		return &cmdutil.UsageError{Err: err}
	}
	return nil
}

// isGlobal reports whether the flag name of cmd is the root's persistent
// flag (config set-profile has local flags of the same names).
func isGlobal(cmd *cobra.Command, name string) bool {
	return cmd.LocalNonPersistentFlags().Lookup(name) == nil
}

func wrapRunE(c *cobra.Command) {
	if run := c.RunE; run != nil {
		c.RunE = func(cmd *cobra.Command, args []string) error {
			if err := run(cmd, args); err != nil {
				return &runError{cmdutil.AsReadOnly(err, cmd.CommandPath())}
			}
			return nil
		}
	}
	for _, sub := range c.Commands() {
		wrapRunE(sub)
	}
}

// each runs fn for every id. With one id its error is returned as it is;
// with several, each error is printed as it happens and the combined exit
// status is returned once all ids are done.
func each[T any](f *cmdutil.Factory, ids []int64, fn func(id int64) (T, error)) ([]T, error) {
	var out []T
	var errs []error
	for _, id := range ids {
		v, err := fn(id)
		if err != nil {
			// A read-only key fails every id alike: stop at the first.
			if len(ids) == 1 || client.IsReadOnly(err) {
				return out, err
			}
			if errors.Is(err, context.Canceled) {
				return out, err
			}
			cmdutil.PrintError(f.IOStreams, err, f.JSONErrors())
			errs = append(errs, err)
			continue
		}
		out = append(out, v)
	}
	if len(errs) > 0 {
		return out, &cmdutil.ReportedError{Code: cmdutil.CombinedExitCode(errs)}
	}
	return out, nil
}

// noteTrainee tells a terminal what was done: "Created trainee 41 (Ada
// Park)".
func noteTrainee(f *cmdutil.Factory, done string, t *api.Trainee) {
	noteDone(f, done, "trainee", t.ID, t.Name)
}

// printTrainees prints trainees in the -o format; with several ids the
// result is an array even when only one of them succeeded.
// The table shows trainers by name: the company's trainers are read once
// (GET /public-api/trainers), when a trainee has one; if that fails, ids.
func printTrainees(ctx context.Context, f *cmdutil.Factory, ts []*api.Trainee, single bool) error {
	var names map[int64]string
	if o := f.OutputOptions(); o.NeedsTable() && slices.ContainsFunc(ts, func(t *api.Trainee) bool { return t.TrainerID != nil }) {
		names = f.TrainerNames(ctx)
	}
	return output.Trainees(f.IOStreams, f.OutputOptions(), ts, f.Today(), single, names)
}

// refuseUnknownSubcommands makes every command group (a command with
// subcommands and nothing to run itself, such as config, automations,
// webhooks, events or trainers) print its help when called alone and
// refuse an unknown subcommand with a usage error (exit 2), as the root
// does; cobra's default prints the help and exits 0.
func refuseUnknownSubcommands(c *cobra.Command) {
	for _, sub := range c.Commands() {
		if sub.HasSubCommands() && sub.RunE == nil && sub.Run == nil {
			sub.Args = cobra.ArbitraryArgs
			sub.RunE = func(cmd *cobra.Command, args []string) error {
				if len(args) > 0 {
					return unknownSubcommand(cmd, args[0])
				}
				return cmd.Help()
			}
		}
		refuseUnknownSubcommands(sub)
	}
}

// unknownSubcommand is the usage error of a command group given a
// subcommand it does not have, with cobra's suggestion.
func unknownSubcommand(cmd *cobra.Command, name string) error {
	msg := fmt.Sprintf("unknown command %q for %q", name, cmd.CommandPath())
	if cmd.SuggestionsMinimumDistance <= 0 {
		cmd.SuggestionsMinimumDistance = 2
	}
	if sugg := cmd.SuggestionsFor(name); len(sugg) > 0 {
		msg += fmt.Sprintf(": did you mean %q?", sugg[0])
	}
	return cmdutil.Usagef("%s", msg)
}
