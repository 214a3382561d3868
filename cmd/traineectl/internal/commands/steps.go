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
}

func newStepsCmd(f *cmdutil.Factory, runF func(*StepsOptions) error) *cobra.Command {
	return trackedCmd(f, &cobra.Command{
		Use:   "steps ID",
		Short: "Show a trainee's average daily steps",
		Long: `Show a trainee's mean daily steps over the 7 days ending today (the
company's today). Days without a record are left out of the mean; with no
data at all the average is "-" (null in JSON).`,
		Example: `  traineectl steps 41
  traineectl steps 41 -o json | jq .averageSteps`,
	}, func(ctx context.Context, tid int64) error {
		o := &StepsOptions{TraineeID: tid}
		return runWith(ctx, f, o, runF, runSteps)
	})
}

// runSteps prints the trainee's average daily steps.
func runSteps(ctx context.Context, f *cmdutil.Factory, o *StepsOptions) error {
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
