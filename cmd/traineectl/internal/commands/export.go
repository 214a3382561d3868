package commands

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"

	"github.com/spf13/cobra"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/client"
	"github.com/traineed/traineed/cmd/internal/textout"
	"github.com/traineed/traineed/cmd/traineectl/internal/bulkexport"
	"github.com/traineed/traineed/cmd/traineectl/internal/cmdutil"
	"github.com/traineed/traineed/cmd/traineectl/internal/output"
)

// ExportOptions are the inputs of `traineectl export`.
type ExportOptions struct {
	ID       int64               // one trainee's document; 0: the company's trainees
	Params   client.SearchParams // which trainees (Query, Status, Sort), as search
	File     string              // "": stdout
	Format   string              // csv, jsonl or yaml; "": by File's extension, else -o, else csv
	With     []string            // tracked data to add (bulkexport.WithKinds)
	From, To string              // the tracked data's days
	Parallel int                 // tracked-data requests in flight at once
}

// exportBulkFlags are the flags of the company's export only.
var exportBulkFlags = []string{"query", "status", "sort", "format", "with", "parallel"}

func newExportCmd(f *cmdutil.Factory, runF func(*ExportOptions) error) *cobra.Command {
	var o ExportOptions
	cmd := &cobra.Command{
		Use:   "export [ID] [--file PATH] [--format csv|jsonl|yaml] [--with KINDS] [--from D] [--to D]",
		Short: "Export one trainee's data, or the company's trainees",
		Long: fieldsHelp(`With ID: everything the server holds about that trainee (GDPR access and
portability): the trainee, its trainer, and all its tracked data as stored
(--from and --to bound the days), as one JSON document (-o yaml: YAML).

Without ID: the company's trainees, streamed as they are read (any number of
trainees in bounded memory), in CSV, JSON Lines or YAML (--format, else the
extension of --file, else -o json, yaml or csv, else CSV). The columns are
those "traineectl create -f" reads: {exportColumns} (never a password), so the file is an
input of "create -f --generate-passwords" and of "apply -f", where it changes
nothing. --query, --status and --sort choose the trainees as search does
(default: live ones, by id). --with weight,measurements,nutrition,steps adds
each trainee's tracked data (JSON Lines and YAML only; --from and --to bound
it), one request per trainee, --parallel at once: such a file is an archive,
not an input of create -f or apply -f.

--file writes to PATH (mode 0600: it is personal data) through PATH.partial,
renamed when the export is complete; without it the export goes to stdout.`),
		Example: `  traineectl export 41 > ada.json
  traineectl export --file trainees.csv
  traineectl export --status all --format jsonl > all.jsonl
  traineectl export --file trainees.yaml --with weight,steps --from 2026-01-01`,
		Args:              cmdutil.MaxArgs(1, "trainee id"),
		ValidArgsFunction: completeTraineeIDs(f, api.StatusAll, false),
		RunE: func(cmd *cobra.Command, args []string) (err error) {
			if len(args) == 1 {
				if o.ID, err = cmdutil.ParseID(args[0]); err != nil {
					return err
				}
				for _, name := range exportBulkFlags {
					if cmd.Flags().Changed(name) {
						return cmdutil.Usagef("--%s is for the company's export, not one trainee's (drop ID or --%s)", name, name)
					}
				}
				return runWith(cmd.Context(), f, &o, runF, runExportOne)
			}
			return runWith(cmd.Context(), f, &o, runF, runExportAll)
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&o.File, "file", "f", "", "write to this file (mode 0600) instead of stdout")
	fl.StringVar(&o.Format, "format", "", "csv, jsonl or yaml (default: by --file's extension, else -o, else csv)")
	fl.StringVar(&o.Params.Query, "query", "", "export the trainees whose name, e-mail or phone holds this (as search's QUERY)")
	fl.StringVar(&o.Params.Status, "status", "", "live (default), active, expired, deleted or all")
	fl.StringVar(&o.Params.Sort, "sort", "", "id (default), name, email, expirationDate or lastTrained, optionally with ,asc or ,desc")
	fl.StringSliceVar(&o.With, "with", nil, "add tracked data: weight, measurements, nutrition, steps (comma-separated)")
	fl.StringVar(&o.From, "from", "", "first day of tracked data (dd-MM-yyyy, yyyy-MM-dd, today, yesterday)")
	fl.StringVar(&o.To, "to", "", "last day of tracked data")
	fl.IntVar(&o.Parallel, "parallel", 4, "with --with: tracked-data requests in flight at once (1 to 64)")
	_ = cmd.RegisterFlagCompletionFunc("format", fixedValues(bulkexport.Formats...))
	_ = cmd.RegisterFlagCompletionFunc("status", fixedValues(statusValues...))
	_ = cmd.RegisterFlagCompletionFunc("sort", fixedValues(sortValues()...))
	_ = cmd.RegisterFlagCompletionFunc("with", fixedValues(bulkexport.WithKinds...))
	_ = cmd.RegisterFlagCompletionFunc("file", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return []string{"csv", "jsonl", "ndjson", "yaml", "yml", "json"}, cobra.ShellCompDirectiveFilterFileExt
	})
	for _, name := range []string{"query", "from", "to", "parallel"} {
		_ = cmd.RegisterFlagCompletionFunc(name, cobra.NoFileCompletions)
	}
	return cmd
}

