package commands

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/client"
	"github.com/traineed/traineed/cmd/traineectl/internal/cmdutil"
)

// RestoreOptions are the inputs of `traineectl restore`.
type RestoreOptions struct {
	IDs []int64
}

func newRestoreCmd(f *cmdutil.Factory) *cobra.Command {
	var o RestoreOptions
	return &cobra.Command{
		Use:   "restore ID...",
		Short: "Restore soft-deleted trainees",
		Long: `Restore one or more soft-deleted trainees (it sends enabled: true), so that
they can log in again. Restoring a live trainee changes nothing.`,
		Example: `  traineectl restore 41
  traineectl restore 41 42`,
		Args:              cmdutil.MinArgs(1, "trainee ids"),
		ValidArgsFunction: completeTraineeIDs(f, api.StatusDeleted, true),
		RunE: func(cmd *cobra.Command, args []string) (err error) {
			if o.IDs, err = cmdutil.ParseIDs(args); err != nil {
				return err
			}
			return runRestore(cmd.Context(), f, &o)
		},
	}
}

// runRestore restores the trainees and prints them.
func runRestore(ctx context.Context, f *cmdutil.Factory, o *RestoreOptions) error {
	return eachTrainee(ctx, f, o.IDs, "Restored", (*client.Client).RestoreTrainee)
}
