package commands

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/cmd/traineectl/internal/cmdutil"
)

func newDeleteCmd(f *cmdutil.Factory) *cobra.Command {
	var yes bool
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
		RunE: func(cmd *cobra.Command, args []string) error {
			ids, err := cmdutil.ParseIDs(args)
			if err != nil {
				return err
			}
			ios := f.IOStreams
			if !yes {
				if !ios.CanPrompt() {
					return cmdutil.Usagef("refusing to delete without --yes when stdin is not a terminal; nothing was deleted")
				}
				ok, err := f.Confirm(cmd.Context(), deleteQuestion(ids))
				if err != nil {
					return err
				}
				if !ok {
					return cmdutil.Usagef("not confirmed; nothing was deleted")
				}
			}
			c, err := f.Client()
			if err != nil {
				return err
			}
			ts, err := each(f, ids, func(id int64) (*api.Trainee, error) {
				t, err := c.DeleteTrainee(cmd.Context(), id)
				if err == nil && ios.StdoutTTY {
					fmt.Fprintf(ios.ErrOut, "Deleted trainee %d (%s)\n", t.ID, t.Name)
				}
				return t, err
			})
			return finish(f, ts, len(ids) == 1, err)
		},
	}
	cmd.Flags().BoolVarP(&yes, "yes", "y", false, "delete without asking")
	return cmd
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
