package commands

import (
	"github.com/spf13/cobra"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/cmd/traineectl/internal/cmdutil"
)

func newGetCmd(f *cmdutil.Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "get ID...",
		Short: "Show trainees by id",
		Long: `Show one or more trainees by id, soft-deleted ones included (their status
is "deleted").

With -o json one id prints the trainee object and several ids an array.
An id that is not one of your company's trainees exits with status 4; with
several ids the others are still shown.`,
		Example: `  traineectl get 41
  traineectl get 41 42 43 -o csv
  traineectl get 41 -o json | jq -r .email`,
		Args:              cmdutil.MinArgs(1, "trainee ids"),
		ValidArgsFunction: completeTraineeIDs(f, api.StatusAll, true),
		RunE: func(cmd *cobra.Command, args []string) error {
			ids, err := cmdutil.ParseIDs(args)
			if err != nil {
				return err
			}
			c, err := f.Client()
			if err != nil {
				return err
			}
			ts, err := each(f, ids, func(id int64) (*api.Trainee, error) { return c.Trainee(cmd.Context(), id) })
			return finish(f, ts, len(ids) == 1, err)
		},
	}
}

// finish prints what succeeded and returns err.
func finish(f *cmdutil.Factory, ts []*api.Trainee, single bool, err error) error {
	if len(ts) > 0 || err == nil {
		if perr := printTrainees(f, ts, single); perr != nil {
			return perr
		}
	}
	return err
}
