package commands

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/traineed/traineed/cmd/traineectl/internal/cmdutil"
)

// AutomationsTestOptions are the inputs of `traineectl automations test`.
type AutomationsTestOptions struct {
	ID int64
	pagingFlags
}

func newAutomationsTestCmd(f *cmdutil.Factory, runF func(*AutomationsTestOptions) error) *cobra.Command {
	var o AutomationsTestOptions
	c := &cobra.Command{
		Use:   "test ID [--page N] [--size N]",
		Short: "Dry run: the trainees an automation would fire for now",
		Long: `List the trainees an automation would fire for right now, by id, without
firing or sending anything. For a time trigger: the trainees whose occurrence
is due today (the company's day) and has not fired. For an event trigger: the
trainees its conditions hold for.`,
		Example:           `  traineectl automations test 7`,
		Args:              cmdutil.ExactArgs(1, "an automation id"),
		ValidArgsFunction: completeAutomationIDs(f, false),
		RunE:              listByIDRunE(f, &o.ID, &o, runF, runAutomationsTest),
	}
	o.register(c, "trainee")
	return c
}

func runAutomationsTest(ctx context.Context, f *cmdutil.Factory, o *AutomationsTestOptions) error {
	c, err := f.Client()
	if err != nil {
		return err
	}
	p, err := c.TestAutomation(ctx, o.ID, o.params())
	if err != nil {
		return err
	}
	if err := printTrainees(ctx, f, p.Content, false); err != nil {
		return err
	}
	if f.IOStreams.StdoutTTY {
		fmt.Fprintf(f.IOStreams.ErrOut, "Would fire for %s (page %d of %d); nothing was sent\n",
			trainees(p.Page.TotalElements), p.Page.Number+1, max(p.Page.TotalPages, 1))
	}
	return nil
}
