package commands

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/traineed/traineed/api"
	"github.com/traineed/traineed/api/client"
	"github.com/traineed/traineed/cmd/traineectl/internal/cmdutil"
	"github.com/traineed/traineed/cmd/traineectl/internal/output"
)

// Values of --status and --sort, for help and completion.
var (
	statusValues = []string{
		api.StatusLive + "\tnot deleted (default)",
		api.StatusActive + "\tnot deleted and not expired",
		api.StatusExpired + "\tnot deleted, expiration date reached",
		api.StatusDeleted + "\tsoft-deleted",
		api.StatusAll + "\tevery trainee",
	}
	sortKeys = []string{api.SortID, api.SortName, api.SortEmail, api.SortExpirationDate, api.SortLastTrained}
)

func sortValues() []string {
	var v []string
	for _, k := range sortKeys {
		v = append(v, k, k+",asc", k+",desc")
	}
	return v
}

// checkSearch refuses, before sending anything, what the server would
// refuse: the checks are the server's own (api.ParseSearch).
func checkSearch(p client.SearchParams) error {
	var ve *api.ValidationError
	if err := p.Validate(); !errors.As(err, &ve) {
		return err
	}
	var msgs []string
	for _, fe := range ve.Errors {
		switch fe.Field {
		case "status":
			msgs = append(msgs, fmt.Sprintf("--status %q: %s", p.Status, fe.Message))
		case "sort":
			msgs = append(msgs, fmt.Sprintf("--sort %q: %s", p.Sort, fe.Message))
		case "q":
			msgs = append(msgs, "QUERY: "+fe.Message)
		default:
			msgs = append(msgs, "--"+fe.Field+": "+fe.Message)
		}
	}
	return cmdutil.Usagef("%s", strings.Join(msgs, "; "))
}

// trainees is "1 trainee" or "N trainees".
func trainees(n int64) string { return output.Count(n, "trainee", "trainees") }

// allLine is the terminal's line after `search --all`: "N trainees (all M
// pages)", or "(1 page)".
func allLine(n int, last api.PageInfo) string {
	pages := "1 page"
	if last.TotalPages > 1 {
		pages = fmt.Sprintf("all %d pages", last.TotalPages)
	}
	return fmt.Sprintf("%s (%s)", trainees(int64(n)), pages)
}

// pageLine is the terminal's line after one page: "page X of Y, N
// trainees", or, past the end, "page 51 of 35: past the last page".
// An inexact total (totalExact false) reads "page 1 of at least 51, at
// least 10001 trainees".
func pageLine(p api.PageInfo) string {
	total := max(p.TotalPages, 1)
	if p.Number >= total {
		return fmt.Sprintf("page %d of %d: past the last page (%s in all; --page counts from 0)", p.Number+1, total, trainees(p.TotalElements))
	}
	if !p.TotalExact {
		return fmt.Sprintf("page %d of at least %d, at least %s", p.Number+1, total, trainees(p.TotalElements))
	}
	return fmt.Sprintf("page %d of %d, %s", p.Number+1, total, trainees(p.TotalElements))
}

// searchMoreLine is the note when fewer trainees were printed than match:
// "Showing 20 of 144 trainees; use --limit N or --all for more".
// An inexact total reads "Showing 20 of at least 10001 trainees; ...".
func searchMoreLine(shown int, p api.PageInfo, limited bool) string {
	of := trainees(p.TotalElements)
	if !p.TotalExact {
		of = "at least " + of
	}
	return moreLine(shown, of, limited)
}

// keyTrainer is the trainer the key in use acts as (GET
// /public-api/keys/current); a key that acts for no trainer is a usage
// error of --mine.
func keyTrainer(ctx context.Context, c *client.Client) (int64, error) {
	k, err := c.CurrentKey(ctx)
	if err != nil {
		return 0, err
	}
	if k.TrainerID == nil {
		return 0, cmdutil.Usagef("--mine: the API key in use (%q, %s…) acts for no trainer, so it has no trainees of its own; "+
			"use a key made with `traineectl keys create --trainer NAME`, or search without --mine", k.Name, k.Prefix)
	}
	return *k.TrainerID, nil
}

// SearchOptions are the inputs of `traineectl search` (and list).
type SearchOptions struct {
	Params client.SearchParams // Query from the arguments, the rest from flags
	// Mine keeps the trainees of the trainer the key acts as.
	Mine bool
	// SizeSet: --size was given (RunE records it).
	SizeSet bool
	listFlags
}

