package commands

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/client"
	"github.com/traineed/traineed/cmd/traineectl/internal/cmdutil"
	"github.com/traineed/traineed/cmd/traineectl/internal/output"
)

// The tracked-data commands (weight, measurements, nutrition, steps) share
// one skeleton: trackedCmd parses the trainee id and hands it to the
// command's flags and run function; runTracked builds the client, calls
// the command's fetch and prints the response through the command's view.

// trackedCmd completes cmd (its use, help and flags) as a tracked-data
// command: one trainee id argument, completed, parsed and given to run.
func trackedCmd(f *cmdutil.Factory, cmd *cobra.Command, run func(ctx context.Context, tid int64) error) *cobra.Command {
	cmd.Args = cmdutil.ExactArgs(1, "a trainee id")
	cmd.ValidArgsFunction = completeTraineeIDs(f, api.StatusAll, false)
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		tid, err := cmdutil.ParseID(args[0])
		if err != nil {
			return err
		}
		return run(cmd.Context(), tid)
	}
	return cmd
}

// runTracked fetches one tracked-data response and prints it: -o json and
// yaml give the response without its timestamp, csv and table what view
// makes of it.
func runTracked[T any](ctx context.Context, f *cmdutil.Factory,
	fetch func(context.Context, *client.Client) (*T, error), view func(*T) trackedView) error {
	c, err := f.Client()
	if err != nil {
		return err
	}
	v, err := fetch(ctx, c)
	if err != nil {
		return err
	}
	return printTracked(f, output.Omit(v, "timestamp"), view(v))
}

// trackedView is how one tracked-data response prints as CSV and table.
type trackedView struct {
	cols      []output.Column
	rows      [][]string
	csvHeader []string
	csvRows   [][]string
	note      string // on a terminal, to stderr before the table
}

func printTracked(f *cmdutil.Factory, resource any, t trackedView) error {
	return f.Print(output.View{Value: resource, CSVHeader: t.csvHeader, CSVRows: t.csvRows,
		Columns: t.cols, Rows: t.rows, Note: t.note})
}

// rangeFlags are --from and --to of weight and measurements.
type rangeFlags struct{ from, to string }

func (r *rangeFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringVar(&r.from, "from", "", "first day, inclusive (default: 29 days before --to)")
	cmd.Flags().StringVar(&r.to, "to", "", "last day, inclusive (default: today in the company's time zone)")
	_ = cmd.RegisterFlagCompletionFunc("from", completeDates(false))
	_ = cmd.RegisterFlagCompletionFunc("to", completeDates(false))
}

// parse reads the range; a flag not given leaves its end to the server.
func (r *rangeFlags) parse(f *cmdutil.Factory) (client.TrackedRange, error) {
	var tr client.TrackedRange
	var err error
	if r.from != "" {
		if tr.From, err = parseDateFlag(f, "from", r.from); err != nil {
			return tr, err
		}
	}
	if r.to != "" {
		tr.To, err = parseDateFlag(f, "to", r.to)
	}
	return tr, err
}

// explainRange rewrites the server's refusal of a range (1011), which
// names its query parameters, in terms of the flags given and the default
// that stood for a flag not given: "--from 01-01-2020 to today (the
// default of --to)", not "to: ...". Other errors are returned as they are.
func explainRange(err error, tr client.TrackedRange) error {
	var rej *client.RejectedError
	if !errors.As(err, &rej) || rej.ErrorCode != api.CodeInvalidRange {
		return err
	}
	to := "--to " + tr.To.String()
	if tr.To.IsZero() {
		to = "today (the default of --to)"
	}
	out := *rej
	out.Field = ""
	switch {
	case tr.From.IsZero():
		return err // the default --from is never refused
	case rej.Field == "from":
		out.Message = fmt.Sprintf("--from %s is after %s", tr.From, to)
	default:
		out.Message = fmt.Sprintf("the range from --from %s to %s is longer than one year: give --to %s or earlier, or a later --from",
			tr.From, to, tr.From.AddYears(1))
	}
	out.Errors = nil
	return &out
}

// parseDateFlag reads the date of a flag (cmdutil.ParseDate), naming the
// flag in the error.
func parseDateFlag(f *cmdutil.Factory, flag, val string) (api.Date, error) {
	d, err := cmdutil.ParseDate(val, f.Now())
	if err != nil {
		return d, fmt.Errorf("--%s: %w", flag, err)
	}
	return d, nil
}

func num(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

func id(v int64) string { return strconv.FormatInt(v, 10) }
