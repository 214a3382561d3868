package commands

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/cmd/traineectl/internal/cmdutil"
)

func newCreateCmd(f *cmdutil.Factory) *cobra.Command {
	var o struct {
		name, email, password, phone, dob, expires, weightUnit string
		trainer                                                int64
		passwordStdin                                          bool
		file, format                                           string
	}
	cmd := &cobra.Command{
		Use:   "create --name NAME --email EMAIL --password PASSWORD [flags]",
		Short: "Create a trainee",
		Long: `Create one trainee. Name, e-mail and password are required; the rest is
optional. Without --trainer the company's first trainer is assigned.

The password can also come from stdin (--password-stdin) or, on a terminal,
from a prompt, so that it does not stay in the shell history.

The new trainee is printed; with -o json it is the trainee object.
The API is not idempotent: creating the same e-mail or phone number twice is
refused (exit status 5, errorCode 1008 or 1009).`,
		Example: `  traineectl create --name "Ada Park" --email ada@example.com --password 'S3cret-pass'
  traineectl create --name "Ada Park" --email ada@example.com --phone "+44 7700 900123" \
      --dob 1990-03-02 --expires 31-12-2026 --trainer 7 --weight-unit LB
  printf '%s\n' "$PASSWORD" | traineectl create --name Ada --email ada@example.com --password-stdin -o json`,
		Args: cmdutil.ExactArgs(0, "no arguments: use flags"),
		RunE: func(cmd *cobra.Command, args []string) error {
			fs := cmd.Flags()
			if fs.Changed("file") || fs.Changed("format") {
				return cmdutil.Usagef("bulk creation (create -f) is not available yet in this version of traineectl")
			}
			if !fs.Changed("name") || !fs.Changed("email") {
				return cmdutil.Usagef("--name and --email are required")
			}
			req := api.CreateRequest{Name: o.name, Email: o.email}
			pw, err := readPassword(f, fs.Changed("password"), o.password, o.passwordStdin, true)
			if err != nil {
				return err
			}
			req.Password = pw
			if fs.Changed("phone") {
				req.PhoneNumber = &o.phone
			}
			for _, d := range []struct {
				flag, val string
				dst       **api.Date
			}{{"dob", o.dob, &req.DateOfBirth}, {"expires", o.expires, &req.ExpirationDate}} {
				if !fs.Changed(d.flag) {
					continue
				}
				v, err := cmdutil.ParseDate(d.val, f.Now())
				if err != nil {
					return fmt.Errorf("--%s: %w", d.flag, err)
				}
				*d.dst = &v
			}
			if fs.Changed("trainer") {
				req.TrainerID = &o.trainer
			}
			if fs.Changed("weight-unit") {
				req.WeightUnit = strings.ToUpper(o.weightUnit)
			}
			c, err := f.Client()
			if err != nil {
				return err
			}
			t, err := c.CreateTrainee(cmd.Context(), req)
			if err != nil {
				return err
			}
			if f.IOStreams.StdoutTTY {
				fmt.Fprintf(f.IOStreams.ErrOut, "Created trainee %d (%s)\n", t.ID, t.Name)
			}
			return printTrainees(f, []*api.Trainee{t}, true)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&o.name, "name", "", "full name (required)")
	fl.StringVar(&o.email, "email", "", "e-mail address, also the login (required)")
	fl.StringVar(&o.password, "password", "", "initial password, 8 to 128 characters; the trainee must change it at first login")
	fl.BoolVar(&o.passwordStdin, "password-stdin", false, "read the password from the first line of stdin")
	fl.StringVar(&o.phone, "phone", "", "phone number in international format, like +447700900123")
	fl.StringVar(&o.dob, "dob", "", "date of birth")
	fl.StringVar(&o.expires, "expires", "", "date on which the trainee's program expires")
	fl.Int64Var(&o.trainer, "trainer", 0, "id of the trainer (default: the company's first trainer)")
	fl.StringVar(&o.weightUnit, "weight-unit", "", "KG or LB (default KG)")
	fl.StringVarP(&o.file, "file", "f", "", "bulk creation from a file: not available yet")
	fl.StringVar(&o.format, "format", "", "format of -f: not available yet")
	_ = fl.MarkHidden("format")
	cmd.MarkFlagsMutuallyExclusive("password", "password-stdin")
	_ = cmd.RegisterFlagCompletionFunc("weight-unit", fixedValues(api.UnitKG, api.UnitLB))
	_ = cmd.RegisterFlagCompletionFunc("dob", completeDates(false))
	_ = cmd.RegisterFlagCompletionFunc("expires", completeDates(false))
	for _, n := range []string{"name", "email", "password", "phone", "trainer"} {
		_ = cmd.RegisterFlagCompletionFunc(n, cobra.NoFileCompletions)
	}
	return cmd
}

// readPassword takes the password from the flag, from stdin, or from a
// prompt on a terminal.
func readPassword(f *cmdutil.Factory, given bool, flagValue string, fromStdin, required bool) (string, error) {
	ios := f.IOStreams
	switch {
	case given:
		return flagValue, nil
	case fromStdin:
		pw, err := cmdutil.ReadLine(ios.In)
		if pw == "" {
			if err != nil {
				return "", fmt.Errorf("read the password from stdin: %w", err)
			}
			return "", cmdutil.Usagef("--password-stdin: stdin holds no password")
		}
		return pw, nil
	case required && ios.CanPrompt() && ios.ReadPassword != nil:
		fmt.Fprint(ios.ErrOut, "Password: ")
		pw, err := ios.ReadPassword()
		fmt.Fprintln(ios.ErrOut)
		if err != nil {
			return "", err
		}
		return pw, nil
	case required:
		return "", cmdutil.Usagef("--password (or --password-stdin) is required")
	}
	return "", nil
}
