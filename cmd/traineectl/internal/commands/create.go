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

// CreateOptions are the inputs of `traineectl create` for one trainee (the
// bulk import, create -f, takes BulkOptions).
type CreateOptions struct {
	// Values are the texts of the flags given, by flag name: one flag per
	// create field of api.TraineePatch. The password, when not given, comes
	// from stdin (PasswordStdin) or a prompt.
	Values        map[string]string
	PasswordStdin bool
	// PhoneRegion is --phone-region: --phone without + is a national
	// number of it ("": the company's country, by its time zone).
	PhoneRegion string
	// AllowErased creates the trainee even when its e-mail or phone number
	// is that of a trainee erased from the company (--allow-erased);
	// otherwise the create is sent with Traineed-Refuse-Erased.
	AllowErased bool
	// Bulk is create -f's import; nil: one trainee, from Values.
	Bulk *BulkOptions
}

var createLong = fieldsHelp(`Create one trainee. Name, e-mail and password are required; the rest is
optional. Without --trainer the company's first trainer is assigned.

The password can also come from stdin (--password-stdin) or, on a terminal,
from a prompt, so that it does not stay in the shell history.

The new trainee is printed; with -o json it is the trainee object.
The API is not idempotent: creating the same e-mail or phone number twice is
refused (exit status 5, errorCode 1008 or 1009). So is the e-mail or phone
number of a trainee erased from the company ("erased on DATE", errorCode
1038), unless --allow-erased: the person really is to come back.

With -f FILE, create every trainee of a file: CSV with a header row naming
the columns ({createColumns}; any case; an unknown column is an error), or JSON Lines
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

A row whose e-mail or phone number is that of a trainee erased from the
company is skipped ("! erased on DATE"; status erased), so that a stale file
does not bring an erased person back; --dry-run asks the server which rows
those are (a read), and --allow-erased imports them anyway.
Exit status 5 when any row failed, 0 when all are created, already done or
skipped as erased.`)

const createExample = `  traineectl create --name "Ada Park" --email ada@example.com --password 'S3cret-pass'
  traineectl create --name "Ada Park" --email ada@example.com --phone "+44 7700 900123" \
      --dob 1990-03-02 --expires 31-12-2026 --trainer 7 --weight-unit LB
  printf '%s\n' "$PASSWORD" | traineectl create --name Ada --email ada@example.com --password-stdin -o json

  # Bulk: check, then import (run the same command again to resume)
  traineectl create -f clients.csv --dry-run
  traineectl create -f clients.csv --generate-passwords --results clients-results.csv
  crm-export | traineectl create -f - --format jsonl --journal import.journal -o json`

func newCreateCmd(f *cmdutil.Factory, runF func(*CreateOptions) error) *cobra.Command {
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
			o := one.options(fs)
			o.PhoneRegion, o.AllowErased = bulk.PhoneRegion, bulk.AllowErased
			if fs.Changed("phone-region") && !fs.Changed("phone") && !fs.Changed("file") {
				return cmdutil.Usagef("--phone-region needs --phone or -f FILE: it says how to read a number without +")
			}
			if err := checkPhoneRegion(o.PhoneRegion); err != nil {
				return err
			}
			if fs.Changed("file") {
				o = &CreateOptions{Bulk: &bulk}
			}
			return runWith(cmd.Context(), f, o, runF, runCreate)
		},
	}
	one.register(cmd, completeTrainerIDs(f))
	bulk.register(cmd)
	cmd.MarkFlagsMutuallyExclusive("password", "password-stdin")
	return cmd
}

// createFlags are the flags of one trainee, as typed: a flag for every
// create field of api.TraineePatch (its flag, with its createHelp), and
// --password-stdin.
type createFlags struct {
	values        map[string]*string // flag name -> its text
	passwordStdin bool
}

// oneFlags are the flags that make no sense with -f.
var oneFlags = func() []string {
	var out []string
	for _, pf := range api.CreateFields {
		if pf.Flag != "" {
			out = append(out, pf.Flag)
		}
	}
	return append(out, "password-stdin")
}()

func (c *createFlags) register(cmd *cobra.Command, trainers cobra.CompletionFunc) {
	fl := cmd.Flags()
	c.values = map[string]*string{}
	for _, pf := range api.CreateFields {
		if pf.Flag == "" {
			continue
		}
		v := new(string)
		c.values[pf.Flag] = v
		switch {
		case pf.Flag == "trainer": // an id or a name: resolveTrainer
			fl.StringVar(v, pf.Flag, "", pf.CreateHelp)
		case pf.Kind == api.KindInteger:
			fl.Var(intText{v}, pf.Flag, pf.CreateHelp)
		case pf.Kind == api.KindBoolean:
			fl.Var(boolText{v}, pf.Flag, pf.CreateHelp)
			fl.Lookup(pf.Flag).NoOptDefVal = "true"
		default:
			fl.StringVar(v, pf.Flag, "", pf.CreateHelp)
		}
		complete := cobra.NoFileCompletions
		switch {
		case pf.Flag == "trainer":
			complete = trainers
		case pf.Kind == api.KindDate:
			complete = completeDates(false)
		case len(pf.Enum) > 0:
			complete = fixedValues(pf.Enum...)
		}
		_ = cmd.RegisterFlagCompletionFunc(pf.Flag, complete)
		if pf.Flag == "password" {
			fl.BoolVar(&c.passwordStdin, "password-stdin", false, "read the password from the first line of stdin")
		}
	}
}

