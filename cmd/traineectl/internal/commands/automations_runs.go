package commands

import (
	"context"
	"iter"

	"github.com/spf13/cobra"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/client"
	"github.com/traineed/traineed/cmd/traineectl/internal/cmdutil"
	"github.com/traineed/traineed/cmd/traineectl/internal/output"
)

// AutomationsRunsOptions are the inputs of `traineectl automations runs`.
type AutomationsRunsOptions struct {
	ID int64
	pagedList
}

func newAutomationsRunsCmd(f *cmdutil.Factory, runF func(*AutomationsRunsOptions) error) *cobra.Command {
	var o AutomationsRunsOptions
	c := &cobra.Command{
		Use:   "runs ID [--limit N | --all] [--page N] [--size N]",
		Short: "Show an automation's runs, newest first",
		Long: `Show an automation's runs, newest first: the trainee, when it fired, the
occurrence (what happened), and the outcome (pending, delivered or failed for
a WEBHOOK, with the last attempt's error; disabled or skipped for
DISABLE_TRAINEE). The runs of a deleted automation stay readable for 30 days.

Without more one page is printed (--size runs, 20 by default; --page counts
from 0); --limit N fetches up to N runs across pages, --all every one. When
the automation has more runs than were printed, a line on stderr says so.`,
		Example: `  traineectl automations runs 7 --all -o csv
  traineectl automations runs 7 --limit 500`,
		Args:              cmdutil.ExactArgs(1, "an automation id"),
		ValidArgsFunction: completeAutomationIDs(f, false),
		RunE:              listByIDRunE(f, &o.ID, &o, runF, runAutomationsRuns),
	}
	o.register(c, "run")
	return c
}

func runAutomationsRuns(ctx context.Context, f *cmdutil.Factory, o *AutomationsRunsOptions) error {
	c, err := f.Client()
	if err != nil {
		return err
	}
	return runList(ctx, f, &o.listFlags, func(ctx context.Context, p client.ListParams, opts ...client.RequestOption) iter.Seq2[*api.AutomationRun, error] {
		return c.ListAutomationRuns(ctx, o.ID, p, opts...)
	}, o.params(), output.RunRows)
}
