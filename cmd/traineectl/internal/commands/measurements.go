package commands

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/client"
	"github.com/traineed/traineed/cmd/traineectl/internal/cmdutil"
	"github.com/traineed/traineed/cmd/traineectl/internal/output"
)

// MeasurementsOptions are the inputs of `traineectl measurements`.
type MeasurementsOptions struct {
	TraineeID int64
	Range     client.TrackedRange // zero ends: the server's default
	Type      string              // any case; "": every type
}

func newMeasurementsCmd(f *cmdutil.Factory, runF func(*MeasurementsOptions) error) *cobra.Command {
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
	}, func(ctx context.Context, tid int64) error {
		tr, err := r.parse(f)
		if err != nil {
			return err
		}
		o := &MeasurementsOptions{TraineeID: tid, Range: tr, Type: typ}
		return runWith(ctx, f, o, runF, runMeasurements)
	})
	r.register(cmd)
	cmd.Flags().StringVar(&typ, "type", "", "only this type of measurement, such as WAIST or BODY_FAT")
	_ = cmd.RegisterFlagCompletionFunc("type", fixedValues(api.MeasurementTypes...))
	return cmd
}

// runMeasurements prints the measurements of the range (of the type).
func runMeasurements(ctx context.Context, f *cmdutil.Factory, o *MeasurementsOptions) error {
	return runTracked(ctx, f, func(ctx context.Context, c *client.Client) (*api.Measurements, error) {
		m, err := c.Measurements(ctx, o.TraineeID, o.Range, strings.ToUpper(o.Type))
		return m, explainRange(err, o.Range)
	}, measurementsView)
}

func measurementsView(m *api.Measurements) trackedView {
	t := trackedView{
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
		t.rows = append(t.rows, []string{e.Date.String(), api.MeasurementLabel(e.Type), shown, num(e.Value), e.Unit})
		t.csvRows = append(t.csvRows, []string{e.Date.String(), e.Type, name, num(e.Value), e.Unit})
	}
	return t
}
