package commands

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/client"
	"github.com/traineed/traineed/cmd/traineectl/internal/bulkupdate"
	"github.com/traineed/traineed/cmd/traineectl/internal/cmdutil"
	"github.com/traineed/traineed/cmd/traineectl/internal/output"
)

// BulkUpdateOptions are the inputs of an action over many trainees:
// `traineectl update --ids/--from-search`, and delete and restore with
// them.
type BulkUpdateOptions struct {
	IDs        []int64
	IDsText    string // --ids 1,2,3
	FromSearch string // --from-search 'status=active&expiresWithin=7d'
	Action     bulkupdate.Action
	DryRun     bool
	ActionID   string
	Journal    string
	Parallel   int
	// Confirm, when set, is asked with the number of trainees before
	// anything is sent (not in a dry run); its error stops the run.
	Confirm func(ctx context.Context, n int) error
}

// registerBulk adds the flags that pick the trainees of a bulk action and
// run it.
func (o *BulkUpdateOptions) registerBulk(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&o.IDsText, "ids", "", "act on these trainees: ids separated by commas (1,2,3)")
	fl.StringVar(&o.FromSearch, "from-search", "", "act on every trainee a search finds: its query string (status=active&expiresWithin=7d)")
	fl.BoolVar(&o.DryRun, "dry-run", false, "print what would change for each trainee; change nothing")
	fl.StringVar(&o.ActionID, "action-id", "", "the action's id: each trainee's idempotency key derives from it, so a re-run never applies it twice (default: a new one, printed)")
	fl.StringVar(&o.Journal, "journal", "", "record the action in this file: a re-run with it skips what was done and retries what failed")
	fl.IntVar(&o.Parallel, "parallel", 4, "trainees in flight at once (1 to 64); a 429 halves it")
	cmd.MarkFlagsMutuallyExclusive("ids", "from-search")
	_ = cmd.RegisterFlagCompletionFunc("from-search", fixedValues(
		"status=active&expiresWithin=7d", "status=active&expiresWithin=30d", "status=expired", "inactiveFor=14d", "createdSince=7d"))
	for _, name := range []string{"ids", "action-id", "parallel"} {
		_ = cmd.RegisterFlagCompletionFunc(name, cobra.NoFileCompletions)
	}
}

// bulkSelected reports whether the command line asks for a bulk action.
func (o *BulkUpdateOptions) bulkSelected(fs *pflag.FlagSet) bool {
	return fs.Changed("ids") || fs.Changed("from-search")
}

// pick reads which trainees a command of ids or of an action (delete,
// restore) acts on: many (--ids or --from-search: o, checked) or the ids
// of args, into *ids.
func (o *BulkUpdateOptions) pick(fs *pflag.FlagSet, args []string, ids *[]int64) (many bool, err error) {
	if o.bulkSelected(fs) {
		return true, o.checkBulk(args)
	}
	*ids, err = cmdutil.ParseIDs(args)
	return false, err
}

// checkBulk checks the options and reads --ids.
func (o *BulkUpdateOptions) checkBulk(args []string) error {
	if len(args) > 0 && (o.IDsText != "" || o.FromSearch != "") {
		return cmdutil.Usagef("give trainee ids as arguments, with --ids or with --from-search, not several of them")
	}
	if o.IDsText != "" {
		parts := strings.Split(o.IDsText, ",")
		ids, err := cmdutil.ParseIDs(parts)
		if err != nil {
			return &cmdutil.UsageError{Err: fmt.Errorf("--ids: %w", err)}
		}
		o.IDs = ids
	} else if len(args) > 0 {
		ids, err := cmdutil.ParseIDs(args)
		if err != nil {
			return err
		}
		o.IDs = ids
	}
	if o.Parallel < 1 || o.Parallel > maxParallel {
		return cmdutil.Usagef("--parallel must be 1 to %d", maxParallel)
	}
	if o.ActionID != "" && !bulkupdate.ValidActionID(o.ActionID) {
		return cmdutil.Usagef("--action-id must be 1 to 200 printable ASCII characters")
	}
	if o.FromSearch != "" {
		if _, err := client.ParseSearchQuery(o.FromSearch); err != nil {
			return &cmdutil.UsageError{Err: fmt.Errorf("--from-search: %w", err)}
		}
	}
	return nil
}

// runBulkUpdate runs the action over the trainees, with a progress bar on
// a terminal, prints a record per trainee and the summary, and gives the
// exit status of create -f: 5 when a trainee failed.
func runBulkUpdate(ctx context.Context, f *cmdutil.Factory, o *BulkUpdateOptions, command string) error {
	if !o.DryRun {
		if err := f.RequireFullKey(ctx, "traineectl "+command); err != nil {
			return err
		}
	}
	ios := f.IOStreams
	prog := bulkupdate.NewProgress(ios.ErrOut, ios.StderrTTY, ios.ErrColorEnabled(), 0)
	c, err := o.client(f, prog)
	if err != nil {
		return err
	}
	ids := o.IDs
	if o.FromSearch != "" {
		if ids, err = searchIDs(ctx, c, o.FromSearch); err != nil {
			return err
		}
	}
	if o.Confirm != nil && !o.DryRun {
		if err := o.Confirm(ctx, len(ids)); err != nil {
			return err
		}
	}
	j, err := o.openJournal(f)
	if err != nil {
		return err
	}
	defer j.Close()
	if !o.DryRun {
		resume := "--action-id " + o.ActionID
		if o.Journal != "" {
			resume = "--journal " + o.Journal
		}
		fmt.Fprintf(ios.ErrOut, "Action %s on %s (to resume it without applying anything twice, run the same command with %s)\n",
			o.ActionID, trainees(int64(len(ids))), resume)
	}
	prog.SetTotal(len(ids))
	prog.Start()
	sum, records, runErr := bulkupdate.Run(ctx, ids, bulkupdate.Options{
		API: bulkupdate.ClientAPI{C: c}, Action: o.Action, ActionID: o.ActionID, Journal: j,
		DryRun: o.DryRun, Today: f.Today(), Parallel: o.Parallel, OnRecord: prog.Record,
	})
	prog.Stop()
	if err := j.Close(); err != nil && runErr == nil {
		runErr = err
	}
	if err := printBulkRecords(f, records, o.DryRun); err != nil {
		return err
	}
	fmt.Fprintln(ios.ErrOut, sum.Text(o.DryRun))
	if runErr != nil {
		return runErr
	}
	if sum.Failed > 0 {
		return &cmdutil.ReportedError{Code: cmdutil.ExitRejected}
	}
	return nil
}

