package commands

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/client"
	"github.com/traineed/traineed/cmd/traineectl/internal/cmdutil"
)

// none is the flag value that clears a field.
const none = "none"

// UpdateOptions are the inputs of `traineectl update`.
type UpdateOptions struct {
	ID            int64
	Patch         api.TraineePatch // the fields to send, from the flags
	PasswordStdin bool             // read the new password from stdin

	// An action over many trainees (--ids, --from-search), or one with
	// --extend: see BulkUpdateOptions.
	Bulk           BulkUpdateOptions
	Extend         string // --extend 30d
	ExpirationDate string // --expiration-date: --expires's name for actions
	Disable        bool
	Enable         bool

	// Many: an action over many trainees (--ids, --from-search, or a flag
	// only an action has), ID unset.
	Many bool
	// TrainerName is --trainer's text when it names a trainer rather than
	// giving an id: the run resolves it into Patch.
	TrainerName string
	// PhoneRegion is --phone-region: --phone without + is a national
	// number of it ("": the company's country, by its time zone); the run
	// converts it (phoneFlag), as create does.
	PhoneRegion string
}

func newUpdateCmd(f *cmdutil.Factory, runF func(*UpdateOptions) error) *cobra.Command {
	var (
		o      UpdateOptions
		values = map[string]*string{} // flag name -> its text, for the patch's flags
	)
	cmd := &cobra.Command{
		Use:   "update ID [flags] | update (--ids 1,2,3 | --from-search QUERY) [flags]",
		Short: "Change a trainee",
		Long: `Change some fields of a trainee. Only the flags given are sent; the other
fields stay as they are. "none" (or an empty value, --phone "") clears the
phone number, the date of birth or the expiration date.

The trainee is read first and the change sent with If-Match: when someone
changed the trainee in between, nothing is changed and the command says so
(exit status 5); run it again.

A new password makes the trainee change it at the next login, unless
--force-password-change=false is given too. To delete or restore a trainee
use "traineectl delete" and "traineectl restore".

Many trainees at once: --ids 1,2,3 or --from-search QUERY (a search's query
string, as GET /trainees/search takes it: status=active&expiresWithin=7d)
with an action: --extend 30d (the expiration date moves 30 days on, from
today when it has passed; a trainee without one is left alone),
--expiration-date DATE (or --expires), --trainer ID or NAME, --disable
(soft-delete), --enable (restore), or other fields that make sense on many
trainees.
--dry-run prints what would change for each trainee and changes nothing.
Each trainee is read, and its change sent with If-Match and an idempotency
key made of the action's id (--action-id, or a new one, printed) and the
trainee's id, several at a time (--parallel), slowing down when the server
answers 429. Running the same action again (the same --action-id) never
applies it twice; with --journal FILE a re-run also skips what was done and
tries again what failed. Every failure is listed with its reason; the exit
status is 5 when any trainee failed.`,
		Example: `  traineectl update 41 --expires 31-12-2027
  traineectl update 41 --expires none --phone none
  traineectl update 41 --name "Ada Park-Lee" --email ada.lee@example.com
  traineectl update 41 --weight-unit LB --trainer 7
  traineectl update 41 --trainer "Maya Brooks"
  traineectl update --ids 41,42,43 --extend 30d
  traineectl update --from-search 'status=active&expiresWithin=7d' --extend 30d --dry-run
  traineectl update --from-search 'inactiveFor=30d' --trainer 7 --action-id reassign-nov --journal reassign.journal`,
		Args: func(cmd *cobra.Command, args []string) error {
			if o.Bulk.bulkSelected(cmd.Flags()) || bulkOnly(cmd.Flags()) {
				return nil
			}
			return cmdutil.ExactArgs(1, "a trainee id")(cmd, args)
		},
		ValidArgsFunction: completeTraineeIDs(f, api.StatusAll, false),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.fill(f, cmd.Flags(), args, values); err != nil {
				return err
			}
			return runWith(cmd.Context(), f, &o, runF, runUpdate)
		},
	}
	addPatchFlags(cmd, values, completeTrainerIDs(f))
	cmd.Flags().BoolVar(&o.PasswordStdin, "password-stdin", false, "read the new password from the first line of stdin")
	cmd.Flags().StringVar(&o.PhoneRegion, "phone-region", "", "read --phone without + as a national number of this country (GB, US, ...; default: the company's, by its time zone)")
	_ = cmd.RegisterFlagCompletionFunc("phone-region", fixedValues("GB", "IE", "US", "CA", "DE", "FR", "ES", "IT", "NL", "AU", "NZ"))
	cmd.MarkFlagsMutuallyExclusive("password", "password-stdin")
	cmd.Flags().StringVar(&o.Extend, "extend", "", "move the expiration date on by 30d, 6w, 3m (calendar months) or 1y, from today when it has passed")
	cmd.Flags().StringVar(&o.ExpirationDate, "expiration-date", "", "set the expiration date (as --expires)")
	cmd.Flags().BoolVar(&o.Disable, "disable", false, "soft-delete (enabled: false)")
	cmd.Flags().BoolVar(&o.Enable, "enable", false, "restore (enabled: true)")
	cmd.MarkFlagsMutuallyExclusive("expires", "expiration-date")
	_ = cmd.RegisterFlagCompletionFunc("extend", fixedValues("7d", "30d", "6w", "3m", "1y"))
	_ = cmd.RegisterFlagCompletionFunc("expiration-date", completeDates(true))
	o.Bulk.registerBulk(cmd)
	return cmd
}