// options are the CreateOptions of the flags given.
func (c *createFlags) options(fs *pflag.FlagSet) *CreateOptions {
	o := &CreateOptions{Values: map[string]string{}, PasswordStdin: c.passwordStdin}
	for name, v := range c.values {
		if fs.Changed(name) {
			o.Values[name] = *v
		}
	}
	return o
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

// runCreate creates one trainee and prints it, or runs the import of -f.
func runCreate(ctx context.Context, f *cmdutil.Factory, o *CreateOptions) error {
	if o.Bulk != nil {
		return runBulk(ctx, f, o.Bulk)
	}
	// A trainer's name is looked up once the other flags are known good.
	trainer, named := o.Values["trainer"]
	if named = named && !isWholeNumber(trainer) && strings.TrimSpace(trainer) != ""; named {
		delete(o.Values, "trainer")
	}
	if text, ok := o.Values["phone"]; ok && !clears(text) {
		v, err := phoneFlag(ctx, f, o.PhoneRegion, text)
		if err != nil {
			return err
		}
		o.Values["phone"] = v
	}
	req, err := o.request(f)
	if err != nil {
		return err
	}
	if named {
		text, err := resolveTrainer(ctx, f, trainer)
		if err != nil {
			return err
		}
		id, _ := strconv.ParseInt(text, 10, 64)
		req.TrainerID = &id
	}
	c, err := f.Client()
	if err != nil {
		return err
	}
	var opts []client.RequestOption
	if !o.AllowErased {
		opts = append(opts, client.RefuseErased())
	}
	t, err := c.CreateTrainee(ctx, req, opts...)
	if erased := (*client.ErasedError)(nil); errors.As(err, &erased) {
		return fmt.Errorf("%w: --allow-erased creates them anyway", err)
	}
	if err != nil {
		return err
	}
	noteTrainee(f, "Created", t)
	return printTrainees(ctx, f, []*api.Trainee{t}, true)
}

// request is the create body: the password read (flag, stdin or prompt),
// then every create field's flag in the order of api.TraineePatch (text
// checked by its field's characters, api.PatchField.CheckText: control
// characters, and invisible ones in a name, an e-mail address or a phone
// number; dates read, an enum upper-cased). An
// empty value (or "none" for a nullable field) leaves an optional field
// out.
func (o *CreateOptions) request(f *cmdutil.Factory) (api.CreateRequest, error) {
	var p api.TraineePatch
	for _, pf := range api.CreateFields {
		if !pf.WriteOnly {
			continue
		}
		var flag *string
		if v, ok := o.Values[pf.Flag]; ok {
			flag = &v
		}
		pw, err := readPassword(f, flag, o.PasswordStdin, pf.Create == api.CreateRequired)
		if err != nil {
			return api.CreateRequest{}, err
		}
		o.Values[pf.Flag] = pw
	}
	for _, pf := range api.CreateFields {
		text, given := o.Values[pf.Flag]
		if !given || pf.Create != api.CreateRequired && (text == "" || pf.Nullable && clears(text)) {
			continue
		}
		v, err := createValue(f, pf, text)
		if err != nil {
			return api.CreateRequestOf(p), err
		}
		pf.Set(&p, v)
	}
	return api.CreateRequestOf(p), nil
}

// createValue reads the text of a create flag as its field's value.
func createValue(f *cmdutil.Factory, pf *api.PatchField, text string) (any, error) {
	switch {
	case pf.Kind == api.KindDate:
		return parseDateFlag(f, pf.Flag, text)
	case pf.Kind == api.KindInteger:
		n, err := strconv.ParseInt(text, 0, 64) // checked by the flag, or a trainer's id
		if err != nil {
			return nil, cmdutil.Usagef("--%s must be a whole number, not %q", pf.Flag, text)
		}
		return n, nil
	case len(pf.Enum) > 0:
		return strings.ToUpper(text), nil // the server checks it
	}
	// Text is checked by its field's characters (pf.CheckText); the rest is
	// the server's.
	v, err := pf.ParseText(text, f.Now())
	if err != nil {
		return nil, cmdutil.Usagef("--%s: %v", pf.Flag, err)
	}
	return v, nil
}

// intText is an integer flag kept as text, as pflag's int64 flag reads
// it (its help says "int").
type intText struct{ v *string }

func (i intText) String() string {
	if i.v == nil {
		return ""
	}
	return *i.v
}
func (i intText) Set(s string) error {
	n, err := strconv.ParseInt(s, 0, 64)
	if err != nil {
		return err
	}
	*i.v = strconv.FormatInt(n, 10)
	return nil
}
func (i intText) Type() string { return "int64" }

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
