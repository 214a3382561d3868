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

// NutritionOptions are the inputs of `traineectl nutrition`.
type NutritionOptions struct {
	TraineeID int64
	Date      api.Date // zero: the company's today
}

func newNutritionCmd(f *cmdutil.Factory, runF func(*NutritionOptions) error) *cobra.Command {
	var date string
	cmd := trackedCmd(f, &cobra.Command{
		Use:   "nutrition ID [--date DATE]",
		Short: "Show what a trainee ate on a day",
		Long: `Show what a trainee logged eating on one day (default: today in the
company's time zone), meal by meal, with each meal's totals and the day's.`,
		Example: `  traineectl nutrition 41
  traineectl nutrition 41 --date yesterday -o json`,
	}, func(ctx context.Context, tid int64) error {
		o := NutritionOptions{TraineeID: tid}
		if date != "" {
			var err error
			if o.Date, err = parseDateFlag(f, "date", date); err != nil {
				return err
			}
		}
		return runWith(ctx, f, &o, runF, runNutrition)
	})
	cmd.Flags().StringVar(&date, "date", "", "the day (default: today in the company's time zone)")
	_ = cmd.RegisterFlagCompletionFunc("date", completeDates(false))
	return cmd
}

// runNutrition prints what the trainee ate on the day.
func runNutrition(ctx context.Context, f *cmdutil.Factory, o *NutritionOptions) error {
	return runTracked(ctx, f, func(ctx context.Context, c *client.Client) (*api.Nutrition, error) {
		return c.Nutrition(ctx, o.TraineeID, o.Date)
	}, nutritionView)
}

func nutritionView(n *api.Nutrition) trackedView {
	t := trackedView{
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
			values := []string{it.Name, num(it.Quantity), it.Unit, num(it.Calories), num(it.Protein), num(it.Carbs), num(it.Fat)}
			t.rows = append(t.rows, append([]string{meal}, values...))
			t.csvRows = append(t.csvRows, append([]string{n.Date.String(), m.Meal}, values...))
		}
		t.rows = append(t.rows, totals("", strings.ToLower(m.Meal)+" total", m.Totals))
	}
	t.rows = append(t.rows, totals("TOTAL", "", n.Totals))
	return t
}
