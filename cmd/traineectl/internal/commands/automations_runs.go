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

// AutomationsRunsOptions are the inputs of `traineectl automations runs`.
type AutomationsRunsOptions struct {
	ID         int64
	Page, Size int
}

func newAutomationsRunsCmd(f *cmdutil.Factory) *cobra.Command {
	var o AutomationsRunsOptions
	c := &cobra.Command{
		Use:   "runs ID [--page N] [--size N]",
		Short: "Show an automation's runs, newest first",
		Long: `Show one page of an automation's runs, newest first: the trainee, when it
fired, the occurrence (what happened), and the outcome (pending, delivered
or failed for a WEBHOOK, with the last attempt's error; disabled or skipped
for DISABLE_TRAINEE). The runs of a deleted automation stay readable for 30
days.`,
		Example:           `  traineectl automations runs 7 --size 100 -o csv`,
		Args:              cmdutil.ExactArgs(1, "an automation id"),
		ValidArgsFunction: completeAutomationIDs(f, false),
		RunE: func(cmd *cobra.Command, args []string) (err error) {
			if o.ID, err = cmdutil.ParseID(args[0]); err != nil {
				return err
			}
			return runAutomationsRuns(cmd.Context(), f, &o)
		},
	}
	c.Flags().IntVar(&o.Page, "page", 0, "page number, from 0")
	c.Flags().IntVar(&o.Size, "size", api.DefaultPageSize, "runs per page, 1 to 100")
	return c
}

func checkPage(page, size int) error {
	if page < 0 {
		return cmdutil.Usagef("--page counts from 0")
	}
	if size < 1 || size > api.MaxPageSize {
		return cmdutil.Usagef("--size must be 1 to %d", api.MaxPageSize)
	}
	return nil
}

func runAutomationsRuns(ctx context.Context, f *cmdutil.Factory, o *AutomationsRunsOptions) error {
	if err := checkPage(o.Page, o.Size); err != nil {
		return err
	}
	c, err := f.Client()
	if err != nil {
		return err
	}
	p, err := c.AutomationRuns(ctx, o.ID, client.ListParams{Page: o.Page, Limit: o.Size})
	if err != nil {
		return err
	}
	runs := p.Content
	if runs == nil {
		runs = []*api.AutomationRun{}
	}
	rows := make([][]string, len(runs))
	csvRows := make([][]string, len(runs))
	for i, r := range runs {
		rows[i], csvRows[i] = output.RunRow(r), output.RunCSVRow(r)
	}
	err = f.Print(output.View{Value: runs, CSVHeader: output.RunCSVHeader, CSVRows: csvRows,
		Columns: output.RunColumns(), Rows: rows})
	if err == nil && f.IOStreams.StdoutTTY {
		fmt.Fprintf(f.IOStreams.ErrOut, "Page %d of %d (%d runs)\n", p.Page.Number+1, max(p.Page.TotalPages, 1), p.Page.TotalElements)
	}
	return err
}
