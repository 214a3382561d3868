package commands

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/client"
	"github.com/traineed/traineed/cmd/traineectl/internal/cmdutil"
)

// DeleteOptions are the inputs of `traineectl delete`.
type DeleteOptions struct {
	IDs []int64
	Yes bool // do not ask
}

func newDeleteCmd(f *cmdutil.Factory) *cobra.Command {
	var o DeleteOptions
	cmd := &cobra.Command{
		Use:   "delete ID... [--yes]",
		Short: "Soft-delete trainees",
		Long: `Soft-delete one or more trainees: they can no longer log in, their data is
kept, and "traineectl restore" brings them back.

On a terminal you are asked to confirm; elsewhere (a script, a pipe) --yes is
required, and without it nothing is deleted and the exit status is 2.
The deleted trainees are printed (status "deleted").`,
		Example: `  traineectl delete 41
  traineectl delete 41 42 43 --yes
  traineectl search --status expired -o json | jq -r '.[].id' | xargs traineectl delete --yes`,
		Args:              cmdutil.MinArgs(1, "trainee ids"),
		ValidArgsFunction: completeTraineeIDs(f, api.StatusLive, true),
		RunE: func(cmd *cobra.Command, args []string) (err error) {
			if o.IDs, err = cmdutil.ParseIDs(args); err != nil {
				return err
			}
			return runDelete(cmd.Context(), f, &o)
		},
	}
	cmd.Flags().BoolVarP(&o.Yes, "yes", "y", false, "delete without asking")
	return cmd
}

// runDelete asks for a confirmation unless o.Yes, then deletes the
// trainees and prints them.
func runDelete(ctx context.Context, f *cmdutil.Factory, o *DeleteOptions) error {
	if !o.Yes {
		if !f.IOStreams.CanPrompt() {
			return cmdutil.Usagef("refusing to delete without --yes when stdin is not a terminal; nothing was deleted")
		}
		ok, err := f.Confirm(ctx, deleteQuestion(o.IDs))
		if err != nil {
			return err
		}
		if !ok {
			return cmdutil.Usagef("not confirmed; nothing was deleted")
		}
	}
	return eachTrainee(ctx, f, o.IDs, "Deleted", (*client.Client).DeleteTrainee)
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
