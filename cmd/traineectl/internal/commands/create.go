package commands

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/cmd/traineectl/internal/cmdutil"
)

// CreateOptions are the inputs of `traineectl create` for one trainee (the
// bulk import, create -f, takes BulkOptions). A nil pointer is a flag not
// given.
type CreateOptions struct {
	Name, Email   string
	Password      *string // nil: from stdin (PasswordStdin) or a prompt
	PasswordStdin bool
	Phone         *string
	DateOfBirth   *string // as typed: see cmdutil.ParseDate
	Expires       *string // as typed: see cmdutil.ParseDate
	TrainerID     *int64
	WeightUnit    string // any case; "": the server's default
}

const createLong = `Create one trainee. Name, e-mail and password are required; the rest is
optional. Without --trainer the company's first trainer is assigned.

The password can also come from stdin (--password-stdin) or, on a terminal,
from a prompt, so that it does not stay in the shell history.

The new trainee is printed; with -o json it is the trainee object.
The API is not idempotent: creating the same e-mail or phone number twice is
refused (exit status 5, errorCode 1008 or 1009).

With -f FILE, create every trainee of a file: CSV with a header row naming
the columns (name, email, password, phoneNumber or phone, dateOfBirth or
dob, expirationDate or expires, trainerId or trainer, weightUnit, and an
optional requestId; any case; an unknown column is an error), or JSON Lines
(one create body per line). The format comes from the extension (.csv,
.jsonl, .ndjson) or --format, which -f - (stdin) needs. Every row is first
checked with the server's own rules; --dry-run stops there and sends
nothing. Invalid rows are reported and not sent, the others are created
--parallel at a time.

The import is safe to repeat: a journal (--journal, default FILE.journal)
records each row's request id before its create goes out and the outcome
after. Run the same command again after a failure, an interruption or even
kill -9: rows already created are reported as already done, a row whose
outcome is unknown is looked up by its e-mail before anything is sent again,
and every row ends up created once.

--results PATH appends a CSV line per row (row, requestId, traineeId, email,
status, errorCode, message, password), mode 0600. --generate-passwords gives
each row without a password a random one, written to the results file only.
With -o json (yaml, csv) the records go to stdout, passwords left out.
Exit status 5 when any row failed, 0 when all are created or already done.`

const createExample = `  traineectl create --name "Ada Park" --email ada@example.com --password 'S3cret-pass'
  traineectl create --name "Ada Park" --email ada@example.com --phone "+44 7700 900123" \
      --dob 1990-03-02 --expires 31-12-2026 --trainer 7 --weight-unit LB
  printf '%s\n' "$PASSWORD" | traineectl create --name Ada --email ada@example.com --password-stdin -o json

  # Bulk: check, then import (run the same command again to resume)
  traineectl create -f clients.csv --dry-run
  traineectl create -f clients.csv --generate-passwords --results clients-results.csv
  crm-export | traineectl create -f - --format jsonl --journal import.journal -o json`

func newCreateCmd(f *cmdutil.Factory) *cobra.Command {
	var (
		one  createFlags
		bulk BulkOptions
	)
	cmd := &cobra.Command{
		Use:     "create --name NAME --email EMAIL --password PASSWORD [flags] | create -f FILE [flags]",
		Short:   "Create a trainee, or many from a file",
		Long:    createLong,
		Example: createExample,
		Args:    cmdutil.ExactArgs(0, "no arguments: use flags"),
		RunE: func(cmd *cobra.Command, args []string) error {
			fs := cmd.Flags()
			if err := checkCreateFlags(fs); err != nil {
				return err
			}
			if fs.Changed("file") {
				return runBulk(cmd.Context(), f, &bulk)
			}
			return runCreate(cmd.Context(), f, one.options(fs))
		},
	}
	one.register(cmd)
	bulk.register(cmd)
	cmd.MarkFlagsMutuallyExclusive("password", "password-stdin")
	return cmd
}

// createFlags are the flags of one trainee, as typed.
type createFlags struct {
	name, email, password, phone, dob, expires, weightUnit string
	trainer                                                int64
	passwordStdin                                          bool
}

// oneFlags are the flags that make no sense with -f.
var oneFlags = []string{"name", "email", "password", "password-stdin", "phone", "dob", "expires", "trainer", "weight-unit"}

