package commands

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/client"
	"github.com/traineed/traineed/cmd/traineectl/internal/cmdutil"
	"github.com/traineed/traineed/cmd/traineectl/internal/output"
)

// WeightOptions are the inputs of `traineectl weight`.
type WeightOptions struct {
	TraineeID int64
	Range     client.TrackedRange // zero ends: the server's default
}

func newWeightCmd(f *cmdutil.Factory, runF func(*WeightOptions) error) *cobra.Command {
	var r rangeFlags
	cmd := trackedCmd(f, &cobra.Command{
		Use:   "weight ID [--from DATE] [--to DATE]",
		Short: "Show a trainee's weight history",
		Long: `Show a trainee's body weight, one entry per day with data, oldest first, in
the trainee's weight unit. The range is at most one year; by default the
last 30 days.`,
		Example: `  traineectl weight 41
  traineectl weight 41 --from 2026-01-01 --to today -o csv`,
	}, func(ctx context.Context, tid int64) error {
		tr, err := r.parse(f)
		if err != nil {
			return err
		}
		o := &WeightOptions{TraineeID: tid, Range: tr}
		return runWith(ctx, f, o, runF, runWeight)
	})
	r.register(cmd)
	return cmd
}

// runWeight prints the weight history of the range.
func runWeight(ctx context.Context, f *cmdutil.Factory, o *WeightOptions) error {
	return runTracked(ctx, f, func(ctx context.Context, c *client.Client) (*api.WeightHistory, error) {
		w, err := c.WeightHistory(ctx, o.TraineeID, o.Range)
		return w, explainRange(err, o.Range)
	}, weightView)
}

func weightView(w *api.WeightHistory) trackedView {
	t := trackedView{
		cols:      []output.Column{{Header: "DATE"}, {Header: "WEIGHT (" + w.Unit + ")", Right: true}},
		csvHeader: []string{"date", "weight", "unit"},
		note:      fmt.Sprintf("Weight of trainee %d, %s to %s: %d days with data", w.TraineeID, w.From, w.To, len(w.Entries)),
	}
	for _, e := range w.Entries {
		t.rows = append(t.rows, []string{e.Date.String(), num(e.Weight)})
		t.csvRows = append(t.csvRows, []string{e.Date.String(), num(e.Weight), w.Unit})
	}
	return t
}
