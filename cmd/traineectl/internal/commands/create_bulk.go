package commands

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/client"
	"github.com/traineed/traineed/cmd/traineectl/internal/bulkimport"
	"github.com/traineed/traineed/cmd/traineectl/internal/cmdutil"
	"github.com/traineed/traineed/cmd/traineectl/internal/output"
)

// BulkOptions are the inputs of `traineectl create -f`.
type BulkOptions struct {
	File    string // the input; "-": stdin
	Format  string // csv or jsonl; "": by File's extension
	Journal string // "": FILE.journal
	Results string // "": no results file
	DryRun  bool
	// GeneratePasswords gives each row without a password a random one.
	GeneratePasswords bool
	Parallel          int // creates in flight at once
	// Map and MapFile are the column map (--map, --map-file).
	Map, MapFile string
	// PhoneRegion is the region national phone numbers are read in
	// (--phone-region GB); "": the company's, by its time zone.
	PhoneRegion string
	// AllowErased imports the rows of people erased from the company
	// (--allow-erased); by default they are skipped. It is also create's
	// for one trainee (CreateOptions.AllowErased).
	AllowErased bool

	key *api.CurrentKey // GET /keys/current, once read (currentKey)

	apply bool // read for apply -f (bulkimport.ReadOptions.Apply)
}

// bulkFlags are the flags that only mean something with -f.
var bulkFlags = []string{"format", "dry-run", "journal", "parallel", "results", "generate-passwords", "map", "map-file"}

// maxParallel bounds --parallel.
const maxParallel = 64

// fileFlagsHelp is the help of the flags of a file's run that differ
// between create -f and apply; prefix starts the others'.
type fileFlagsHelp struct {
	prefix, file, dryRun, journal, parallel, generate, erased string
}

// register adds create -f's flags.
func (o *BulkOptions) register(cmd *cobra.Command) {
	o.registerFile(cmd, fileFlagsHelp{prefix: "with -f: ",
		file:     "create the trainees of a CSV, JSON Lines, YAML or JSON file (- for stdin)",
		dryRun:   "with -f: check every row and report; send nothing",
		journal:  "with -f: the import's journal (default: FILE.journal; required with -f -)",
		parallel: "with -f: creates in flight at once (1 to 64)",
		generate: "with -f: generate a password for each row without one (written to --results only)",
		erased:   "create people erased from the company too (by default -f skips their rows, '! erased on DATE', and one trainee's create is refused)"})
}

// registerFile adds the flags of a file's run (create -f, apply), with
// their completions.
func (o *BulkOptions) registerFile(cmd *cobra.Command, h fileFlagsHelp) {
	fl := cmd.Flags()
	fl.StringVarP(&o.File, "file", "f", "", h.file)
	fl.StringVar(&o.Format, "format", "", "format of -f: csv, jsonl, yaml or json (default: by the file's extension; required with -f -)")
	fl.BoolVar(&o.DryRun, "dry-run", false, h.dryRun)
	fl.StringVar(&o.Journal, "journal", "", h.journal)
	fl.IntVar(&o.Parallel, "parallel", 4, h.parallel)
	fl.StringVar(&o.Results, "results", "", h.prefix+"append a CSV line per row to this file (mode 0600)")
	fl.BoolVar(&o.GeneratePasswords, "generate-passwords", false, h.generate)
	o.registerMap(cmd, h.prefix)
	fl.StringVar(&o.PhoneRegion, "phone-region", "", "read phone numbers without + as national numbers of this country (GB, US, ...; default: the company's, by its time zone)")
	fl.BoolVar(&o.AllowErased, "allow-erased", false, h.erased)
	_ = cmd.RegisterFlagCompletionFunc("phone-region", fixedValues("GB", "IE", "US", "CA", "DE", "FR", "ES", "IT", "NL", "AU", "NZ"))
	registerFileCompletions(cmd)
}

// registerMap registers --map and --map-file.
func (o *BulkOptions) registerMap(cmd *cobra.Command, prefix string) {
	fl := cmd.Flags()
	fl.StringVar(&o.Map, "map", "", prefix+"column map 'Header=field[:DATE LAYOUT],...', like 'E-mail Address=email,Birthday=dateOfBirth:MM/DD/YYYY'")
	fl.StringVar(&o.MapFile, "map-file", "", prefix+"read the column map from this file (an entry a line; see docs/maps)")
	cmd.MarkFlagsMutuallyExclusive("map", "map-file")
	_ = cmd.RegisterFlagCompletionFunc("map", cobra.NoFileCompletions)
	_ = cmd.RegisterFlagCompletionFunc("map-file", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return []string{"map"}, cobra.ShellCompDirectiveFilterFileExt
	})
}

