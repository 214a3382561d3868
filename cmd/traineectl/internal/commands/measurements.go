package commands

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/cmd/traineectl/internal/cmdutil"
	"github.com/traineed/traineed/cmd/traineectl/internal/output"
)

type measurementsJSON struct {
	*api.Measurements
	Timestamp *struct{} `json:"timestamp,omitempty"` // hides the response's: -o json prints it without
}

func newMeasurementsCmd(f *cmdutil.Factory) *cobra.Command {
	var r rangeFlags
	var typ string
	cmd := trackedCmd(f, &cobra.Command{
		Use:   "measurements ID [--from DATE] [--to DATE] [--type TYPE]",
		Short: "Show a trainee's body measurements",
		Long: `Show a trainee's recorded body measurements (circumferences, body fat,
weight and custom ones), ordered by date, then type, then name. The range is
at most one year; by default the last 30 days.

Types: ` + strings.Join(api.MeasurementTypes, ", ") + `.`,
		Example: `  traineectl measurements 41
  traineectl measurements 41 --type WAIST --from 01-01-2026`,
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
			m, err := c.Measurements(cmd.Context(), tid, tr, strings.ToUpper(typ))
			if err != nil {
				return err
			}
			t := tracked{
				resource: measurementsJSON{Measurements: m},
				cols: []output.Column{{Header: "DATE"}, {Header: "TYPE"}, {Header: "NAME", Flex: true},
					{Header: "VALUE", Right: true}, {Header: "UNIT"}},
				csvHeader: []string{"date", "type", "name", "value", "unit"},
				note:      fmt.Sprintf("Measurements of trainee %d, %s to %s: %d records", m.TraineeID, m.From, m.To, len(m.Measurements)),
			}
			for _, e := range m.Measurements {
				name := ""
				if e.Name != nil {
					name = *e.Name
				}
				shown := name
				if shown == "" {
					shown = "-"
				}
				t.rows = append(t.rows, []string{e.Date.String(), e.Type, shown, num(e.Value), e.Unit})
				t.csvRows = append(t.csvRows, []string{e.Date.String(), e.Type, name, num(e.Value), e.Unit})
			}
			return printTracked(f, t)
		},
	})
	r.register(cmd)
	cmd.Flags().StringVar(&typ, "type", "", "only this type of measurement, such as WAIST or BODY_FAT")
	_ = cmd.RegisterFlagCompletionFunc("type", fixedValues(api.MeasurementTypes...))
	return cmd
}
