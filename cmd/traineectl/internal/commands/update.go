package commands

import (
	"context"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/cmd/traineectl/internal/cmdutil"
)

// none is the flag value that clears a field.
const none = "none"

// UpdateOptions are the inputs of `traineectl update`.
type UpdateOptions struct {
	ID            int64
	Patch         api.TraineePatch // the fields to send, from the flags
	PasswordStdin bool             // read the new password from stdin
}

func newUpdateCmd(f *cmdutil.Factory) *cobra.Command {
	var (
		o      UpdateOptions
		values = map[string]*string{} // flag name -> its text, for the patch's flags
	)
	cmd := &cobra.Command{
		Use:   "update ID [flags]",
		Short: "Change a trainee",
		Long: `Change some fields of a trainee. Only the flags given are sent; the other
fields stay as they are. "none" (or an empty value, --phone "") clears the
phone number, the date of birth or the expiration date.

A new password makes the trainee change it at the next login, unless
--force-password-change=false is given too. To delete or restore a trainee
use "traineectl delete" and "traineectl restore".`,
		Example: `  traineectl update 41 --expires 31-12-2027
  traineectl update 41 --expires none --phone none
  traineectl update 41 --name "Ada Park-Lee" --email ada.lee@example.com
  traineectl update 41 --weight-unit LB --trainer 7`,
		Args:              cmdutil.ExactArgs(1, "a trainee id"),
		ValidArgsFunction: completeTraineeIDs(f, api.StatusAll, false),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := cmdutil.ParseID(args[0])
			if err != nil {
				return err
			}
			o.ID = id
			if o.Patch, err = patchFromFlags(f, cmd.Flags(), values); err != nil {
				return err
			}
			return runUpdate(cmd.Context(), f, &o)
		},
	}
	addPatchFlags(cmd, values)
	cmd.Flags().BoolVar(&o.PasswordStdin, "password-stdin", false, "read the new password from the first line of stdin")
	cmd.MarkFlagsMutuallyExclusive("password", "password-stdin")
	return cmd
}

// runUpdate sends the patch (with the password from stdin when asked) and
// prints the trainee after the change.
func runUpdate(ctx context.Context, f *cmdutil.Factory, o *UpdateOptions) error {
	if o.PasswordStdin {
		pw, err := readPassword(f, nil, true, false)
		if err != nil {
			return err
		}
		o.Patch.Password = api.Val(pw)
	}
	if o.Patch.IsEmpty() {
		return cmdutil.Usagef("nothing to change: give at least one flag, such as --name or --expires")
	}
	c, err := f.Client()
	if err != nil {
		return err
	}
	t, err := c.UpdateTrainee(ctx, o.ID, o.Patch)
	if err != nil {
		return err
	}
	noteTrainee(f, "Updated", t)
	return printTrainees(ctx, f, []*api.Trainee{t}, true)
}

// addPatchFlags adds a flag for every field of api.TraineePatch that names
// one, with its help and completion: dates (and "none" for a nullable
// one), an enum's values, "none" for a nullable text, nothing for others.
func addPatchFlags(cmd *cobra.Command, values map[string]*string) {
	for i := range api.TraineePatchFields {
		pf := &api.TraineePatchFields[i]
		if pf.Flag == "" {
			continue
		}
		v := new(string)
		values[pf.Flag] = v
		if pf.Kind == api.KindBoolean {
			cmd.Flags().Var(boolText{v}, pf.Flag, pf.Help)
			cmd.Flags().Lookup(pf.Flag).NoOptDefVal = "true"
		} else {
			cmd.Flags().StringVar(v, pf.Flag, "", pf.Help)
		}
		var complete cobra.CompletionFunc
		switch {
		case pf.Kind == api.KindDate:
			complete = completeDates(pf.Nullable)
		case len(pf.Enum) > 0:
			complete = fixedValues(pf.Enum...)
		case pf.Nullable:
			complete = fixedValues(none + "\tclear the " + pf.Name)
		default:
			complete = cobra.NoFileCompletions
		}
		_ = cmd.RegisterFlagCompletionFunc(pf.Flag, complete)
	}
}

// clears reports whether a nullable flag's text clears the field: "none",
// or nothing at all (--phone "" is --phone none).
func clears(text string) bool {
	text = strings.TrimSpace(text)
	return text == "" || strings.EqualFold(text, none)
}

// patchFromFlags reads the patch's flags that were given: "none" (or an
// empty value) is null for a nullable field, anything else the field's text form (dates as
// api.ParseDateInput reads them, the local day for today).
func patchFromFlags(f *cmdutil.Factory, fs *pflag.FlagSet, values map[string]*string) (api.TraineePatch, error) {
	var p api.TraineePatch
	for i := range api.TraineePatchFields {
		pf := &api.TraineePatchFields[i]
		if pf.Flag == "" || !fs.Changed(pf.Flag) {
			continue
		}
		text := *values[pf.Flag]
		if pf.Nullable && clears(text) {
			pf.Set(&p, nil)
			continue
		}
		v, err := pf.ParseText(text, f.Now())
		if err != nil {
			return p, cmdutil.Usagef("--%s: %v", pf.Flag, err)
		}
		pf.Set(&p, v)
	}
	return p, nil
}

// boolText is a boolean flag kept as text, so that every patch flag is
// read the same way.
type boolText struct{ v *string }

func (b boolText) String() string {
	if b.v == nil || *b.v == "" {
		return "false"
	}
	return *b.v
}
func (b boolText) Set(s string) error { *b.v = s; return nil }
func (b boolText) Type() string       { return "bool" }
func (b boolText) IsBoolFlag() bool   { return true }
