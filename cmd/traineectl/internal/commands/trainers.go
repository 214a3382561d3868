package commands

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/client"
	"github.com/traineed/traineed/cmd/traineectl/internal/cmdutil"
	"github.com/traineed/traineed/cmd/traineectl/internal/output"
)

func newTrainersCmd(f *cmdutil.Factory, runF func(*TrainersListOptions) error) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "trainers [list]",
		Short: "List and manage your company's trainers",
		Long: `Your company's trainers: the ids that "--trainer" takes and that trainees'
trainerId names. Tables of trainees show trainers by name. Alone, it lists
them, as "trainers list" does.

Every key may list and show them. Adding, changing, deactivating a trainer
and moving a trainer's trainees to another need an admin key (another key
exits 7, errorCode 1029). Wherever a command takes a trainer (an argument,
--to, --reassign-to, keys create --trainer), it takes the trainer's id or
whole name, looked up in the company's trainers before anything is sent: an
id or a name that is not one of them exits 2, naming the flag and listing
the trainers.`,
		Example: `  traineectl trainers
  traineectl trainers list --jq '.[] | select(.name == "Coach Carter") | .id'
  traineectl trainers create --name "Sam Coach" --email sam@example.com
  traineectl trainers deactivate "Maya Brooks" --reassign-to "Sam Coach"`,
		// Alone it lists (a group's help is one --help away); an unknown
		// subcommand is still a usage error, as in every other group.
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return unknownSubcommand(cmd, args[0])
			}
			o := &TrainersListOptions{}
			return runWith(cmd.Context(), f, o, runF, runTrainersList)
		},
	}
	cmd.AddCommand(newTrainersListCmd(f, nil), newTrainersGetCmd(f, nil), newTrainersCreateCmd(f, nil), newTrainersUpdateCmd(f, nil),
		newTrainersDeactivateCmd(f, nil), newTrainersReassignCmd(f, nil))
	return cmd
}

// TrainersListOptions are the inputs of `traineectl trainers list`: none.
type TrainersListOptions struct{}

func newTrainersListCmd(f *cmdutil.Factory, runF func(*TrainersListOptions) error) *cobra.Command {
	return &cobra.Command{
		Use:     "list",
		Aliases: []string{"ls"},
		Short:   "List the trainers: id, name, e-mail, whether active, how many trainees",
		Long: `List the company's trainers by id: name, e-mail, whether the trainer is active
(a deactivated trainer takes no trainees) and how many live trainees the
trainer has ("-" where the key may not count them: a key limited to its own
trainer's trainees counts no other trainer's).`,
		Example: `  traineectl trainers list
  traineectl trainers list -o json
  traineectl trainers list -o csv --fields name,traineeCount`,
		Args: cmdutil.ExactArgs(0, "none"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o := &TrainersListOptions{}
			return runWith(cmd.Context(), f, o, runF, runTrainersList)
		},
	}
}

// runTrainersList prints the company's trainers.
func runTrainersList(ctx context.Context, f *cmdutil.Factory, _ *TrainersListOptions) error {
	c, err := f.Client()
	if err != nil {
		return err
	}
	ts, err := c.Trainers(ctx, client.TrainerParams{Counts: true})
	if err != nil {
		return err
	}
	return f.Print(trainersView(ts, false))
}

// trainersView prints trainers; single prints the one trainer as an
// object in JSON and YAML.
func trainersView(ts []api.TrainerSummary, single bool) output.View {
	v := output.TrainerRows.View(ts)
	if single && len(ts) == 1 {
		v.Value = ts[0]
	}
	return v
}

// resolveTrainer reads a --trainer value: a whole number is a trainer id,
// sent as it is (the server checks it: 1010); anything else is a trainer's
// name, looked up in GET /public-api/trainers, case-insensitive and whole.
// No trainer of that name, or several, is a usage error that lists the
// company's trainers.
func resolveTrainer(ctx context.Context, f *cmdutil.Factory, text string) (string, error) {
	return resolveTrainerAs(ctx, f, "--trainer", text)
}

// resolveTrainerAs is resolveTrainer for any place that names a trainer:
// label ("--trainer", "--to", "trainer") starts its errors.
func resolveTrainerAs(ctx context.Context, f *cmdutil.Factory, label, text string) (string, error) {
	text = strings.TrimSpace(text)
	if isWholeNumber(text) {
		return text, nil
	}
	c, err := f.Client()
	if err != nil {
		return "", err
	}
	ts, err := c.Trainers(ctx, client.TrainerParams{})
	if rej := (*client.RejectedError)(nil); errors.As(err, &rej) && rej.Status == http.StatusNotFound {
		return "", cmdutil.Usagef("%s %q: this server cannot look a trainer up by name: give the trainer's id", label, text)
	}
	if err != nil {
		return "", fmt.Errorf("%s %q: reading the trainers to find that name: %w", label, text, err)
	}
	t, err := trainerNamed(ts, label, text)
	if err != nil {
		return "", err
	}
	return strconv.FormatInt(t.ID, 10), nil
}