// client is the run's client: one transport sized for --parallel, whose
// trace (-v) passes above the bar.
func (o *BulkUpdateOptions) client(f *cmdutil.Factory, prog *bulkupdate.Progress) (*client.Client, error) {
	build, err := parallelClients(f, o.Parallel, prog)
	if err != nil {
		return nil, err
	}
	return build(), nil
}

// openJournal opens --journal (nil without it) and settles the action id:
// the journal's, else --action-id, else a new one.
func (o *BulkUpdateOptions) openJournal(f *cmdutil.Factory) (*bulkupdate.Journal, error) {
	if o.Journal == "" || o.DryRun {
		if o.ActionID == "" {
			o.ActionID = bulkupdate.NewActionID()
		}
		return nil, nil
	}
	s, err := f.Settings()
	if err != nil {
		return nil, err
	}
	j, err := bulkupdate.OpenJournal(o.Journal)
	if err != nil {
		return nil, err
	}
	base := strings.TrimRight(s.BaseURL, "/")
	if id, b := j.Action(); id != "" {
		switch {
		case b != base:
			j.Close()
			return nil, cmdutil.Usagef("the journal %s belongs to an action on %s, not %s: give another --journal", o.Journal, b, base)
		case o.ActionID != "" && o.ActionID != id:
			j.Close()
			return nil, cmdutil.Usagef("the journal %s belongs to action %s, not %s", o.Journal, id, o.ActionID)
		}
		o.ActionID = id
		return j, nil
	}
	if o.ActionID == "" {
		o.ActionID = bulkupdate.NewActionID()
	}
	return j, j.Start(o.ActionID, base, o.Action.Kind)
}

// searchIDs are the ids of every trainee the search query finds.
func searchIDs(ctx context.Context, c *client.Client, query string) ([]int64, error) {
	p, err := client.ParseSearchQuery(query)
	if err != nil {
		return nil, &cmdutil.UsageError{Err: fmt.Errorf("--from-search: %w", err)}
	}
	var ids []int64
	for t, err := range c.ListTrainees(ctx, p) {
		if err != nil {
			return ids, err
		}
		ids = append(ids, t.ID)
	}
	return ids, nil
}

// printBulkRecords prints a record per trainee: a table of what changed
// (or would) and every failure with its reason, or the records as JSON,
// YAML or CSV.
func printBulkRecords(f *cmdutil.Factory, records []bulkupdate.Record, dryRun bool) error {
	if records == nil {
		records = []bulkupdate.Record{}
	}
	header := []string{"id", "name", "status", "change", "errorCode", "message"}
	var rows [][]string
	for _, r := range records {
		code := ""
		if r.ErrorCode != 0 {
			code = strconv.Itoa(r.ErrorCode)
		}
		rows = append(rows, []string{strconv.FormatInt(r.ID, 10), r.Name, r.Status, r.Change, code, r.Message})
	}
	cols := []output.Column{{Header: "ID", Field: "id", Right: true}, {Header: "NAME", Field: "name", Flex: true},
		{Header: "STATUS", Field: "status"}, {Header: "CHANGE", Field: "change", Flex: true, MinWidth: 38},
		{Header: "ERROR", Field: "errorCode", Right: true}, {Header: "MESSAGE", Field: "message", Flex: true}}
	return f.Print(output.View{Value: records, CSVHeader: header, CSVRows: rows, Columns: cols, Rows: rows})
}

// bulkAction is the action the flags of `update` ask for, for a bulk run:
// --extend, or the fields to set (--expires or --expiration-date,
// --trainer, --disable, --enable, ...).
func bulkAction(p api.TraineePatch, extend string, disable, enable bool) (bulkupdate.Action, error) {
	for _, name := range []string{"name", "email", "phoneNumber", "password"} {
		if set, _, _ := api.PatchFieldNamed(name).Get(&p); set {
			return bulkupdate.Action{}, cmdutil.Usagef("%s cannot be set on several trainees at once", name)
		}
	}
	if disable && enable {
		return bulkupdate.Action{}, cmdutil.Usagef("--disable and --enable cannot be given together")
	}
	if disable {
		p.Enabled = api.Val(false)
	}
	if enable {
		p.Enabled = api.Val(true)
	}
	if extend != "" {
		a, err := api.ParseExtension(extend)
		if err != nil {
			return bulkupdate.Action{}, cmdutil.Usagef("--extend: %v", err)
		}
		if !p.IsEmpty() {
			return bulkupdate.Action{}, cmdutil.Usagef("--extend cannot be combined with other changes: run them as two actions")
		}
		return a, nil
	}
	if p.IsEmpty() {
		return bulkupdate.Action{}, cmdutil.Usagef("nothing to change: give --extend, --expiration-date, --trainer, --disable, --enable or another field")
	}
	return bulkupdate.Action{Kind: bulkupdate.KindPatch, Patch: p}, nil
}
