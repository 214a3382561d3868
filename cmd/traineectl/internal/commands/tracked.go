package commands

import (
	"fmt"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/client"
	"github.com/traineed/traineed/cmd/traineectl/internal/cmdutil"
	"github.com/traineed/traineed/cmd/traineectl/internal/output"
)

// rangeFlags are --from and --to of weight and measurements.
type rangeFlags struct{ from, to string }

func (r *rangeFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringVar(&r.from, "from", "", "first day, inclusive (default: 29 days before --to)")
	cmd.Flags().StringVar(&r.to, "to", "", "last day, inclusive (default: today in the company's time zone)")
	_ = cmd.RegisterFlagCompletionFunc("from", completeDates(false))
	_ = cmd.RegisterFlagCompletionFunc("to", completeDates(false))
}

func (r *rangeFlags) parse(f *cmdutil.Factory) (client.TrackedRange, error) {
	var tr client.TrackedRange
	for _, d := range []struct {
		flag, val string
		dst       *api.Date
	}{{"from", r.from, &tr.From}, {"to", r.to, &tr.To}} {
		if d.val == "" {
			continue
		}
		v, err := cmdutil.ParseDate(d.val, f.Now())
		if err != nil {
			return tr, fmt.Errorf("--%s: %w", d.flag, err)
		}
		*d.dst = v
	}
	return tr, nil
}

// tracked is how one tracked-data response prints.
type tracked struct {
	resource  any // JSON and YAML: the response without its timestamp
	cols      []output.Column
	rows      [][]string
	csvHeader []string
	csvRows   [][]string
	note      string // on a terminal, to stderr before the table
}

func printTracked(f *cmdutil.Factory, t tracked) error {
	ios := f.IOStreams
	switch f.OutputFormat() {
	case output.JSON:
		return output.WriteJSON(ios.Out, t.resource)
	case output.YAML:
		return output.WriteYAML(ios.Out, t.resource)
	case output.CSV:
		return output.WriteCSV(ios.Out, t.csvHeader, t.csvRows)
	default:
		if ios.StdoutTTY && t.note != "" {
			fmt.Fprintln(ios.ErrOut, t.note)
		}
		return output.WriteTable(ios.Out, ios.TableWidth(), t.cols, t.rows)
	}
}

func num(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

func id(v int64) string { return strconv.FormatInt(v, 10) }

// trackedCmd sets the argument check and completion of a tracked-data command.
func trackedCmd(f *cmdutil.Factory, cmd *cobra.Command) *cobra.Command {
	cmd.Args = cmdutil.ExactArgs(1, "a trainee id")
	cmd.ValidArgsFunction = completeTraineeIDs(f, api.StatusAll, false)
	return cmd
}
