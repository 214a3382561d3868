package commands

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/cmd/traineectl/internal/bulkimport"
	"github.com/traineed/traineed/cmd/traineectl/internal/cmdutil"
	"github.com/traineed/traineed/cmd/traineectl/internal/iostreams"
	"github.com/traineed/traineed/cmd/traineectl/internal/output"
)

// ApplyOptions are the inputs of `traineectl apply -f`: those of create -f
// (input, format, journal, results, parallelism, column map) and how to
// compare the input with the company.
type ApplyOptions struct {
	BulkOptions
	Match     string // email or phone
	NoRestore bool
	Prune     bool
	Yes       bool // --prune without asking
}

var applyLong = fieldsHelp(`Make the company's trainees look like a file: the nightly sync from a CRM.
The input is what create -f takes (CSV, JSON Lines or YAML, the same columns,
--map or --map-file for another system's headers), and also what export and
search -o csv/json/yaml write.

Each row is matched to a trainee of the company by e-mail (--match phone: by
phone number), deleted trainees included:
  no match          the trainee is created (it needs a password, or
                    --generate-passwords with --results)
  fields differ     only the changed fields are sent
  all equal         nothing is sent
  deleted trainee   restored (with its changes); --no-restore refuses it
  erased person     no match, and the e-mail or phone number is that of a
                    trainee erased from the company: skipped, listed as
                    "! erased on DATE" (--allow-erased creates it)

A column the input has is managed: an empty cell clears {clearable}. A
column it lacks is left alone. The password
is used to create only: an existing trainee's password is never changed.

--dry-run reads the company, prints the plan and exits 0, changing nothing:
  - trainee 41 old@example.com (Old Name): absent from the input   (--prune)
  + row 2: ada@example.com (Ada Park)
  ~ row 3: bob@example.com (trainee 42)
      phoneNumber: "+447700900123" → null
  ! row 5: 1002 email: e-mail address is not valid
  ! erased on 2026-11-28 (e-mail): row 6: cy@example.com (Cy Lund)
  = 120 unchanged
-o json gives the plan as data (counts and steps).

--prune soft-deletes the live trainees no row matches (listed first in the
plan); it asks for confirmation on a terminal and needs --yes elsewhere.

Applying the same file again changes nothing. A run can be interrupted, even
by kill -9: the journal (--journal, default FILE.journal, as for create -f)
records every change before it is sent, and the next run reads the company
afresh and sends only what is still missing, a change whose outcome was lost
with the same idempotency key. The summary line, --results, -o json records
and the exit status are those of create -f: 5 when any row failed or was
refused, 0 otherwise (a row skipped as erased is not a failure).`)

const applyExample = `  traineectl apply -f clients.csv --dry-run
  traineectl apply -f clients.csv --generate-passwords --results new-passwords.csv
  traineectl apply -f crm-export.csv --map-file docs/maps/generic-crm.map --prune --yes
  crm-export | traineectl apply -f - --format jsonl --journal sync.journal -o json`

func newApplyCmd(f *cmdutil.Factory, runF func(*ApplyOptions) error) *cobra.Command {
	var o ApplyOptions
	cmd := &cobra.Command{
		Use:     "apply -f FILE [flags]",
		Short:   "Sync the company's trainees with a file: create, update, restore (and prune)",
		Long:    applyLong,
		Example: applyExample,
		Args:    cmdutil.ExactArgs(0, "no arguments: use -f FILE"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if !cmd.Flags().Changed("file") {
				return cmdutil.Usagef("-f FILE is required (- for stdin)")
			}
			return runWith(cmd.Context(), f, &o, runF, runApply)
		},
	}
	o.register(cmd)
	return cmd
}