// exportRange reads --from and --to.
func (o *ExportOptions) exportRange(f *cmdutil.Factory) (api.ExportRange, error) {
	var r api.ExportRange
	for _, p := range []struct {
		val string
		dst **api.Date
	}{{o.From, &r.From}, {o.To, &r.To}} {
		if p.val == "" {
			continue
		}
		d, err := cmdutil.ParseDate(p.val, f.Now())
		if err != nil {
			return r, err
		}
		*p.dst = &d
	}
	if r.From != nil && r.To != nil && r.From.After(*r.To) {
		return r, cmdutil.Usagef("--from is after --to")
	}
	return r, nil
}

// runExportOne prints (or writes to --file) one trainee's document.
func runExportOne(ctx context.Context, f *cmdutil.Factory, o *ExportOptions) error {
	r, err := o.exportRange(f)
	if err != nil {
		return err
	}
	c, err := f.Client()
	if err != nil {
		return err
	}
	x, err := c.ExportTrainee(ctx, o.ID, r)
	if err != nil {
		return err
	}
	doc := output.Omit(x, "timestamp")
	if o.File == "" {
		if f.OutputFormat() == output.CSV {
			return cmdutil.Usagef("one trainee's export is a document: use -o json or -o yaml")
		}
		return f.Print(output.View{Value: doc, Text: func(w io.Writer) error { return textout.WriteJSON(w, doc) }})
	}
	return writeFileAtomically(o.File, func(w io.Writer) error {
		if ext := filepath.Ext(o.File); ext == ".yaml" || ext == ".yml" {
			return textout.WriteYAML(w, doc)
		}
		return textout.WriteJSON(w, doc)
	})
}

// exportFormat picks the company export's format.
func (o *ExportOptions) exportFormat(f *cmdutil.Factory) (bulkexport.Format, error) {
	if o.Format != "" {
		format, err := bulkexport.ParseFormat(o.Format)
		if err != nil {
			return "", cmdutil.Usagef("--format: %v", err)
		}
		return format, nil
	}
	if o.File != "" {
		if format, ok := bulkexport.FormatOf(o.File); ok {
			return format, nil
		}
		return "", cmdutil.Usagef("--file %q: cannot tell the format from its extension; add --format csv, jsonl or yaml", o.File)
	}
	switch f.OutputFormat() {
	case output.JSON:
		return bulkexport.JSONL, nil
	case output.YAML:
		return bulkexport.YAML, nil
	}
	return bulkexport.CSV, nil
}

