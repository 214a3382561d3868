package commands

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	"github.com/traineed/traineed/api/client"
	"github.com/traineed/traineed/cmd/traineectl/internal/bulkimport"
	"github.com/traineed/traineed/cmd/traineectl/internal/cmdutil"
	"github.com/traineed/traineed/cmd/traineectl/internal/output"
)

// bulkOptions are the flags of `create -f`.
type bulkOptions struct {
	file, format, journal, results string
	dryRun, generatePasswords      bool
	parallel                       int
}

// bulkFlags are the flags that only mean something with -f.
var bulkFlags = []string{"format", "dry-run", "journal", "parallel", "results", "generate-passwords"}

// maxParallel bounds --parallel.
const maxParallel = 64

// runBulk is `traineectl create -f`.
func runBulk(ctx context.Context, f *cmdutil.Factory, o *bulkOptions) error {
	ios := f.IOStreams
	stdin := o.file == "-"
	format, err := bulkFormat(o)
	if err != nil {
		return err
	}
	if o.parallel < 1 || o.parallel > maxParallel {
		return cmdutil.Usagef("--parallel must be 1 to %d", maxParallel)
	}
	journalPath := o.journal
	if journalPath == "" && !stdin {
		journalPath = o.file + ".journal"
	}
	if !o.dryRun {
		if journalPath == "" {
			return cmdutil.Usagef("-f - (stdin) needs --journal PATH: the journal is what makes a second run safe")
		}
		if o.generatePasswords && o.results == "" {
			return cmdutil.Usagef("--generate-passwords needs --results PATH: generated passwords are written there and nowhere else")
		}
		if err := distinctFiles(o.file, journalPath, o.results); err != nil {
			return err
		}
	}

	var in io.Reader = ios.In
	if !stdin {
		fh, err := os.Open(o.file)
		if err != nil {
			return fmt.Errorf("open the input: %w", err)
		}
		defer fh.Close()
		in = fh
	}
	name := o.file
	if stdin {
		name = "stdin"
	}
	rows, err := bulkimport.Read(in, bulkimport.ReadOptions{Format: format, Today: f.Today(), GeneratePasswords: o.generatePasswords})
	var ie *bulkimport.InputError
	if errors.As(err, &ie) {
		return &cmdutil.UsageError{Err: fmt.Errorf("%s: %w", name, err)}
	}
	if err != nil {
		return fmt.Errorf("read %s: %w", name, err)
	}

	if o.dryRun {
		return bulkDryRun(f, rows, journalPath)
	}

	s, err := f.Settings()
	if err != nil {
		return err
	}
	j, err := bulkimport.OpenJournal(journalPath)
	if err != nil {
		return err
	}
	defer j.Close()
	base := strings.TrimRight(s.BaseURL, "/")
	if prev := j.BaseURL(); prev != "" && prev != base {
		return cmdutil.Usagef("the journal %s belongs to an import into %s, not %s: give another --journal", journalPath, prev, base)
	}
	input := o.file
	if abs, err := filepath.Abs(o.file); err == nil && !stdin {
		input = abs
	}
	if err := j.Run(base, input); err != nil {
		return err
	}
	var results *bulkimport.Results
	if o.results != "" {
		if results, err = bulkimport.OpenResults(o.results); err != nil {
			return err
		}
	}

	prog := bulkimport.NewProgress(ios.ErrOut, ios.StderrTTY, ios.ErrColorEnabled(), len(rows), nil)
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = o.parallel + 2
	var extra []client.Option
	if f.Global.Verbose {
		extra = append(extra, client.WithVerbose(prog)) // the trace passes above the bar
	}
	build, err := f.ClientBuilder(client.WithHTTPClient(&http.Client{Transport: tr}))
	if err != nil {
		return err
	}
	client := bulkimport.ClientAPI{
		Lookup: build(extra...),
		ForRequest: func(rid string) *client.Client {
			return build(append(extra, client.WithRequestIDs(func() string { return rid }))...)
		},
	}
	prog.Start()
	sum, records, runErr := bulkimport.Run(ctx, rows, bulkimport.Options{
		API: client, Journal: j, Results: results, Parallel: o.parallel, OnRecord: prog.Record,
	})
	prog.Stop()
	if results != nil {
		if err := results.Close(); err != nil && runErr == nil {
			runErr = err
		}
	}
	if err := j.Close(); err != nil && runErr == nil {
		runErr = err
	}
	fmt.Fprintln(ios.ErrOut, sum.Text())
	if err := printRecords(f, records); err != nil {
		return err
	}
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
func bulkFormat(o *bulkOptions) (bulkimport.Format, error) {
	if o.format != "" {
		fm, err := bulkimport.ParseFormat(o.format)
		if err != nil {
			return "", &cmdutil.UsageError{Err: fmt.Errorf("--format: %w", err)}
		}
		return fm, nil
	}
	if o.file == "-" {
		return "", cmdutil.Usagef("-f - (stdin) needs --format csv or --format jsonl")
	}
	fm, ok := bulkimport.FormatOf(o.file)
	if !ok {
		return "", cmdutil.Usagef("cannot tell the format of %s from its extension (.csv, .jsonl, .ndjson): give --format csv or --format jsonl", o.file)
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
func bulkDryRun(f *cmdutil.Factory, rows []bulkimport.Row, journalPath string) error {
	var j *bulkimport.Journal
	if journalPath != "" {
		var err error
		if j, err = bulkimport.ReadJournal(journalPath); err != nil {
			return err
		}
	}
	c := bulkimport.CheckRows(rows, j)
	out := f.IOStreams.Out
	var err error
	switch f.OutputFormat() {
	case output.JSON:
		err = output.WriteJSON(out, c)
	case output.YAML:
		err = output.WriteYAML(out, c)
	case output.CSV:
		var recs [][]string
		for _, e := range c.Errors {
			code := ""
			if e.ErrorCode != nil {
				code = fmt.Sprint(*e.ErrorCode)
			}
			recs = append(recs, []string{fmt.Sprint(e.Row), e.RequestID, e.Email, code, e.Field, e.Message})
		}
		err = output.WriteCSV(out, []string{"row", "requestId", "email", "errorCode", "field", "message"}, recs)
	default:
		c.WriteText(out)
	}
	if err != nil {
		return err
	}
	if c.Invalid > 0 {
		return &cmdutil.ReportedError{Code: cmdutil.ExitRejected}
	}
	return nil
}

// printRecords writes the rows' records to stdout for -o json, yaml and
// csv (never a password); the table format prints nothing there, the
// summary and failures being on stderr.
func printRecords(f *cmdutil.Factory, records []bulkimport.Record) error {
	out := f.IOStreams.Out
	if records == nil {
		records = []bulkimport.Record{}
	}
	switch f.OutputFormat() {
	case output.JSON:
		return output.WriteJSON(out, records)
	case output.YAML:
		return output.WriteYAML(out, records)
	case output.CSV:
		var rows [][]string
		for _, r := range records {
			rows = append(rows, r.CSV()[:len(bulkimport.ResultsHeader)-1])
		}
		return output.WriteCSV(out, bulkimport.ResultsHeader[:len(bulkimport.ResultsHeader)-1], rows)
	}
	return nil
}