// trainerNamed is the one trainer of ts whose whole name is text, in any
// case; none, or several, is a usage error that lists the trainers.
func trainerNamed(ts []api.TrainerSummary, label, text string) (*api.TrainerSummary, error) {
	var named []*api.TrainerSummary
	for i, t := range ts {
		if strings.EqualFold(strings.TrimSpace(t.Name), text) {
			named = append(named, &ts[i])
		}
	}
	switch {
	case len(named) == 1:
		return named[0], nil
	case len(named) > 1:
		list := make([]api.TrainerSummary, len(named))
		for i, t := range named {
			list[i] = *t
		}
		return nil, cmdutil.Usagef("%s: %d trainers are named %q: %s; give the id", label, len(named), text, trainerListText(list))
	case len(ts) == 0:
		return nil, cmdutil.Usagef("%s: no trainer is named %q: your company has no trainers", label, text)
	}
	return nil, cmdutil.Usagef("%s: no trainer is named %q%s; your company's trainers (id name): %s",
		label, text, didYouMean(ts, text), trainerListText(ts))
}

// trainerBook is the company's trainers, read once by a command of
// company administration (GET /public-api/trainers) to resolve each
// trainer it is given (an argument, --to, --reassign-to, --trainer) the
// same way before anything is changed: by id or by whole name, an
// unknown one being a usage error (exit 2) that names the flag and lists
// the trainers.
type trainerBook struct {
	f  *cmdutil.Factory
	ts []api.TrainerSummary // nil until read
}

// trainers are the company's trainers, read on the first call.
func (b *trainerBook) trainers(ctx context.Context) ([]api.TrainerSummary, error) {
	if b.ts != nil {
		return b.ts, nil
	}
	c, err := b.f.Client()
	if err != nil {
		return nil, err
	}
	ts, err := c.Trainers(ctx, client.TrainerParams{})
	if err != nil {
		return nil, fmt.Errorf("reading the company's trainers: %w", err)
	}
	b.ts = ts
	return ts, nil
}

// find is the trainer text names, an id (digits, as the API writes it)
// or a whole name, for label ("trainer", "--to"). A malformed id is
// refused before the trainers are read.
func (b *trainerBook) find(ctx context.Context, label, text string) (*api.TrainerSummary, error) {
	text = strings.TrimSpace(text)
	var id int64
	if isWholeNumber(text) {
		var ok bool
		if id, ok = api.ParseID(text); !ok {
			return nil, cmdutil.Usagef("%s: invalid trainer id %q: ids are positive integers", label, text)
		}
	}
	ts, err := b.trainers(ctx)
	if err != nil {
		return nil, err
	}
	if id == 0 {
		return trainerNamed(ts, label, text)
	}
	if i := slices.IndexFunc(ts, func(t api.TrainerSummary) bool { return t.ID == id }); i >= 0 {
		return &ts[i], nil
	}
	if len(ts) == 0 {
		return nil, cmdutil.Usagef("%s: no trainer has id %d: your company has no trainers", label, id)
	}
	return nil, cmdutil.Usagef("%s: no trainer has id %d; your company's trainers (id name): %s", label, id, trainerListText(ts))
}

// isWholeNumber reports whether a --trainer value is an id rather than a
// name (as the flag reads an id: 7, 0x7).
func isWholeNumber(text string) bool {
	_, err := strconv.ParseInt(strings.TrimSpace(text), 0, 64)
	return err == nil
}

// didYouMean names the one trainer whose name starts with text, if there
// is exactly one.
func didYouMean(ts []api.TrainerSummary, text string) string {
	var hit *api.TrainerSummary
	for i, t := range ts {
		if len(text) <= len(t.Name) && strings.EqualFold(t.Name[:len(text)], text) {
			if hit != nil {
				return ""
			}
			hit = &ts[i]
		}
	}
	if hit == nil {
		return ""
	}
	return fmt.Sprintf(" (did you mean %q, id %d?)", api.EscapeText(hit.Name), hit.ID)
}

// trainerListText is "7 Maya Brooks, 9 Hannah Okoye": at most 20 trainers,
// then how many more ("traineectl trainers" lists them all).
func trainerListText(ts []api.TrainerSummary) string {
	const most = 20
	parts := make([]string, 0, min(len(ts), most)+1)
	for i, t := range ts {
		if i == most {
			parts = append(parts, fmt.Sprintf("and %d more (traineectl trainers lists them)", len(ts)-most))
			break
		}
		parts = append(parts, fmt.Sprintf("%d %s", t.ID, api.EscapeText(t.Name)))
	}
	return strings.Join(parts, ", ")
}

// completeTrainerIDs offers the company's trainer ids, with their names,
// for --trainer (the trainee ids on the command line do not count).
func completeTrainerIDs(f *cmdutil.Factory) cobra.CompletionFunc {
	ids := completeTrainerArg(f)
	return func(cmd *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		return ids(cmd, nil, toComplete)
	}
}

// completeTrainerArg offers the company's trainer ids, with their names,
// as a command's one trainer argument.
func completeTrainerArg(f *cmdutil.Factory) cobra.CompletionFunc {
	return completeIDs(f, false, func(ctx context.Context, c *client.Client, _ string) ([]idCandidate, error) {
		ts, err := c.Trainers(ctx, client.TrainerParams{})
		out := make([]idCandidate, len(ts))
		for i, t := range ts {
			out[i] = idCandidate{t.ID, t.Name}
		}
		return out, err
	})
}
