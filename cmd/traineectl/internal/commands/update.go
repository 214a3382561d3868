package commands

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/client"
	"github.com/traineed/traineed/cmd/traineectl/internal/cmdutil"
)

// none is the flag value that clears a field.
const none = "none"

func newUpdateCmd(f *cmdutil.Factory) *cobra.Command {
	var o struct {
		name, email, password, phone, dob, expires, weightUnit string
		trainer                                                int64
		passwordStdin, forcePasswordChange                     bool
	}
	cmd := &cobra.Command{
		Use:   "update ID [flags]",
		Short: "Change a trainee",
		Long: `Change some fields of a trainee. Only the flags given are sent; the other
fields stay as they are. "none" clears the phone number, the date of birth
or the expiration date.

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
			fs := cmd.Flags()
			var u client.TraineeUpdate
			if fs.Changed("name") {
				u.Name = api.Val(o.name)
			}
			if fs.Changed("email") {
				u.Email = api.Val(o.email)
			}
			if fs.Changed("password") || o.passwordStdin {
				pw, err := readPassword(f, fs.Changed("password"), o.password, o.passwordStdin, false)
				if err != nil {
					return err
				}
				u.Password = api.Val(pw)
			}
			if fs.Changed("phone") {
				if strings.EqualFold(o.phone, none) {
					u.PhoneNumber = api.Null[string]()
				} else {
					u.PhoneNumber = api.Val(o.phone)
				}
			}
			for _, d := range []struct {
				flag, val string
				dst       *api.Optional[api.Date]
			}{{"dob", o.dob, &u.DateOfBirth}, {"expires", o.expires, &u.ExpirationDate}} {
				switch {
				case !fs.Changed(d.flag):
				case strings.EqualFold(d.val, none):
					*d.dst = api.Null[api.Date]()
				default:
					v, err := cmdutil.ParseDate(d.val, f.Now())
					if err != nil {
						return fmt.Errorf("--%s: %w", d.flag, err)
					}
					*d.dst = api.Val(v)
				}
			}
			if fs.Changed("trainer") {
				u.TrainerID = api.Val(o.trainer)
			}
			if fs.Changed("weight-unit") {
				u.WeightUnit = api.Val(strings.ToUpper(o.weightUnit))
			}
			if fs.Changed("force-password-change") {
				u.ForcePasswordChange = api.Val(o.forcePasswordChange)
			}
			if u.IsEmpty() {
				return cmdutil.Usagef("nothing to change: give at least one flag, such as --name or --expires")
			}
			c, err := f.Client()
			if err != nil {
				return err
			}
			t, err := c.UpdateTrainee(cmd.Context(), id, u)
			if err != nil {
				return err
			}
			if f.IOStreams.StdoutTTY {
				fmt.Fprintf(f.IOStreams.ErrOut, "Updated trainee %d (%s)\n", t.ID, t.Name)
			}
			return printTrainees(f, []*api.Trainee{t}, true)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&o.name, "name", "", "new full name")
	fl.StringVar(&o.email, "email", "", "new e-mail address (the login changes with it)")
	fl.StringVar(&o.password, "password", "", "new password, 8 to 128 characters")
	fl.BoolVar(&o.passwordStdin, "password-stdin", false, "read the new password from the first line of stdin")
	fl.StringVar(&o.phone, "phone", "", `new phone number in international format, or "none" to clear it`)
	fl.StringVar(&o.dob, "dob", "", `new date of birth, or "none" to clear it`)
	fl.StringVar(&o.expires, "expires", "", `new expiration date, or "none" for no expiration`)
	fl.Int64Var(&o.trainer, "trainer", 0, "id of the new trainer")
	fl.StringVar(&o.weightUnit, "weight-unit", "", "KG or LB")
	fl.BoolVar(&o.forcePasswordChange, "force-password-change", false, "whether the trainee must change the password at the next login")
	cmd.MarkFlagsMutuallyExclusive("password", "password-stdin")
	_ = cmd.RegisterFlagCompletionFunc("weight-unit", fixedValues(api.UnitKG, api.UnitLB))
	_ = cmd.RegisterFlagCompletionFunc("dob", completeDates(true))
	_ = cmd.RegisterFlagCompletionFunc("expires", completeDates(true))
	_ = cmd.RegisterFlagCompletionFunc("phone", fixedValues(none+"\tclear the phone number"))
	for _, n := range []string{"name", "email", "password", "trainer"} {
		_ = cmd.RegisterFlagCompletionFunc(n, cobra.NoFileCompletions)
	}
	return cmd
}