// bulkOnly reports whether a flag that only an action has is given.
func bulkOnly(fs *pflag.FlagSet) bool {
	for _, name := range []string{"extend", "dry-run", "action-id", "journal"} {
		if fs.Changed(name) {
			return true
		}
	}
	return false
}

// fill reads the flags (fs, whose patch flags' texts are values) and the
// arguments into o: the patch, and the id of one trainee or the selection
// of an action over many. What needs the server (a trainer's name) is
// left to the run.
func (o *UpdateOptions) fill(f *cmdutil.Factory, fs *pflag.FlagSet, args []string, values map[string]*string) error {
	expirationDate := fs.Changed("expiration-date")
	if expirationDate {
		*values["expires"] = o.ExpirationDate
		if err := fs.Set("expires", o.ExpirationDate); err != nil {
			return cmdutil.Usagef("--expiration-date: %v", err)
		}
	}
	if fs.Changed("phone-region") && !fs.Changed("phone") {
		return cmdutil.Usagef("--phone-region needs --phone: it says how to read a number without +")
	}
	if err := checkPhoneRegion(o.PhoneRegion); err != nil {
		return err
	}
	p, err := patchFromFlags(f, fs, values)
	if err != nil {
		if expirationDate {
			err = &cmdutil.UsageError{Err: errors.New(strings.Replace(err.Error(), "--expires", "--expiration-date", 1))}
		}
		return err
	}
	o.Patch, o.TrainerName = p, trainerName(fs, values)
	o.Many = o.Bulk.bulkSelected(fs) || bulkOnly(fs)
	if o.Many {
		if o.PasswordStdin {
			return cmdutil.Usagef("--password-stdin cannot be used on several trainees at once")
		}
		return o.Bulk.checkBulk(args)
	}
	if o.ID, err = cmdutil.ParseID(args[0]); err != nil {
		return err
	}
	if o.Disable && o.Enable {
		return cmdutil.Usagef("--disable and --enable cannot be given together")
	}
	return nil
}

// runUpdate resolves a trainer's name, then runs the action over many
// trainees or the update of one.
func runUpdate(ctx context.Context, f *cmdutil.Factory, o *UpdateOptions) error {
	if err := resolveTrainerName(ctx, f, o.TrainerName, &o.Patch); err != nil {
		return err
	}
	if ph := &o.Patch.PhoneNumber; ph.Set && !ph.Null {
		v, err := phoneFlag(ctx, f, o.PhoneRegion, ph.Value)
		if err != nil {
			return err
		}
		ph.Value = v
	}
	if o.Many {
		var err error
		if o.Bulk.Action, err = bulkAction(o.Patch, o.Extend, o.Disable, o.Enable); err != nil {
			return err
		}
		return runBulkUpdate(ctx, f, &o.Bulk, "update")
	}
	if o.Disable || o.Enable {
		o.Patch.Enabled = api.Val(o.Enable)
	}
	return updateOne(ctx, f, o)
}

// updateOne sends the patch (with the password from stdin when asked) and
// prints the trainee after the change.
func updateOne(ctx context.Context, f *cmdutil.Factory, o *UpdateOptions) error {
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
	// Read, then change only that version: a colleague's change made in
	// between is never overwritten.
	var read client.Response
	if _, err := c.Trainee(ctx, o.ID, client.WithResponse(&read)); err != nil {
		return err
	}
	t, err := c.UpdateTrainee(ctx, o.ID, o.Patch, client.IfMatch(read.ETag))
	var pf *client.PreconditionFailedError
	if errors.As(err, &pf) {
		return &cmdutil.StatusError{Code: cmdutil.ExitRejected, Err: fmt.Errorf(
			"trainee %d changed meanwhile: someone updated it after this command read it, and nothing was changed; run the command again to apply your change to the new version", o.ID)}
	}
	if err != nil {
		return err
	}
	noteTrainee(f, "Updated", t)
	return printTrainees(ctx, f, []*api.Trainee{t}, true)
}

// addPatchFlags adds a flag for every field of api.TraineePatch that names
// one, with its help and completion: dates (and "none" for a nullable
// one), an enum's values, "none" for a nullable text, nothing for others.
func addPatchFlags(cmd *cobra.Command, values map[string]*string, trainers cobra.CompletionFunc) {
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
		case pf.Flag == "trainer":
			complete = trainers
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

// trainerName is the --trainer flag's text when it names a trainer rather
// than giving an id ("" otherwise): patchFromFlags leaves it to
// resolveTrainerFlag, once the other flags are known good.
func trainerName(fs *pflag.FlagSet, values map[string]*string) string {
	v, ok := values["trainer"]
	if !ok || !fs.Changed("trainer") || strings.TrimSpace(*v) == "" || isWholeNumber(*v) {
		return ""
	}
	return *v
}

// resolveTrainerName sets p's trainer from a --trainer given as a
// trainer's name (resolveTrainer; "": none); an id was read by
// patchFromFlags.
func resolveTrainerName(ctx context.Context, f *cmdutil.Factory, name string, p *api.TraineePatch) error {
	if name == "" {
		return nil
	}
	text, err := resolveTrainer(ctx, f, name)
	if err != nil {
		return err
	}
	id, err := strconv.ParseInt(text, 10, 64)
	if err != nil {
		return err
	}
	p.TrainerID = api.Val(id)
	return nil
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
		if pf.Flag == "" || !fs.Changed(pf.Flag) || pf.Flag == "trainer" && trainerName(fs, values) != "" {
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
