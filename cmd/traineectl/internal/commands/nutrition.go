package commands

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/cmd/traineectl/internal/cmdutil"
	"github.com/traineed/traineed/cmd/traineectl/internal/output"
)

type nutritionJSON struct {
	*api.Nutrition
	Timestamp *struct{} `json:"timestamp,omitempty"` // hides the response's: -o json prints it without
}

func newNutritionCmd(f *cmdutil.Factory) *cobra.Command {
	var date string
	cmd := trackedCmd(f, &cobra.Command{
		Use:   "nutrition ID [--date DATE]",
		Short: "Show what a trainee ate on a day",
		Long: `Show what a trainee logged eating on one day (default: today in the
company's time zone), meal by meal, with each meal's totals and the day's.`,
		Example: `  traineectl nutrition 41
  traineectl nutrition 41 --date yesterday -o json`,
		RunE: func(cmd *cobra.Command, args []string) error {
			tid, err := cmdutil.ParseID(args[0])
			if err != nil {
				return err
			}
			var day api.Date
			if date != "" {
				if day, err = cmdutil.ParseDate(date, f.Now()); err != nil {
					return fmt.Errorf("--date: %w", err)
				}
			}
			c, err := f.Client()
			if err != nil {
				return err
			}
			n, err := c.Nutrition(cmd.Context(), tid, day)
			if err != nil {
				return err
			}
			t := tracked{
				resource: nutritionJSON{Nutrition: n},
				cols: []output.Column{{Header: "MEAL"}, {Header: "ITEM", Flex: true}, {Header: "QTY", Right: true},
					{Header: "UNIT"}, {Header: "KCAL", Right: true}, {Header: "PROTEIN", Right: true},
					{Header: "CARBS", Right: true}, {Header: "FAT", Right: true}},
				csvHeader: []string{"date", "meal", "name", "quantity", "unit", "calories", "protein", "carbs", "fat"},
				note:      fmt.Sprintf("Nutrition of trainee %d on %s", n.TraineeID, n.Date),
			}
			if len(n.Meals) == 0 {
				t.note += ": nothing logged"
			}
			totals := func(label, item string, s api.NutritionTotals) []string {
				return []string{label, item, "", "", num(s.Calories), num(s.Protein), num(s.Carbs), num(s.Fat)}
			}
			for _, m := range n.Meals {
				for i, it := range m.Items {
					meal := ""
					if i == 0 {
						meal = m.Meal
					}
					t.rows = append(t.rows, []string{meal, it.Name, num(it.Quantity), it.Unit,
						num(it.Calories), num(it.Protein), num(it.Carbs), num(it.Fat)})
					t.csvRows = append(t.csvRows, []string{n.Date.String(), m.Meal, it.Name, num(it.Quantity), it.Unit,
						num(it.Calories), num(it.Protein), num(it.Carbs), num(it.Fat)})
				}
				t.rows = append(t.rows, totals("", strings.ToLower(m.Meal)+" total", m.Totals))
			}
			t.rows = append(t.rows, totals("TOTAL", "", n.Totals))
			return printTracked(f, t)
		},
	})
	cmd.Flags().StringVar(&date, "date", "", "the day (default: today in the company's time zone)")
	_ = cmd.RegisterFlagCompletionFunc("date", completeDates(false))
	return cmd
}