func newSearchCmd(f *cmdutil.Factory, runF func(*SearchOptions) error) *cobra.Command {
	var o SearchOptions
	p := &o.Params
	cmd := &cobra.Command{
		Use:     "search [QUERY]",
		Aliases: []string{"list"},
		Short:   "Search or list trainees",
		Long: `Search the trainees of your company. QUERY matches part of a name or e-mail
address, case-insensitively; a QUERY of digits also matches phone numbers
("7700 900" finds +447700900123). Without QUERY every trainee is listed.

Results come a page at a time (--page counts from 0, --size up to 100);
--limit N fetches up to N trainees across pages, --all every one. On a
terminal a line "page X of Y, N trainees" goes to stderr. When more
trainees match than were printed, a line says so on stderr, also off a
terminal (-q leaves it out). With -o json the result is an array of
trainees.

--mine keeps the trainees of the trainer the API key acts as (a key made
with "keys create --trainer"; "whoami" shows it); with a key that acts for
no trainer it is a usage error (exit status 2).`,
		Example: `  traineectl search ada
  traineectl search --mine --status expired
  traineectl list --status expired --sort expirationDate,desc
  traineectl search --all -o csv > trainees.csv
  traineectl search --limit 500 -o json
  traineectl search --page 1 --size 50`,
		ValidArgsFunction: cobra.NoFileCompletions,
		RunE: func(cmd *cobra.Command, args []string) error {
			p.Query = strings.Join(args, " ")
			o.SizeSet = cmd.Flags().Changed("size")
			if err := recordGiven(cmd, &o); err != nil {
				return err
			}
			if o.SizeSet && (p.Size < 1 || p.Size > 100) {
				return cmdutil.Usagef("--size must be between 1 and 100")
			}
			return runWith(cmd.Context(), f, &o, runF, runSearch)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&p.Status, "status", "", "live (default), active, expired, deleted or all")
	fl.IntVar(&p.Page, "page", 0, "page number, counted from 0")
	fl.IntVar(&p.Size, "size", 0, "trainees per page, 1 to 100 (default 20; 100 with --all)")
	o.register(cmd, "trainee")
	fl.BoolVar(&o.Mine, "mine", false, "only the trainees of the trainer the key acts as")
	fl.StringVar(&p.Sort, "sort", "", "id (default), name, email, expirationDate or lastTrained, optionally followed by ,asc or ,desc")
	_ = cmd.RegisterFlagCompletionFunc("status", fixedValues(statusValues...))
	_ = cmd.RegisterFlagCompletionFunc("sort", fixedValues(sortValues()...))
	_ = cmd.RegisterFlagCompletionFunc("page", cobra.NoFileCompletions)
	_ = cmd.RegisterFlagCompletionFunc("size", cobra.NoFileCompletions)
	return cmd
}

// runSearch checks the search as the server would, then prints one page
// of trainees, or every page with o.All.
func runSearch(ctx context.Context, f *cmdutil.Factory, o *SearchOptions) error {
	if o.Params.Page < 0 {
		return cmdutil.Usagef("--page counts from 0")
	}
	if err := checkSearch(o.Params); err != nil {
		return err
	}
	c, err := f.Client()
	if err != nil {
		return err
	}
	if o.Mine {
		if o.Params.TrainerID, err = keyTrainer(ctx, c); err != nil {
			return err
		}
	}
	ios := f.IOStreams
	if o.walks() {
		st, err := output.NewTraineeStream(ios, f.OutputOptions(), f.Today(), func() map[int64]string { return f.TrainerNames(ctx) })
		if err != nil {
			return err
		}
		pr := &listPrinter[*api.Trainee]{stream: st, whole: func(ts []*api.Trainee) error { return printTrainees(ctx, f, ts, false) }}
		var resp client.Response
		p := o.Params
		p.Max = o.Limit
		if err := client.ByPage(c.ListTrainees(ctx, p, client.WithResponse(&resp)), &resp, pr.write); err != nil {
			return err
		}
		last := resp.Page
		n := pr.n
		if o.All && st == nil && ios.StdoutTTY {
			o.note(f, allLine(n, last)) // before the table, as it always was
		}
		if err := pr.close(); err != nil {
			return err
		}
		switch {
		case o.All:
			if st != nil && ios.StdoutTTY {
				o.note(f, allLine(n, last))
			}
		case int64(n) < last.TotalElements:
			o.note(f, searchMoreLine(n, last, true))
		case ios.StdoutTTY:
			o.note(f, trainees(int64(n)))
		}
		return nil
	}
	pg, err := c.SearchTrainees(ctx, o.Params)
	if err != nil {
		return err
	}
	if err := printTrainees(ctx, f, pg.Content, false); err != nil {
		return err
	}
	more := int64(len(pg.Content)) < pg.Page.TotalElements
	switch {
	case ios.StdoutTTY:
		o.note(f, pageLine(pg.Page)) // "page 1 of 8, 144 trainees" says there are more
	case more:
		o.note(f, searchMoreLine(len(pg.Content), pg.Page, false))
	}
	return nil
}
