package commands

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/cmd/traineectl/internal/cmdutil"
)

func newRestoreCmd(f *cmdutil.Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "restore ID...",
		Short: "Restore soft-deleted trainees",
		Long: `Restore one or more soft-deleted trainees (it sends enabled: true), so that
they can log in again. Restoring a live trainee changes nothing.`,
		Example: `  traineectl restore 41
  traineectl restore 41 42`,
		Args:              cmdutil.MinArgs(1, "trainee ids"),
		ValidArgsFunction: completeTraineeIDs(f, api.StatusDeleted, true),
		RunE: func(cmd *cobra.Command, args []string) error {
			ids, err := cmdutil.ParseIDs(args)
			if err != nil {
				return err
			}
			c, err := f.Client()
			if err != nil {
				return err
			}
			ios := f.IOStreams
			ts, err := each(f, ids, func(id int64) (*api.Trainee, error) {
				t, err := c.RestoreTrainee(cmd.Context(), id)
				if err == nil && ios.StdoutTTY {
					fmt.Fprintf(ios.ErrOut, "Restored trainee %d (%s)\n", t.ID, t.Name)
				}
				return t, err
			})
			return finish(f, ts, len(ids) == 1, err)
		},
	}
}
