package commands

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/cmd/traineectl/internal/cmdutil"
	"github.com/traineed/traineed/cmd/traineectl/internal/output"
)

type weightJSON struct {
	*api.WeightHistory
	Timestamp *struct{} `json:"timestamp,omitempty"` // hides the response's: -o json prints it without
}

func newWeightCmd(f *cmdutil.Factory) *cobra.Command {
	var r rangeFlags
	cmd := trackedCmd(f, &cobra.Command{
		Use:   "weight ID [--from DATE] [--to DATE]",
		Short: "Show a trainee's weight history",
		Long: `Show a trainee's body weight, one entry per day with data, oldest first, in
the trainee's weight unit. The range is at most one year; by default the
last 30 days.`,
		Example: `  traineectl weight 41
  traineectl weight 41 --from 2026-01-01 --to today -o csv`,
		RunE: func(cmd *cobra.Command, args []string) error {
			tid, err := cmdutil.ParseID(args[0])
			if err != nil {
				return err
			}
			tr, err := r.parse(f)
			if err != nil {
				return err
			}
			c, err := f.Client()
			if err != nil {
				return err
			}
			w, err := c.WeightHistory(cmd.Context(), tid, tr)
			if err != nil {
				return err
			}
			t := tracked{
				resource:  weightJSON{WeightHistory: w},
				cols:      []output.Column{{Header: "DATE"}, {Header: "WEIGHT (" + w.Unit + ")", Right: true}},
				csvHeader: []string{"date", "weight", "unit"},
				note:      fmt.Sprintf("Weight of trainee %d, %s to %s: %d days with data", w.TraineeID, w.From, w.To, len(w.Entries)),
			}
			for _, e := range w.Entries {
				t.rows = append(t.rows, []string{e.Date.String(), num(e.Weight)})
				t.csvRows = append(t.csvRows, []string{e.Date.String(), num(e.Weight), w.Unit})
			}
			return printTracked(f, t)
		},
	})
	r.register(cmd)
	return cmd
}
