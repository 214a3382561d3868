package commands

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/traineed/traineed/cmd/traineectl/internal/cmdutil"
)

// The commands' side of cli/cli's seam: every newXCmd(f, runF) has a RunE
// that fills its Options from the arguments and flags (which flags were
// given recorded in the Options), then ends in runWith. A test passes a
// runF to see the Options a command line makes; the run functions take
// (ctx, f, *Options) and never see cobra.

// runWith is the end of every command's RunE (cli/cli's seam): a test's
// runF gets the Options when it gave one; otherwise run runs them.
func runWith[O any](ctx context.Context, f *cmdutil.Factory, o *O, runF func(*O) error,
	run func(context.Context, *cmdutil.Factory, *O) error) error {
	if runF != nil {
		return runF(o)
	}
	return run(ctx, f, o)
}

// idsRunE is the RunE of a command over the ids of its arguments: it
// parses them into *ids (a field of o), then runs o (runWith).
func idsRunE[O any](f *cmdutil.Factory, ids *[]int64, o *O, runF func(*O) error,
	run func(context.Context, *cmdutil.Factory, *O) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) (err error) {
		if *ids, err = cmdutil.ParseIDs(args); err != nil {
			return err
		}
		return runWith(cmd.Context(), f, o, runF, run)
	}
}

// listByIDRunE is the RunE of a listing over one resource's id (its
// first argument, into *id, a field of o) whose Options record their
// given flags: it parses the id, records and checks the flags, then runs
// o (runWith).
func listByIDRunE[O any, PO interface {
	*O
	givenFlags
}](f *cmdutil.Factory, id *int64, o PO, runF func(*O) error,
	run func(context.Context, *cmdutil.Factory, *O) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) (err error) {
		if *id, err = cmdutil.ParseID(args[0]); err != nil {
			return err
		}
		if err := recordGiven(cmd, o); err != nil {
			return err
		}
		return runWith(cmd.Context(), f, (*O)(o), runF, run)
	}
}

// EnableOptions are the inputs of a resource's `enable` and `disable`
// (automations, webhooks).
type EnableOptions struct {
	IDs    []int64
	Enable bool
}

// enableHelp is what a resource's enable and disable commands say: [0]
// is enable's, [1] disable's; what names the ids in a usage error.
type enableHelp struct {
	what                 string
	short, long, example [2]string
}

// newEnableCmd is the enable (or disable) command of a resource: its ids
// as arguments, completed by complete, run by run.
func newEnableCmd(f *cmdutil.Factory, enable bool, h enableHelp, complete cobra.CompletionFunc,
	runF func(*EnableOptions) error, run func(context.Context, *cmdutil.Factory, *EnableOptions) error) *cobra.Command {
	o := EnableOptions{Enable: enable}
	i, use := 0, "enable ID..."
	if !enable {
		i, use = 1, "disable ID..."
	}
	return &cobra.Command{
		Use:               use,
		Short:             h.short[i],
		Long:              h.long[i],
		Example:           h.example[i],
		Args:              cmdutil.MinArgs(1, h.what),
		ValidArgsFunction: complete,
		RunE:              idsRunE(f, &o.IDs, &o, runF, run),
	}
}

// givenFlags are flags that record which of them a command line gave
// (into the Options) and check what they were given.
type givenFlags interface {
	record(changed func(name string) bool)
	check() error
}

// recordGiven records which of fl's flags cmd was given, then checks them.
func recordGiven(cmd *cobra.Command, fl givenFlags) error {
	fl.record(cmd.Flags().Changed)
	return fl.check()
}
