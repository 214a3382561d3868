package commands

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/cmd/traineectl/internal/bulkimport"
	"github.com/traineed/traineed/cmd/traineectl/internal/cmdutil"
)

func newCreateCmd(f *cmdutil.Factory) *cobra.Command {
	var o struct {
		name, email, password, phone, dob, expires, weightUnit string
		trainer                                                int64
		passwordStdin                                          bool
	}
	var b bulkOptions
	cmd := &cobra.Command{
		Use:   "create --name NAME --email EMAIL --password PASSWORD [flags] | create -f FILE [flags]",
		Short: "Create a trainee, or many from a file",
		Long: `Create one trainee. Name, e-mail and password are required; the rest is
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
Exit status 5 when any row failed, 0 when all are created or already done.`,
		Example: `  traineectl create --name "Ada Park" --email ada@example.com --password 'S3cret-pass'
  traineectl create --name "Ada Park" --email ada@example.com --phone "+44 7700 900123" \
      --dob 1990-03-02 --expires 31-12-2026 --trainer 7 --weight-unit LB
  printf '%s\n' "$PASSWORD" | traineectl create --name Ada --email ada@example.com --password-stdin -o json

  # Bulk: check, then import (run the same command again to resume)
  traineectl create -f clients.csv --dry-run
  traineectl create -f clients.csv --generate-passwords --results clients-results.csv
  crm-export | traineectl create -f - --format jsonl --journal import.journal -o json`,
		Args: cmdutil.ExactArgs(0, "no arguments: use flags"),
		RunE: func(cmd *cobra.Command, args []string) error {
			fs := cmd.Flags()
			if fs.Changed("file") {
				for _, n := range []string{"name", "email", "password", "password-stdin", "phone", "dob", "expires", "trainer", "weight-unit"} {
					if fs.Changed(n) {
						return cmdutil.Usagef("--%s cannot be used with -f: the file gives every field", n)
					}
				}
				return runBulk(cmd.Context(), f, &b)
			}
			for _, n := range bulkFlags {
				if fs.Changed(n) {
					return cmdutil.Usagef("--%s needs -f FILE", n)
				}
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
	fl.StringVarP(&b.file, "file", "f", "", "create the trainees of a CSV or JSON Lines file (- for stdin)")
	fl.StringVar(&b.format, "format", "", "format of -f: csv or jsonl (default: by the file's extension; required with -f -)")
	fl.BoolVar(&b.dryRun, "dry-run", false, "with -f: check every row and report; send nothing")
	fl.StringVar(&b.journal, "journal", "", "with -f: the import's journal (default: FILE.journal; required with -f -)")
	fl.IntVar(&b.parallel, "parallel", 4, "with -f: creates in flight at once (1 to 64)")
	fl.StringVar(&b.results, "results", "", "with -f: append a CSV line per row to this file (mode 0600)")
	fl.BoolVar(&b.generatePasswords, "generate-passwords", false, "with -f: generate a password for each row without one (written to --results only)")
	cmd.MarkFlagsMutuallyExclusive("password", "password-stdin")
	_ = cmd.RegisterFlagCompletionFunc("format", fixedValues(string(bulkimport.CSV), string(bulkimport.JSONL)))
	_ = cmd.RegisterFlagCompletionFunc("file", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return []string{"csv", "jsonl", "ndjson"}, cobra.ShellCompDirectiveFilterFileExt
	})
	_ = cmd.RegisterFlagCompletionFunc("parallel", cobra.NoFileCompletions)
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