func (o *ApplyOptions) register(cmd *cobra.Command) {
	o.registerFile(cmd, fileFlagsHelp{
		file:     "the CSV, JSON Lines, YAML or JSON file of trainees (- for stdin)",
		dryRun:   "print the plan and change nothing",
		journal:  "the run's journal (default: FILE.journal; required with -f -)",
		parallel: "changes in flight at once (1 to 64)",
		generate: "generate a password for each new trainee without one (written to --results only)",
		erased:   "create the rows of people erased from the company too (by default they are skipped: '! erased on DATE')"})
	fl := cmd.Flags()
	fl.StringVar(&o.Match, "match", bulkimport.MatchEmail, "match rows to trainees by email or phone")
	fl.BoolVar(&o.NoRestore, "no-restore", false, "refuse the rows of deleted trainees instead of restoring them")
	fl.BoolVar(&o.Prune, "prune", false, "soft-delete the company's trainees that no row matches")
	fl.BoolVarP(&o.Yes, "yes", "y", false, "with --prune: delete without asking")
	_ = cmd.RegisterFlagCompletionFunc("match", fixedValues(bulkimport.MatchEmail, bulkimport.MatchPhone))
}

// runApply reads the input and the company, makes the plan, and prints it
// (--dry-run) or carries it out.
func runApply(ctx context.Context, f *cmdutil.Factory, o *ApplyOptions) error {
	if o.Match != bulkimport.MatchEmail && o.Match != bulkimport.MatchPhone {
		return cmdutil.Usagef("--match must be email or phone, not %q", o.Match)
	}
	o.apply = true
	format, journalPath, err := o.check()
	if err != nil {
		return err
	}
	rows, err := o.read(ctx, f, format)
	if err != nil {
		return err
	}
	if !o.DryRun {
		if err := f.RequireFullKey(ctx, "traineectl apply"); err != nil {
			return err
		}
	}
	ios := f.IOStreams
	prog := bulkimport.NewProgress(ios.ErrOut, ios.StderrTTY, ios.ErrColorEnabled(), len(rows), nil)
	srv, err := o.clientAPI(f, prog)
	if err != nil {
		return err
	}
	x, err := readCompany(ctx, f, srv)
	if err != nil {
		return err
	}
	plan := bulkimport.MakePlan(rows, x, bulkimport.PlanOptions{Match: o.Match, NoRestore: o.NoRestore,
		Prune: o.Prune, GeneratePasswords: o.GeneratePasswords})
	if o.DryRun {
		// The run's verdict on its journal, too (an import into another
		// server or company is refused).
		if journalPath != "" {
			j, err := bulkimport.ReadJournal(journalPath)
			if err != nil {
				return err
			}
			if err := o.checkJournalOwner(ctx, f, j, journalPath); err != nil {
				return err
			}
		}
		if err := o.markErased(f, true, func(allow bool) error { return plan.MarkErased(ctx, srv, allow) }); err != nil {
			return err
		}
		return f.Print(planView(plan, ios.ColorEnabled()))
	}
	if err := o.confirmPrune(ctx, f, plan); err != nil {
		return err
	}
	return o.carryOut(ctx, f, plan, srv, prog, journalPath)
}

// readCompany reads the company's trainees, with a count on a terminal.
func readCompany(ctx context.Context, f *cmdutil.Factory, srv bulkimport.ClientAPI) (*bulkimport.Index, error) {
	ios := f.IOStreams
	var progress func(int)
	if ios.StderrTTY {
		progress = func(n int) { fmt.Fprintf(ios.ErrOut, "\r\x1b[KReading the company's trainees: %d", n) }
	}
	x, err := bulkimport.ReadCompany(ctx, srv, progress)
	if progress != nil {
		fmt.Fprint(ios.ErrOut, "\r\x1b[K")
	}
	if err != nil {
		return nil, fmt.Errorf("read the company's trainees: %w", err)
	}
	return x, nil
}

