package commands

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/cmd/traineectl/internal/cmdutil"
	"github.com/traineed/traineed/cmd/traineectl/internal/output"
)

type stepsJSON struct {
	*api.AverageSteps
	Timestamp *struct{} `json:"timestamp,omitempty"` // hides the response's: -o json prints it without
}

func newStepsCmd(f *cmdutil.Factory) *cobra.Command {
	return trackedCmd(f, &cobra.Command{
		Use:   "steps ID",
		Short: "Show a trainee's average daily steps",
		Long: `Show a trainee's mean daily steps over the 7 days ending today (the
company's today). Days without a record are left out of the mean; with no
data at all the average is "-" (null in JSON).`,
		Example: `  traineectl steps 41
  traineectl steps 41 -o json | jq .averageSteps`,
		RunE: func(cmd *cobra.Command, args []string) error {
			tid, err := cmdutil.ParseID(args[0])
			if err != nil {
				return err
			}
			c, err := f.Client()
			if err != nil {
				return err
			}
			s, err := c.AverageSteps(cmd.Context(), tid)
			if err != nil {
				return err
			}
			avg, avgCSV := "-", ""
			if s.AverageSteps != nil {
				avg, avgCSV = id(*s.AverageSteps), id(*s.AverageSteps)
			}
			return printTracked(f, tracked{
				resource: stepsJSON{AverageSteps: s},
				cols: []output.Column{{Header: "FROM"}, {Header: "TO"}, {Header: "AVERAGE STEPS", Right: true},
					{Header: "DAYS WITH DATA", Right: true}},
				rows:      [][]string{{s.From.String(), s.To.String(), avg, fmt.Sprint(s.DaysWithData)}},
				csvHeader: []string{"traineeId", "from", "to", "averageSteps", "daysWithData"},
				csvRows:   [][]string{{id(s.TraineeID), s.From.String(), s.To.String(), avgCSV, fmt.Sprint(s.DaysWithData)}},
			})
		},
	})
}