// runExportAll streams the company's trainees, page after page (keyset
// cursors: nothing repeats or goes missing), each written as it comes.
func runExportAll(ctx context.Context, f *cmdutil.Factory, o *ExportOptions) error {
	if g := f.Global; g.JQ != "" || g.Template != "" || len(g.Fields) > 0 {
		return cmdutil.Usagef("--jq, --template and --fields do not apply to the company's export: its columns are create -f's")
	}
	format, err := o.exportFormat(f)
	if err != nil {
		return err
	}
	if o.With, err = bulkexport.ParseWith(o.With); err != nil {
		return cmdutil.Usagef("%v", err)
	}
	if len(o.With) > 0 && format == bulkexport.CSV {
		return cmdutil.Usagef("--with needs --format jsonl or yaml: CSV has one line per trainee")
	}
	if o.Parallel < 1 || o.Parallel > maxParallel {
		return cmdutil.Usagef("--parallel must be 1 to %d", maxParallel)
	}
	r, err := o.exportRange(f)
	if err != nil {
		return err
	}
	o.Params.Size = 100
	if err := checkSearch(o.Params); err != nil {
		return err
	}
	c, err := f.Client()
	if err != nil {
		return err
	}
	var n int64
	write := func(w io.Writer) error {
		ew, err := bulkexport.NewWriter(w, format)
		if err != nil {
			return err
		}
		var resp client.Response
		err = client.ByPage(c.ListTrainees(ctx, o.Params, client.WithResponse(&resp)), &resp, func(ts []*api.Trainee) error {
			return o.writePage(ctx, c, ew, ts, r)
		})
		n = ew.Count()
		if err != nil {
			return err
		}
		return ew.Close()
	}
	if o.File == "" {
		err = write(f.IOStreams.Out)
	} else {
		err = writeFileAtomically(o.File, write)
	}
	if err == nil && f.IOStreams.StderrTTY {
		to := ""
		if o.File != "" {
			to = " to " + o.File
		}
		fmt.Fprintf(f.IOStreams.ErrOut, "Exported %s%s\n", trainees(n), api.EscapeText(to))
	}
	return err
}

// writePage writes one page of trainees, with their tracked data when
// --with asks (read o.Parallel at a time, written in the page's order). A
// trainee erased since the page was read is left out.
func (o *ExportOptions) writePage(ctx context.Context, c *client.Client, w *bulkexport.Writer, ts []*api.Trainee, r api.ExportRange) error {
	xs := make([]*api.TraineeExport, len(ts))
	if len(o.With) > 0 {
		errs := make([]error, len(ts))
		sem := make(chan struct{}, o.Parallel)
		var wg sync.WaitGroup
		for i, t := range ts {
			wg.Add(1)
			sem <- struct{}{}
			go func() {
				defer func() { <-sem; wg.Done() }()
				xs[i], errs[i] = c.ExportTrainee(ctx, t.ID, r)
			}()
		}
		wg.Wait()
		for _, err := range errs {
			var nf *client.TraineeNotFoundError
			if err != nil && !errors.As(err, &nf) {
				return err
			}
		}
	}
	for i, t := range ts {
		rec := bulkexport.FromTrainee(t)
		if len(o.With) > 0 {
			if xs[i] == nil {
				continue // gone meanwhile
			}
			rec.Attach(xs[i], o.With)
		}
		if err := w.Write(&rec); err != nil {
			return err
		}
	}
	return nil
}

// writeFileAtomically writes path through path.partial (mode 0600),
// renamed over path once write succeeds; on failure the partial file is
// removed and path is left as it was.
func writeFileAtomically(path string, write func(io.Writer) error) error {
	tmp := path + ".partial"
	fh, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	err = write(fh)
	if cerr := fh.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = os.Remove(tmp)
		return err
	}
	return os.Rename(tmp, path)
}
