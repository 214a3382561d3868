package commands

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/client"
	"github.com/traineed/traineed/cmd/traineectl/internal/bulkupdate"
	"github.com/traineed/traineed/cmd/traineectl/internal/cmdutil"
)

// DeleteOptions are the inputs of `traineectl delete`.
type DeleteOptions struct {
	IDs  []int64
	Yes  bool              // do not ask
	Bulk BulkUpdateOptions // --ids, --from-search: an action over many trainees
	Many bool              // --ids or --from-search was given: Bulk, not IDs
}

func newDeleteCmd(f *cmdutil.Factory, runF func(*DeleteOptions) error) *cobra.Command {
	var o DeleteOptions
	cmd := &cobra.Command{
		Use:   "delete ID... [--yes]",
		Short: "Soft-delete trainees",
		Long: `Soft-delete one or more trainees: they can no longer log in, their data is
kept, and "traineectl restore" brings them back.

On a terminal you are asked to confirm; elsewhere (a script, a pipe) --yes is
required, and without it nothing is deleted and the exit status is 2.
The deleted trainees are printed (status "deleted").

With --ids 1,2,3 or --from-search QUERY it is one action over many trainees,
as "traineectl update --ids" is (each read, sent with If-Match and an
idempotency key from --action-id, --dry-run, --journal, --parallel; a record
per trainee and every failure with its reason; exit status 5 when one
failed), after one confirmation that names the count.`,
		Example: `  traineectl delete 41
  traineectl delete 41 42 43 --yes
  traineectl search --status expired -o json | jq -r '.[].id' | xargs traineectl delete --yes
  traineectl delete --from-search 'status=expired&inactiveFor=90d' --dry-run
  traineectl delete --from-search 'status=expired&inactiveFor=90d' --yes --action-id cleanup-q4`,
		Args: func(cmd *cobra.Command, args []string) error {
			if o.Bulk.bulkSelected(cmd.Flags()) {
				return nil
			}
			return cmdutil.MinArgs(1, "trainee ids")(cmd, args)
		},
		ValidArgsFunction: completeTraineeIDs(f, api.StatusLive, true),
		RunE: func(cmd *cobra.Command, args []string) (err error) {
			if o.Many, err = o.Bulk.pick(cmd.Flags(), args, &o.IDs); err != nil {
				return err
			}
			return runWith(cmd.Context(), f, &o, runF, runDelete)
		},
	}
	cmd.Flags().BoolVarP(&o.Yes, "yes", "y", false, "delete without asking")
	o.Bulk.registerBulk(cmd)
	return cmd
}

// runBulkDelete soft-deletes the trainees of --ids or --from-search as
// one action (see traineectl update --ids), after the confirmation.
func runBulkDelete(ctx context.Context, f *cmdutil.Factory, o *DeleteOptions) error {
	o.Bulk.Action = bulkupdate.Action{Kind: bulkupdate.KindDelete}
	o.Bulk.Confirm = func(ctx context.Context, n int) error {
		return confirmDelete(ctx, f, o.Yes, fmt.Sprintf("Delete %s?", trainees(int64(n))))
	}
	return runBulkUpdate(ctx, f, &o.Bulk, "delete")
}

// runDelete asks for a confirmation unless o.Yes, then deletes the
// trainees and prints them (or runs the action over many, o.Many).
func runDelete(ctx context.Context, f *cmdutil.Factory, o *DeleteOptions) error {
	if o.Many {
		return runBulkDelete(ctx, f, o)
	}
	if err := confirmDelete(ctx, f, o.Yes, deleteQuestion(o.IDs)); err != nil {
		return err
	}
	return byIDs(ctx, f, traineeResource, o.IDs, "Deleted", (*client.Client).DeleteTrainee)
}

func deleteQuestion(ids []int64) string {
	if len(ids) == 1 {
		return fmt.Sprintf("Delete trainee %d?", ids[0])
	}
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = fmt.Sprint(id)
	}
	return fmt.Sprintf("Delete %d trainees (%s)?", len(ids), strings.Join(s, ", "))
}
