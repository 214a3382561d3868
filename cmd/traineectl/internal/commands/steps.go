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

// StepsOptions are the inputs of `traineectl steps`.
type StepsOptions struct {
	TraineeID int64
	// Daily lists each day's count over Range (--daily, --from, --to)
	// instead of the 7-day average.
	Daily bool
	Range client.TrackedRange // zero ends: the server's default
}

func newStepsCmd(f *cmdutil.Factory, runF func(*StepsOptions) error) *cobra.Command {
	var (
		r     rangeFlags
		daily bool
	)
	cmd := trackedCmd(f, &cobra.Command{
		Use:   "steps ID [--daily] [--from DATE] [--to DATE]",
		Short: "Show a trainee's average daily steps, or each day's steps",
		Long: `Show a trainee's mean daily steps over the 7 days ending today (the
company's today). Days without a record are left out of the mean; with no
data at all the average is "-" (null in JSON).

With --daily, --from or --to: each day's step count over the range, oldest
first, days without a record left out (GET /trainees/{id}/steps). The range
is at most one year; by default the last 30 days.`,
		Example: `  traineectl steps 41
  traineectl steps 41 -o json | jq .averageSteps
  traineectl steps 41 --daily
  traineectl steps 41 --from 2026-01-01 --to today -o csv`,
	}, func(ctx context.Context, tid int64) error {
		tr, err := r.parse(f)
		if err != nil {
			return err
		}
		o := &StepsOptions{TraineeID: tid, Daily: daily || r.from != "" || r.to != "", Range: tr}
		return runWith(ctx, f, o, runF, runSteps)
	})
	r.register(cmd)
	cmd.Flags().BoolVar(&daily, "daily", false, "each day's steps over the range (default: the last 30 days) instead of the 7-day average")
	return cmd
}

// runSteps prints the trainee's average daily steps, or each day's.
func runSteps(ctx context.Context, f *cmdutil.Factory, o *StepsOptions) error {
	if o.Daily {
		return runTracked(ctx, f, func(ctx context.Context, c *client.Client) (*api.DailySteps, error) {
			d, err := c.Steps(ctx, o.TraineeID, o.Range)
			return d, explainRange(err, o.Range)
		}, dailyStepsView)
	}
	return runTracked(ctx, f, func(ctx context.Context, c *client.Client) (*api.AverageSteps, error) {
		return c.AverageSteps(ctx, o.TraineeID)
	}, stepsView)
}

func stepsView(s *api.AverageSteps) trackedView {
	avg, avgCSV := "-", ""
	if s.AverageSteps != nil {
		avg, avgCSV = id(*s.AverageSteps), id(*s.AverageSteps)
	}
	return trackedView{
		cols: []output.Column{{Header: "FROM"}, {Header: "TO"}, {Header: "AVERAGE STEPS", Right: true},
			{Header: "DAYS WITH DATA", Right: true}},
		rows:      [][]string{{s.From.String(), s.To.String(), avg, fmt.Sprint(s.DaysWithData)}},
		csvHeader: []string{"traineeId", "from", "to", "averageSteps", "daysWithData"},
		csvRows:   [][]string{{id(s.TraineeID), s.From.String(), s.To.String(), avgCSV, fmt.Sprint(s.DaysWithData)}},
	}
}

func dailyStepsView(d *api.DailySteps) trackedView {
	t := trackedView{
		cols:      []output.Column{{Header: "DATE"}, {Header: "STEPS", Right: true}},
		csvHeader: []string{"date", "steps"},
		note:      fmt.Sprintf("Steps of trainee %d, %s to %s: %d days with data", d.TraineeID, d.From, d.To, len(d.Days)),
	}
	for _, s := range d.Days {
		t.rows = append(t.rows, []string{s.Date.String(), id(s.Steps)})
		t.csvRows = append(t.csvRows, []string{s.Date.String(), id(s.Steps)})
	}
	return t
}
