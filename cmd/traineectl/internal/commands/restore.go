package commands

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/client"
	"github.com/traineed/traineed/cmd/traineectl/internal/bulkupdate"
	"github.com/traineed/traineed/cmd/traineectl/internal/cmdutil"
)

// RestoreOptions are the inputs of `traineectl restore`.
type RestoreOptions struct {
	IDs  []int64
	Bulk BulkUpdateOptions // --ids, --from-search: an action over many trainees
	Many bool              // --ids or --from-search was given: Bulk, not IDs
}

func newRestoreCmd(f *cmdutil.Factory, runF func(*RestoreOptions) error) *cobra.Command {
	var o RestoreOptions
	cmd := &cobra.Command{
		Use:   "restore ID...",
		Short: "Restore soft-deleted trainees",
		Long: `Restore one or more soft-deleted trainees (it sends enabled: true), so that
they can log in again. Restoring a live trainee changes nothing.

With --ids 1,2,3 or --from-search QUERY it is one action over many trainees,
as "traineectl update --ids" is (--dry-run, --action-id, --journal,
--parallel).`,
		Example: `  traineectl restore 41
  traineectl restore 41 42
  traineectl restore --from-search 'status=deleted&createdSince=7d' --dry-run`,
		Args: func(cmd *cobra.Command, args []string) error {
			if o.Bulk.bulkSelected(cmd.Flags()) {
				return nil
			}
			return cmdutil.MinArgs(1, "trainee ids")(cmd, args)
		},
		ValidArgsFunction: completeTraineeIDs(f, api.StatusDeleted, true),
		RunE: func(cmd *cobra.Command, args []string) (err error) {
			if o.Many, err = o.Bulk.pick(cmd.Flags(), args, &o.IDs); err != nil {
				return err
			}
			return runWith(cmd.Context(), f, &o, runF, runRestore)
		},
	}
	o.Bulk.registerBulk(cmd)
	return cmd
}

// runRestore restores the trainees and prints them (or runs the action
// over many, o.Many).
func runRestore(ctx context.Context, f *cmdutil.Factory, o *RestoreOptions) error {
	if o.Many {
		o.Bulk.Action = bulkupdate.Action{Kind: bulkupdate.KindRestore}
		return runBulkUpdate(ctx, f, &o.Bulk, "restore")
	}
	return byIDs(ctx, f, traineeResource, o.IDs, "Restored", func(c *client.Client, ctx context.Context, id int64, _ ...client.RequestOption) (*api.Trainee, error) {
		return c.UpdateTrainee(ctx, id, api.TraineePatch{Enabled: api.Val(true)})
	})
}
