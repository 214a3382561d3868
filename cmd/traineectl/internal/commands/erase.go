package commands

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/cmd/traineectl/internal/cmdutil"
	"github.com/traineed/traineed/cmd/traineectl/internal/output"
)

// EraseOptions are the inputs of `traineectl erase`.
type EraseOptions struct {
	ID      int64
	Confirm string // the trainee's e-mail address; "": ask on the terminal
}

func newEraseCmd(f *cmdutil.Factory, runF func(*EraseOptions) error) *cobra.Command {
	var o EraseOptions
	cmd := &cobra.Command{
		Use:   "erase ID [--confirm EMAIL]",
		Short: "Erase a trainee for good (GDPR right to erasure)",
		Long: `Erase a trainee irreversibly (GDPR Article 17): the server deletes the
trainee's name, e-mail address, phone number, date of birth, password and
every tracked-data row, redacts the trainee from the webhook events it
recorded, and keeps an anonymous tombstone (the id, when it was created and
erased). Webhooks subscribed to trainee.erased are told. Unlike delete this
cannot be undone; "traineectl export ID" first, if the person asked for a
copy.

The trainee's e-mail address confirms it: on a terminal you are asked to
type it; elsewhere (a script, a pipe) --confirm EMAIL is required, and
without it nothing is erased and the exit status is 2. An address that is
not the trainee's is refused by the server (exit status 5, errorCode 1028)
and nothing is erased. Erasing an erased trainee succeeds again. The
tombstone is printed.`,
		Example: `  traineectl erase 41
  traineectl erase 41 --confirm ada@example.com -o json`,
		Args:              cmdutil.ExactArgs(1, "trainee id"),
		ValidArgsFunction: completeTraineeIDs(f, api.StatusAll, false),
		RunE: func(cmd *cobra.Command, args []string) (err error) {
			if o.ID, err = cmdutil.ParseID(args[0]); err != nil {
				return err
			}
			if cmd.Flags().Changed("confirm") && strings.TrimSpace(o.Confirm) == "" {
				return cmdutil.Usagef("--confirm wants the trainee's e-mail address; nothing was erased")
			}
			return runWith(cmd.Context(), f, &o, runF, runErase)
		},
	}
	cmd.Flags().StringVar(&o.Confirm, "confirm", "", "the trainee's e-mail address, confirming the erasure without asking")
	_ = cmd.RegisterFlagCompletionFunc("confirm", cobra.NoFileCompletions)
	return cmd
}

// runErase asks for the e-mail address unless o.Confirm holds it, then
// erases the trainee and prints its tombstone.
func runErase(ctx context.Context, f *cmdutil.Factory, o *EraseOptions) error {
	ios := f.IOStreams
	if o.Confirm == "" && !ios.CanPrompt() {
		return cmdutil.Usagef("refusing to erase without --confirm EMAIL when stdin is not a terminal; nothing was erased")
	}
	c, err := f.Client()
	if err != nil {
		return err
	}
	if o.Confirm == "" {
		t, err := c.Trainee(ctx, o.ID)
		if err != nil {
			return err
		}
		line, err := f.Ask(ctx, fmt.Sprintf("Erasing trainee %d (%s) deletes all of their data for good; it cannot be undone.\nType their e-mail address to confirm: ",
			t.ID, api.EscapeText(t.Name)))
		if err != nil {
			return err
		}
		if line == "" {
			return cmdutil.Usagef("not confirmed; nothing was erased")
		}
		o.Confirm = line
	}
	e, err := c.EraseTrainee(ctx, o.ID, o.Confirm)
	if err != nil {
		return err
	}
	if ios.StdoutTTY {
		fmt.Fprintf(ios.ErrOut, "Erased trainee %d\n", e.ID)
	}
	return f.Print(output.View{Value: e,
		CSVHeader: []string{"id", "companyId", "userId", "createdAt", "erasedAt"},
		CSVRows:   [][]string{{id(e.ID), id(e.CompanyID), id(e.UserID), output.Instant(e.CreatedAt), output.Instant(e.ErasedAt)}},
		Columns:   []output.Column{{Header: "ID"}, {Header: "CREATED"}, {Header: "ERASED"}},
		Rows:      [][]string{{id(e.ID), output.Stamp(e.CreatedAt), output.Stamp(e.ErasedAt)}}})
}
