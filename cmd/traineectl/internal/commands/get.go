package commands

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/client"
	"github.com/traineed/traineed/cmd/traineectl/internal/cmdutil"
)

// GetOptions are the inputs of `traineectl get`.
type GetOptions struct {
	IDs []int64
}

func newGetCmd(f *cmdutil.Factory, runF func(*GetOptions) error) *cobra.Command {
	var o GetOptions
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
		RunE:              idsRunE(f, &o.IDs, &o, runF, runGet),
	}
}

// runGet prints the trainees.
func runGet(ctx context.Context, f *cmdutil.Factory, o *GetOptions) error {
	return byIDs(ctx, f, traineeResource, o.IDs, "", (*client.Client).Trainee)
}