// registerFileCompletions completes --format and -f.
func registerFileCompletions(cmd *cobra.Command) {
	_ = cmd.RegisterFlagCompletionFunc("format", fixedValues(string(bulkimport.CSV), string(bulkimport.JSONL), string(bulkimport.YAML), string(bulkimport.JSON)))
	_ = cmd.RegisterFlagCompletionFunc("file", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return []string{"csv", "jsonl", "ndjson", "yaml", "yml", "json"}, cobra.ShellCompDirectiveFilterFileExt
	})
	_ = cmd.RegisterFlagCompletionFunc("parallel", cobra.NoFileCompletions)
}

// runBulk is `traineectl create -f`: read and check every row, then (unless
// a dry run) create the valid ones through the journal.
func runBulk(ctx context.Context, f *cmdutil.Factory, o *BulkOptions) error {
	format, journalPath, err := o.check()
	if err != nil {
		return err
	}
	rows, err := o.read(ctx, f, format)
	if err != nil {
		return err
	}
	if o.DryRun {
		return o.bulkDryRun(ctx, f, rows, journalPath)
	}
	if err := f.RequireFullKey(ctx, "traineectl create -f"); err != nil {
		return err
	}
	j, results, err := o.openOutputs(ctx, f, journalPath)
	if err != nil {
		return err
	}
	defer j.Close()
	return o.run(ctx, f, rows, j, results)
}

// openOutputs opens the journal (started for the server it names) and,
// with --results, the results file: what create -f and apply -f write.
func (o *BulkOptions) openOutputs(ctx context.Context, f *cmdutil.Factory, journalPath string) (*bulkimport.Journal, *bulkimport.Results, error) {
	j, err := bulkimport.OpenJournal(journalPath)
	if err != nil {
		return nil, nil, err
	}
	if err := o.startJournal(ctx, f, j, journalPath); err != nil {
		j.Close()
		return nil, nil, err
	}
	var results *bulkimport.Results
	if o.Results != "" {
		if results, err = bulkimport.OpenResults(o.Results); err != nil {
			j.Close()
			return nil, nil, err
		}
	}
	return j, results, nil
}

// check checks the options before anything is read: it gives the input's
// format and the journal's path.
func (o *BulkOptions) check() (format bulkimport.Format, journalPath string, err error) {
	if format, err = bulkFormat(o); err != nil {
		return "", "", err
	}
	if o.Parallel < 1 || o.Parallel > maxParallel {
		return "", "", cmdutil.Usagef("--parallel must be 1 to %d", maxParallel)
	}
	if err := checkPhoneRegion(o.PhoneRegion); err != nil {
		return "", "", err
	}
	journalPath = o.Journal
	if journalPath == "" && o.File != "-" {
		journalPath = o.File + ".journal"
	}
	if o.DryRun {
		return format, journalPath, nil
	}
	if journalPath == "" {
		return "", "", cmdutil.Usagef("-f - (stdin) needs --journal PATH: the journal is what makes a second run safe")
	}
	if o.GeneratePasswords && o.Results == "" {
		return "", "", cmdutil.Usagef("--generate-passwords needs --results PATH: generated passwords are written there and nowhere else")
	}
	return format, journalPath, distinctFiles(o.File, journalPath, o.Results)
}