// confirmPrune asks before --prune deletes anything, unless --yes.
func (o *ApplyOptions) confirmPrune(ctx context.Context, f *cmdutil.Factory, plan *bulkimport.Plan) error {
	if plan.Delete == 0 || o.Yes {
		return nil
	}
	if !f.IOStreams.CanPrompt() {
		return cmdutil.Usagef("--prune would delete %s absent from the input: confirm with --yes (see them with --dry-run); nothing was changed", trainees(int64(plan.Delete)))
	}
	w := f.IOStreams.ErrOut
	const shown = 20
	for i, s := range plan.Steps {
		if s.Action != bulkimport.ActionDelete {
			break
		}
		if i == shown {
			fmt.Fprintf(w, "  ... and %d more\n", plan.Delete-shown)
			break
		}
		fmt.Fprintf(w, "  - trainee %d %s (%s)\n", *s.TraineeID, api.EscapeText(s.Email), api.EscapeText(s.Name))
	}
	ok, err := f.Confirm(ctx, fmt.Sprintf("Delete %s, absent from the input?", trainees(int64(plan.Delete))))
	if err != nil {
		return err
	}
	if !ok {
		return cmdutil.Usagef("not confirmed; nothing was changed")
	}
	return nil
}

// carryOut applies the plan through the journal with a progress bar,
// then prints the summary and the records, and gives the exit status.
func (o *ApplyOptions) carryOut(ctx context.Context, f *cmdutil.Factory, plan *bulkimport.Plan, srv bulkimport.ClientAPI,
	prog *bulkimport.Progress, journalPath string) error {
	j, results, err := o.openOutputs(ctx, f, journalPath)
	if err != nil {
		return err
	}
	defer j.Close()
	if err := o.markErased(f, false, func(allow bool) error { return plan.MarkErased(ctx, srv, allow) }); err != nil {
		return err
	}
	prog.SetTotal(len(plan.Steps))
	prog.Start()
	sum, records, runErr := bulkimport.Apply(ctx, plan, bulkimport.ApplyOptions{
		Options: bulkimport.Options{API: srv, Journal: j, Results: results, Parallel: o.Parallel, OnRecord: prog.Record},
		Changes: srv,
	})
	prog.Stop()
	return finishRun(f, j, results, sum, sum.ApplyText(), records, runErr)
}

// planView is the dry run's plan: the plan as JSON and YAML, a line per
// step (and per changed field) as CSV, the diff for people.
func planView(p *bulkimport.Plan, color bool) output.View {
	var recs [][]string
	for _, s := range p.Steps {
		id, code := "", ""
		if s.TraineeID != nil {
			id = fmt.Sprint(*s.TraineeID)
		}
		if s.ErrorCode != nil {
			code = fmt.Sprint(*s.ErrorCode)
		}
		row := ""
		if s.Row != 0 {
			row = fmt.Sprint(s.Row)
		}
		if len(s.Changes) == 0 {
			recs = append(recs, []string{s.Action, row, id, s.Email, s.Field, "", "", code, s.Reason})
		}
		for _, c := range s.Changes {
			recs = append(recs, []string{s.Action, row, id, s.Email, c.Field, bulkimport.Value(c.Old), bulkimport.Value(c.New), "", ""})
		}
	}
	return output.View{
		Value:     p,
		CSVHeader: []string{"action", "row", "traineeId", "email", "field", "old", "new", "errorCode", "reason"},
		CSVRows:   recs,
		Text: func(w io.Writer) error {
			p.WriteText(w, planPainter(color))
			if !p.Changes() && p.Refused == 0 && p.Erased == 0 {
				fmt.Fprintln(w, "Nothing to do.")
			}
			return nil
		},
	}
}

// planPainter colours the markers of the diff: green +, yellow ~, red -
// and !.
func planPainter(color bool) bulkimport.Painter {
	return func(action, s string) string {
		switch action {
		case bulkimport.ActionCreate:
			return iostreams.Paint(color, iostreams.Green, s)
		case bulkimport.ActionUpdate, bulkimport.ActionRestore:
			return iostreams.Paint(color, iostreams.Yellow, s)
		case bulkimport.ActionDelete, bulkimport.ActionRefused:
			return iostreams.Paint(color, iostreams.Red, s)
		}
		return strings.Clone(s)
	}
}