func (c *createFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&c.name, "name", "", "full name (required)")
	fl.StringVar(&c.email, "email", "", "e-mail address, also the login (required)")
	fl.StringVar(&c.password, "password", "", "initial password, 8 to 128 characters; the trainee must change it at first login")
	fl.BoolVar(&c.passwordStdin, "password-stdin", false, "read the password from the first line of stdin")
	fl.StringVar(&c.phone, "phone", "", "phone number in international format, like +447700900123")
	fl.StringVar(&c.dob, "dob", "", "date of birth")
	fl.StringVar(&c.expires, "expires", "", "date on which the trainee's program expires")
	fl.Int64Var(&c.trainer, "trainer", 0, "id of the trainer (default: the company's first trainer)")
	fl.StringVar(&c.weightUnit, "weight-unit", "", "KG or LB (default KG)")
	_ = cmd.RegisterFlagCompletionFunc("weight-unit", fixedValues(api.UnitKG, api.UnitLB))
	_ = cmd.RegisterFlagCompletionFunc("dob", completeDates(false))
	_ = cmd.RegisterFlagCompletionFunc("expires", completeDates(false))
	for _, n := range []string{"name", "email", "password", "phone", "trainer"} {
		_ = cmd.RegisterFlagCompletionFunc(n, cobra.NoFileCompletions)
	}
}

// options are the CreateOptions of the flags given.
func (c *createFlags) options(fs *pflag.FlagSet) *CreateOptions {
	return &CreateOptions{
		Name:          c.name,
		Email:         c.email,
		Password:      ifChanged(fs, "password", &c.password),
		PasswordStdin: c.passwordStdin,
		Phone:         ifChanged(fs, "phone", &c.phone),
		DateOfBirth:   ifChanged(fs, "dob", &c.dob),
		Expires:       ifChanged(fs, "expires", &c.expires),
		TrainerID:     ifChanged(fs, "trainer", &c.trainer),
		WeightUnit:    c.weightUnit,
	}
}

// ifChanged is v when the flag name was given, else nil.
func ifChanged[T any](fs *pflag.FlagSet, name string, v *T) *T {
	if fs.Changed(name) {
		return v
	}
	return nil
}

// checkCreateFlags refuses a mix of one trainee's flags and -f, the bulk
// flags without -f, and one trainee without --name and --email.
func checkCreateFlags(fs *pflag.FlagSet) error {
	if fs.Changed("file") {
		for _, n := range oneFlags {
			if fs.Changed(n) {
				return cmdutil.Usagef("--%s cannot be used with -f: the file gives every field", n)
			}
		}
		return nil
	}
	for _, n := range bulkFlags {
		if fs.Changed(n) {
			return cmdutil.Usagef("--%s needs -f FILE", n)
		}
	}
	if !fs.Changed("name") || !fs.Changed("email") {
		return cmdutil.Usagef("--name and --email are required")
	}
	return nil
}

// runCreate creates one trainee and prints it.
func runCreate(ctx context.Context, f *cmdutil.Factory, o *CreateOptions) error {
	req, err := o.request(f)
	if err != nil {
		return err
	}
	c, err := f.Client()
	if err != nil {
		return err
	}
	t, err := c.CreateTrainee(ctx, req)
	if err != nil {
		return err
	}
	noteTrainee(f, "Created", t)
	return printTrainees(ctx, f, []*api.Trainee{t}, true)
}

// request is the create body: the password read (flag, stdin or prompt),
// then the dates read.
func (o *CreateOptions) request(f *cmdutil.Factory) (api.CreateRequest, error) {
	req := api.CreateRequest{Name: o.Name, Email: o.Email, PhoneNumber: o.Phone, TrainerID: o.TrainerID,
		WeightUnit: strings.ToUpper(o.WeightUnit)}
	if o.Phone != nil && clears(*o.Phone) {
		req.PhoneNumber = nil // --phone "" or none: no phone number
	}
	var err error
	if req.Password, err = readPassword(f, o.Password, o.PasswordStdin, true); err != nil {
		return req, err
	}
	if err := checkTexts(req); err != nil {
		return req, err
	}
	if req.DateOfBirth, err = optionalDate(f, "dob", o.DateOfBirth); err != nil {
		return req, err
	}
	req.ExpirationDate, err = optionalDate(f, "expires", o.Expires)
	return req, err
}

// checkTexts refuses, before anything is sent, text the server would
// refuse for a control character (api.CheckText, errorCode 1016).
func checkTexts(r api.CreateRequest) error {
	texts := [][2]string{{"name", r.Name}, {"email", r.Email}, {"password", r.Password}}
	if r.PhoneNumber != nil {
		texts = append(texts, [2]string{"phone", *r.PhoneNumber})
	}
	for _, t := range texts {
		if err := api.CheckText(t[0], t[1]); err != nil {
			return cmdutil.Usagef("--%s: %v", t[0], err)
		}
	}
	return nil
}

// optionalDate reads the date of a flag; nil, "" and "none" are no date.
func optionalDate(f *cmdutil.Factory, flag string, s *string) (*api.Date, error) {
	if s == nil || clears(*s) {
		return nil, nil
	}
	d, err := parseDateFlag(f, flag, *s)
	if err != nil {
		return nil, err
	}
	return &d, nil
}

// readPassword takes the password from the flag (nil: not given), from
// stdin, or from a prompt on a terminal.
func readPassword(f *cmdutil.Factory, flag *string, fromStdin, required bool) (string, error) {
	ios := f.IOStreams
	switch {
	case flag != nil:
		return *flag, nil
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