// read reads and checks every row of the input; a malformed input as a
// whole is a usage error.
func (o *BulkOptions) read(ctx context.Context, f *cmdutil.Factory, format bulkimport.Format) ([]bulkimport.Row, error) {
	cmap, err := o.columnMap()
	if err != nil {
		return nil, err
	}
	in, name := f.IOStreams.In, "stdin"
	if o.File != "-" {
		fh, err := os.Open(o.File)
		if err != nil {
			return nil, fmt.Errorf("open the input: %w", err)
		}
		defer fh.Close()
		in, name = fh, o.File
	}
	input, err := bulkimport.ReadInput(in, bulkimport.ReadOptions{Format: format, Today: f.Today(),
		GeneratePasswords: o.GeneratePasswords, Map: cmap, Apply: o.apply, Trainer: cellTrainers(ctx, f),
		PhoneRegion: o.phoneRegion(ctx, f)})
	var ie *bulkimport.InputError
	if errors.As(err, &ie) {
		return nil, &cmdutil.UsageError{Err: fmt.Errorf("%s: %w", name, err)}
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	if len(input.Ignored) > 0 {
		q := make([]string, len(input.Ignored))
		for i, c := range input.Ignored {
			q[i] = strconv.Quote(c)
		}
		fmt.Fprintf(f.IOStreams.ErrOut, "note: %s: column(s) not imported: %s\n", name, api.EscapeText(strings.Join(q, ", ")))
	}
	for _, c := range input.Collisions {
		fmt.Fprintf(f.IOStreams.ErrOut, "note: %s: %s\n", name, api.EscapeText(c.String()))
	}
	notePhones(f, name, input.Converted)
	return input.Rows, nil
}

// columnMap reads --map or --map-file (nil when neither is given); a bad
// map is a usage error.
func (o *BulkOptions) columnMap() (*bulkimport.ColumnMap, error) {
	switch {
	case o.Map != "":
		m, err := bulkimport.ParseMap(o.Map)
		if err != nil {
			return nil, &cmdutil.UsageError{Err: err}
		}
		return m, nil
	case o.MapFile != "":
		fh, err := os.Open(o.MapFile)
		if err != nil {
			return nil, fmt.Errorf("open the column map: %w", err)
		}
		defer fh.Close()
		m, err := bulkimport.ReadMap(fh, o.MapFile)
		if err != nil {
			return nil, &cmdutil.UsageError{Err: err}
		}
		return m, nil
	}
	return nil, nil
}

// run imports the rows with a progress bar on stderr, closes the results
// file and the journal, prints the summary and the records, and gives the
// exit status.
func (o *BulkOptions) run(ctx context.Context, f *cmdutil.Factory, rows []bulkimport.Row, j *bulkimport.Journal, results *bulkimport.Results) error {
	ios := f.IOStreams
	prog := bulkimport.NewProgress(ios.ErrOut, ios.StderrTTY, ios.ErrColorEnabled(), len(rows), nil)
	srv, err := o.clientAPI(f, prog)
	if err != nil {
		return err
	}
	prog.Start()
	sum, records, runErr := bulkimport.Run(ctx, rows, bulkimport.Options{
		API: srv, Journal: j, Results: results, Parallel: o.Parallel, OnRecord: prog.Record,
	})
	prog.Stop()
	return finishRun(f, j, results, sum, sum.Text(), records, runErr)
}

// finishRun ends a run of create -f or apply whose outcome is runErr:
// it closes the results file (when any) and the journal, prints the
// summary line and the records, and gives the exit status.
func finishRun(f *cmdutil.Factory, j *bulkimport.Journal, results *bulkimport.Results, sum bulkimport.Summary, line string,
	records []bulkimport.Record, runErr error) error {
	if results != nil {
		if err := results.Close(); err != nil && runErr == nil {
			runErr = err
		}
	}
	if err := j.Close(); err != nil && runErr == nil {
		runErr = err
	}
	fmt.Fprintln(f.IOStreams.ErrOut, line)
	if err := printRecords(f, records); err != nil {
		return err
	}
	return bulkExit(sum, runErr)
}

// clientAPI is the import's view of the server: clients sharing one
// transport sized for --parallel, whose trace (-v) passes above the bar,
// and whose creates carry the row's request id.
func (o *BulkOptions) clientAPI(f *cmdutil.Factory, prog *bulkimport.Progress) (bulkimport.ClientAPI, error) {
	build, err := parallelClients(f, o.Parallel, prog)
	if err != nil {
		return bulkimport.ClientAPI{}, err
	}
	return bulkimport.ClientAPI{
		RefuseErased: !o.AllowErased,
		Lookup:       build(),
		ForRequest: func(rid string) *client.Client {
			return build(client.WithRequestIDs(func() string { return rid }))
		},
	}, nil
}

// parallelClients builds the clients of a run that sends parallel
// requests (create -f, apply -f, update --ids): they share one transport
// that keeps a connection per worker, and with -v their trace goes to
// trace, so that it passes above the progress bar.
func parallelClients(f *cmdutil.Factory, parallel int, trace io.Writer) (func(...client.Option) *client.Client, error) {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = parallel + 2
	build, err := f.ClientBuilder(client.WithHTTPClient(&http.Client{Transport: tr}))
	if err != nil {
		return nil, err
	}
	var extra []client.Option
	if f.Global.Verbose {
		extra = append(extra, client.WithVerbose(trace))
	}
	return func(opts ...client.Option) *client.Client { return build(append(slices.Clone(extra), opts...)...) }, nil
}

// bulkExit is the outcome of an import: a server that kept failing exits
// like an unreachable one, a failed row with status 5.
func bulkExit(sum bulkimport.Summary, runErr error) error {
	if sf := (*bulkimport.ServerFailingError)(nil); errors.As(runErr, &sf) {
		// Stopped like for an unreachable server, with its exit status.
		return &cmdutil.StatusError{Code: cmdutil.ExitFailure, Err: runErr}
	}
	if runErr != nil {
		return runErr
	}
	if sum.Failures() > 0 {
		return &cmdutil.ReportedError{Code: cmdutil.ExitRejected}
	}
	return nil
}

// bulkFormat is --format, else the file's extension.
func bulkFormat(o *BulkOptions) (bulkimport.Format, error) {
	if o.Format != "" {
		fm, err := bulkimport.ParseFormat(o.Format)
		if err != nil {
			return "", &cmdutil.UsageError{Err: fmt.Errorf("--format: %w", err)}
		}
		return fm, nil
	}
	if o.File == "-" {
		return "", cmdutil.Usagef("-f - (stdin) needs --format csv, jsonl, yaml or json")
	}
	fm, ok := bulkimport.FormatOf(o.File)
	if !ok {
		return "", cmdutil.Usagef("cannot tell the format of %s from its extension (.csv, .jsonl, .ndjson, .yaml, .yml, .json): give --format csv, jsonl, yaml or json", o.File)
	}
	return fm, nil
}

// distinctFiles refuses an input, journal or results file that is another.
func distinctFiles(input, journal, results string) error {
	abs := func(p string) string {
		if a, err := filepath.Abs(p); err == nil {
			return a
		}
		return p
	}
	if input != "-" && abs(input) == abs(journal) {
		return cmdutil.Usagef("--journal must not be the input file")
	}
	if results != "" && (abs(results) == abs(journal) || input != "-" && abs(results) == abs(input)) {
		return cmdutil.Usagef("--results must be a file of its own, neither the input nor the journal")
	}
	return nil
}

// bulkDryRun prints what an import would do.
func (o *BulkOptions) bulkDryRun(ctx context.Context, f *cmdutil.Factory, rows []bulkimport.Row, journalPath string) error {
	var j *bulkimport.Journal
	if journalPath != "" {
		var err error
		if j, err = bulkimport.ReadJournal(journalPath); err != nil {
			return err
		}
		if err := o.checkJournalOwner(ctx, f, j, journalPath); err != nil {
			return err
		}
	}
	c := bulkimport.CheckRows(rows, j)
	var askErr error
	if c.ToSend > 0 {
		askErr = o.markErased(f, true, func(allow bool) error {
			cl, err := f.Client()
			if err != nil {
				return err
			}
			return c.MarkErased(ctx, bulkimport.ClientAPI{Lookup: cl}, rows, j, allow)
		})
	}
	if err := f.Print(checkView(c)); err != nil {
		return err
	}
	if askErr != nil {
		// The report above lacks the erased rows: not the run's verdict.
		return fmt.Errorf("the report above does not tell the rows of erased people: %w", askErr)
	}
	if c.Invalid > 0 {
		return &cmdutil.ReportedError{Code: cmdutil.ExitRejected}
	}
	return nil
}

// markErased runs mark, the plan's or the dry run's erased-check, with
// allow set by --allow-erased; a run (not dryRun) with --allow-erased
// skips it, its rows being sent anyway. A server without the check (an
// older traineed: 404) is noted on stderr and skipped: it ignores
// Traineed-Refuse-Erased too, so its run creates those rows, as this
// verdict then says.
func (o *BulkOptions) markErased(f *cmdutil.Factory, dryRun bool, mark func(allow bool) error) error {
	if o.AllowErased && !dryRun {
		return nil
	}
	err := mark(o.AllowErased)
	var rej *client.RejectedError
	if errors.As(err, &rej) && rej.Status == http.StatusNotFound {
		fmt.Fprintln(f.IOStreams.ErrOut, "note: this server does not tell the rows of erased people (no POST /public-api/trainees/erased-check): none is skipped")
		return nil
	}
	return err
}

// checkView is the dry run's report: the check as JSON and YAML, a line a
// problem as CSV, the report for people as the table format.
func checkView(c bulkimport.Check) output.View {
	var recs [][]string
	for _, e := range c.Errors {
		code := ""
		if e.ErrorCode != nil {
			code = fmt.Sprint(*e.ErrorCode)
		}
		recs = append(recs, []string{fmt.Sprint(e.Row), e.RequestID, e.Email, code, e.Field, e.Message})
	}
	for _, e := range c.ErasedRows {
		recs = append(recs, []string{fmt.Sprint(e.Row), "", e.Email, fmt.Sprint(api.CodeErased), e.Field, api.ErasedReason(e.Field, e.ErasedAt) + ": " + e.Outcome()})
	}
	return output.View{
		Value:     c,
		CSVHeader: []string{"row", "requestId", "email", "errorCode", "field", "message"},
		CSVRows:   recs,
		Text:      func(w io.Writer) error { c.WriteText(w); return nil },
	}
}

// printRecords writes the rows' records to stdout for -o json, yaml and
// csv (never a password); the table format prints nothing there, the
// summary and failures being on stderr.
func printRecords(f *cmdutil.Factory, records []bulkimport.Record) error {
	if records == nil {
		records = []bulkimport.Record{}
	}
	var rows [][]string
	for _, r := range records {
		rows = append(rows, r.CSV()[:len(bulkimport.ResultsHeader)-1])
	}
	return f.Print(output.View{Value: records, CSVHeader: bulkimport.ResultsHeader[:len(bulkimport.ResultsHeader)-1], CSVRows: rows})
}
